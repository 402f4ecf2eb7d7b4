"""What a journaled and a recorded instance share (journal.py, recording.py): the
options that make a session replayable (docs/rules/replayable-options.md), every change
(input, goto, host answer, clock move) handed to the subclass's `_change` one at a time
under one reentrant lock, and a session on the system clock run on a manual clock that
a thread moves in real time."""
from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import IO

from ._input import _input_json
from ._instance import Instance
from ._text import JSON, strict_loads

#: How often the clock of a real-time session moves, in seconds.
TICK = 0.010


def replayable_options(given: Mapping[str, JSON]) -> tuple[dict[str, JSON], bool]:
    """The options a replayable instance is created with, from those asked for: a seed
    drawn when none is given, and the manual clock. Also says whether the session asked
    for real time (the system clock), which the session then plays on the manual one."""
    options = dict(given)
    real_time = options.pop("clock", "system") != "manual"
    options["clock"] = "manual"
    # Below 2^53, so that every JSON reader keeps it exact.
    options.setdefault("seed", random.randrange(1 << 53))
    return options, real_time


class ReplayableInstance(Instance):
    """An Instance whose subclass writes each change down: `_change` for inputs, gotos,
    answers and clock moves, `_tick` for the real-time clock."""

    _drive_lock: threading.RLock
    _file: IO[bytes]

    # -- what a subclass writes down -----------------------------------------------------

    def _change(self, kind: str, value: JSON, apply: Callable[[], object]) -> None:
        """Writes down and applies one change, called with the lock held. `kind` is
        "send" (value: the input), "goto" (the version), "respond" ({"id", "result"}),
        "fail" ({"id", "message"}) or "advance" (nanoseconds); `apply` makes it."""
        raise NotImplementedError

    def _tick(self, elapsed_ns: int) -> bool:
        """Moves the clock by `elapsed_ns` (called with the lock held); False stops the thread."""
        raise NotImplementedError

    # -- the changes, each handed to _change ---------------------------------------------

    def send_json(self, text: str | bytes) -> None:
        data = text.encode() if isinstance(text, str) else text
        try:
            value = strict_loads(data)
        except ValueError:
            # Not JSON as the library reads it: the library says so; nothing to write down.
            Instance.send_json(self, data)
            return
        with self._drive_lock:
            self._change("send", value, lambda: Instance.send_json(self, data))

    def goto(self, version: int) -> int:
        reached: list[int] = []
        with self._drive_lock:
            self._change("goto", version, lambda: reached.append(Instance.goto(self, version)))
            return reached[0] if reached else self.version

    def respond_json(self, request_id: int, text: str | bytes) -> None:
        data = text.encode() if isinstance(text, str) else text
        try:
            result = strict_loads(data)
        except ValueError:
            # Not JSON as the library reads it: the library says so; nothing to write down.
            Instance.respond_json(self, request_id, data)
            return
        with self._drive_lock:
            self._change("respond", {"id": request_id, "result": result},
                         lambda: Instance.respond_json(self, request_id, data))

    def fail_request(self, request_id: int, message: str | bytes) -> None:
        text = message.decode() if isinstance(message, bytes) else message
        with self._drive_lock:
            self._change("fail", {"id": request_id, "message": text},
                         lambda: Instance.fail_request(self, request_id, text))

    def advance_clock(self, seconds: float = 0.0, *, nanoseconds: int | None = None) -> None:
        if (nanoseconds is not None and seconds) or (
                nanoseconds is None and not (math.isfinite(seconds) and 0 <= seconds * 1_000_000_000 < 2**64)):
            Instance.advance_clock(self, seconds, nanoseconds=nanoseconds)  # raises, naming the argument
        amount = nanoseconds if nanoseconds is not None else round(seconds * 1_000_000_000)
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            Instance.advance_clock(self, nanoseconds=amount)  # raises, naming the argument
        with self._drive_lock:
            self._change("advance", amount, lambda: Instance.advance_clock(self, nanoseconds=amount))

    # -- inputs, which all go through send_json --------------------------------------------

    def send(self, input: str | Mapping[str, JSON], /, **fields: JSON) -> None:
        self.send_json(_input_json(input, fields))

    def send_and_read(self, input: str | Mapping[str, JSON], /, **fields: JSON) -> dict[str, JSON]:
        with self._drive_lock:
            self.send(input, **fields)
            return self.state

    def send_and_read_json(self, text: str | bytes) -> tuple[bytes, int]:
        # Written down as a send: the state read after it is the one that send made.
        with self._drive_lock:
            self.send_json(text)
            return self.state_json()

    # -- the clock in real time ----------------------------------------------------------

    def _start_driving(self, real_time: bool, name: str) -> None:
        """Starts the real-time clock thread when the session asked for the system clock."""
        if not hasattr(self, "_drive_lock"):
            self._drive_lock = threading.RLock()
        self._ticking = real_time
        self._ticker: threading.Thread | None = None
        if real_time:
            self._ticker = threading.Thread(target=self._tick_loop, name=name, daemon=True)
            self._ticker.start()

    def _tick_loop(self) -> None:
        last = time.monotonic_ns()
        while self._ticking:
            time.sleep(TICK)
            with self._drive_lock:
                if not self._ticking or self.closed:
                    return
                now = time.monotonic_ns()
                elapsed, last = now - last, now
                if not self._tick(elapsed):
                    return

    def close(self) -> None:
        """Stops the clock, closes the file and destroys the instance."""
        self._ticking = False
        ticker = getattr(self, "_ticker", None)
        if ticker is not None and ticker is not threading.current_thread():
            ticker.join()
        file = getattr(self, "_file", None)
        if file is not None and not file.closed:
            with self._drive_lock:
                file.close()
        Instance.close(self)
