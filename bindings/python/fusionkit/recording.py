"""Recording a session as a scenario file that replays it (docs/scenarios.md, "Record
and replay"): what `fusion run --record FILE` does, from Python.

    with lib.create("wifi", record="bug.scenario.json") as wifi:
        wifi.send("networkTapped", id="blob")
        ...
    # fusion replay bug.scenario.json, or fusionkit.scenario.run("bug.scenario.json")

The file holds the creation options with the seed drawn (when none was given) and the
manual clock, then a step for every input, goto, host answer and move of the clock,
each with the whole state after it. It is valid JSON after every step, so a session
that ends abruptly still replays up to where it got.

A session asked for on the system clock (the default) runs on a manual clock that the
recording moves in real time, every 10 ms. A move that changed the state or what is
pending is written as an `advance` step with the time since the last one written, so a
replay moves the clock by exactly the same amounts at the same points and the effects
wake as they did; moves while nothing is pending are left out, since no effect could
tell. Recording needs fk_create_with_options (and fk_pending to leave idle moves out).
"""
from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from ._handle import LibraryCalls
from ._host_requests import HostEvent
from ._instance import Instance
from ._replayable import TICK, ReplayableInstance, replayable_options
from ._text import JSON
from .errors import FusionError, JournalError

__all__ = ["RecordingInstance", "ScenarioWriter", "recording_options", "seconds_text", "TICK"]

#: The name this rule had before it was shared with journals (_replayable.py).
recording_options = replayable_options

_TRAILER = b"\n  ]\n}\n"


def seconds_text(nanoseconds: int) -> str:
    """Nanoseconds as exact decimal seconds: 1012000000 -> "1.012"."""
    whole, fraction = divmod(nanoseconds, 1_000_000_000)
    return str(whole) if not fraction else f"{whole}.{fraction:09d}".rstrip("0")


class ScenarioWriter:
    """Writes one instance's session to a scenario file, step by step: what a
    RecordingInstance records, and what a journaled instance records too when it is
    made with both `journal=` and `record=`. Its owner holds the lock around every call."""

    def __init__(self, instance: Instance, path: str, options: Mapping[str, JSON], real_time: bool) -> None:
        self.instance = instance
        self.path = path
        self._steps = 0
        self._unwritten_ns = 0
        self._has_pending = "fk_pending" in instance.library.optional_functions
        # Requests seen by id, so that an answer is written with its kind and payload.
        self._requests: dict[int, HostEvent] = {}
        self._file = open(path, "wb")
        info = instance.library.summary.library
        header = {
            "name": f"{instance.feature}, recorded by the fusionkit Python package",
            "recorded": {"by": "fusionkit (Python)", "library": f"{info.name} {info.version}",
                         "clock": "system, recorded as the moves of a manual clock" if real_time else "manual"},
            "feature": instance.feature,
            "options": dict(options),
            "nothingPending": False,
        }
        text = json.dumps(header, ensure_ascii=False, indent=2)
        # The steps go one per line between the header and the trailer.
        self._file.write(text[:-2].encode() + b',\n  "steps": [' + _TRAILER)
        self._file.flush()
        self._fingerprint = self._take_fingerprint()

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    # -- what the owner tells it ----------------------------------------------------------

    def saw(self, event: HostEvent) -> None:
        """A host event the session's handler or poll saw (answers are written with it)."""
        if event.is_request and event.id is not None:
            self._requests[event.id] = event

    def change(self, kind: str, value: JSON, apply: Callable[[], object]) -> None:
        """Applies one change (`apply`) and writes its step (see ReplayableInstance._change)."""
        if kind == "advance":
            apply()
            assert isinstance(value, int)
            self._unwritten_ns += value
            self._write_advance()
            return
        if kind in ("respond", "fail"):
            assert isinstance(value, dict)
            key = "result" if kind == "respond" else "message"
            value = self._answer(value["id"], key, value[key])
        self._perform(kind, value, apply)

    def idle(self) -> bool:
        """Nothing pending after the last step: no effect could tell the clock moved."""
        return self._fingerprint[1] == 0

    def moved(self, elapsed_ns: int) -> None:
        """The clock moved by `elapsed_ns` in real time; written once that changed something."""
        self._unwritten_ns += elapsed_ns
        if self._take_fingerprint() != self._fingerprint:
            self._write_advance()

    # -- steps -----------------------------------------------------------------------------

    def _answer(self, request_id: int, key: str, value: JSON) -> dict[str, JSON]:
        request = self._requests.get(request_id)
        if request is None:
            # Not seen through this instance: written so that the replay says which.
            return {"kind": "", "payload": None, key: value}
        return {"kind": request.kind, "payload": request.payload, key: value}

    def _perform(self, key: str, value: JSON, call: Callable[[], object]) -> None:
        if self._unwritten_ns:
            self._write_advance()
        refusal: FusionError | None = None
        try:
            call()
        except JournalError:
            raise  # not journaled, so not applied: nothing to record
        except FusionError as error:
            refusal = error
        # What a scenario runner does after every step: let the effects just started settle.
        try:
            Instance.advance_clock(self.instance, 0)
        except FusionError:
            pass
        step = f"{_json(key)}:{_json(value)}"
        if refusal is not None:
            step += f',"error":{_json(refusal.status)}'
        self._append(step)
        if refusal is not None:
            raise refusal

    def _write_advance(self) -> None:
        # The exact decimal of the nanoseconds, not a float's repr.
        step = f'"advance":{seconds_text(self._unwritten_ns)}'
        self._unwritten_ns = 0
        self._append(step)

    def _append(self, members: str) -> None:
        """Writes a step (its members as JSON text) with the state after it."""
        instance = self.instance
        state = "" if instance.closed else f',"state":{Instance.state_json(instance)[0].decode()}'
        self._fingerprint = self._take_fingerprint()
        text = "{" + members + state + "}"
        prefix = b"\n    " if self._steps == 0 else b",\n    "
        self._steps += 1
        if self._file.closed:
            return
        self._file.seek(-len(_TRAILER), os.SEEK_END)
        self._file.write(prefix + text.encode() + _TRAILER)
        self._file.flush()

    def _take_fingerprint(self) -> tuple[int, int | None, int | None]:
        instance = self.instance
        if instance.closed:
            return (0, None, None)
        version = instance.version
        if not self._has_pending:
            return (version, None, None)
        effects, requests = instance.pending()
        return (version, effects, requests)


class RecordingInstance(ReplayableInstance):
    """An Instance whose every change is written to a scenario file as it happens (made by
    `Library.create(..., record=path)`). Everything else is as for `Instance`; inputs,
    gotos, host answers and clock moves made through it are recorded (calls made through
    `Library.c` are not). Use it from any thread; steps are written in the order applied.
    A change callback must not send inputs from the thread that moves the clock: it runs
    while the recording holds its lock, and waits for it otherwise."""

    path: str

    @classmethod
    def start(cls, library: LibraryCalls, feature: str, given: Mapping[str, JSON],
              path: str | os.PathLike[str]) -> RecordingInstance:
        options, real_time = replayable_options(given)
        instance: RecordingInstance = library._create_with_options(feature, options, cls)
        try:
            instance._begin(os.fspath(path), options, real_time)
        except BaseException:
            Instance.close(instance)
            raise
        return instance

    def _begin(self, path: str, options: Mapping[str, JSON], real_time: bool) -> None:
        self.path = path
        # Reentrant: a change callback told during a recorded call may record too.
        self._drive_lock = threading.RLock()
        self._recorder = ScenarioWriter(self, path, options, real_time)
        self._start_driving(real_time, f"fusionkit-record-{self.feature}")

    # -- what is recorded ---------------------------------------------------------------

    def _change(self, kind: str, value: JSON, apply: Callable[[], object]) -> None:
        self._recorder.change(kind, value, apply)

    def set_request_handler(self, handler: Callable[[HostEvent], object] | None) -> None:
        _watch_requests(self, self._recorder, handler)

    def poll_request(self) -> HostEvent | None:
        event = Instance.poll_request(self)
        if event is not None:
            self._recorder.saw(event)
        return event

    def close(self) -> None:
        ReplayableInstance.close(self)
        with self._drive_lock:
            self._recorder.close()

    # -- the clock in real time --------------------------------------------------------

    def _tick(self, elapsed_ns: int) -> bool:
        # With nothing pending no effect can tell that time moved.
        if self._recorder.idle():
            return True
        try:
            Instance.advance_clock(self, nanoseconds=elapsed_ns)
        except FusionError:
            return False
        self._recorder.moved(elapsed_ns)
        return True


def _watch_requests(instance: Instance, recorder: ScenarioWriter,
                    handler: Callable[[HostEvent], object] | None) -> None:
    """Sets `handler` on `instance`, the recorder seeing each event first."""
    if handler is None:
        Instance.set_request_handler(instance, None)
        return

    def seen(event: HostEvent) -> None:
        recorder.saw(event)
        handler(event)

    Instance.set_request_handler(instance, seen)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
