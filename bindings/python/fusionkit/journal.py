"""Crash-safe sessions (docs/reliability.md, "Crash-safe sessions"): what
`fusion run --journal FILE` does, from Python.

    with lib.create("wifi", journal="wifi.journal") as wifi:
        wifi.send("networkTapped", id="blob")
        ...
    # After a crash (even SIGKILL), the same call resumes the session:
    wifi = lib.create("wifi", journal="wifi.journal")   # same state, same version

Each input, host answer, goto and move of the clock is appended to the journal and
flushed to disk (fsync) before it is applied. Opening an existing journal creates a new
instance with the options in its header (seed and manual clock included) and replays
the records, which gives the same state and version, then goes on appending. The file
is the one `fusion run --journal` writes, so either can resume the other's session.

A record is a line, `JSON CRC`, the CRC-32 of the JSON's bytes in eight hex digits. A
last line without its newline, or whose CRC does not match, was torn by the crash: it
is dropped with a `JournalWarning` and cut off. A bad line anywhere else is damage, and
`JournalError` refuses the file rather than read it wrong. One process at a time may
have a journal open (an exclusive `flock`).

A session on the system clock (the default) runs on a manual clock the journal moves in
real time: every 10 ms while an effect is pending, each move journaled before it is made.

With `record=` as well, the session is also recorded as a scenario (see recording.py):
each change is journaled, then applied, then written as a step, and the real-time clock
is the journal's, so the recording's advances are the journal's moves.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ._handle import LibraryCalls
from ._host_requests import HostEvent
from ._instance import Instance
from ._journal_format import FORMAT_VERSION, chains, encode_lines, line_and_crc, read_journal, whole
from ._replayable import ReplayableInstance, replayable_options
from ._text import JSON
from .errors import FusionError, JournalError
from .recording import ScenarioWriter, _watch_requests

__all__ = ["JournalError", "JournalWarning", "JournaledInstance", "Resumption", "FORMAT_VERSION"]


class JournalWarning(UserWarning):
    """A torn last record was dropped when a journal was opened."""


@dataclass(frozen=True, slots=True)
class Resumption:
    """What opening an existing journal did."""
    #: Records replayed into the new instance.
    records: int
    #: Why the last record was dropped, if it was (also given as a JournalWarning).
    warning: str | None = None


class JournaledInstance(ReplayableInstance):
    """An Instance whose session survives a crash of its process (made by
    `Library.create(..., journal=path)`). Inputs, gotos, host answers and clock moves
    made through it are journaled before they are applied (calls made through
    `Library.c` are not). Use it from any thread. A change callback must not send
    inputs from the thread that moves the clock: it runs while the journal holds its
    lock, and waits for it otherwise."""

    path: str
    #: What opening an existing journal did; None for a new journal.
    resumed: Resumption | None

    #: The scenario the session is recorded to as well (`record=`), or None.
    _recorder: ScenarioWriter | None = None
    #: The client message ids of inputs the journal holds (`sendBy`, `applied` and
    #: `refused` records, written by a bridge), kept across checkpoints: each with the
    #: feature's refusal (`{"status", "message"}`), or None when it was applied.
    _messages: list[tuple[Any, dict[str, str] | None]] = []  # noqa: RUF012 (never changed in place: replaced)
    #: The poison inputs the journal holds (`poisoned` records, written by a bridge), each
    #: with the version it was applied at, kept across checkpoints.
    _poisoned: list[dict[str, Any]] = []  # noqa: RUF012 (never changed in place: replaced)

    @classmethod
    def open(cls, library: LibraryCalls, feature: str, given: Mapping[str, JSON],
             path: str | os.PathLike[str], record: str | os.PathLike[str] | None = None) -> JournaledInstance:
        """Opens (or resumes) the journal at `path`; with `record`, also records the session
        to that scenario file: each change journaled, then recorded, on one clock."""
        where = os.fspath(path)
        existing = read_journal(where)
        if existing is not None and record is not None:
            # A recording replays from the start, which a resumed session's would lack.
            raise JournalError(f"journal {where}: record= starts a new session, and this journal holds one already; "
                               "resume it without record=, or delete it to start afresh")
        if existing is None:
            options, real_time = replayable_options(given)
            instance: JournaledInstance = library._create_with_options(feature, options, cls)
            info = library.summary.library
            header = {"fusionJournal": FORMAT_VERSION, "feature": feature,
                      "stateVersion": library.summary.feature(feature).state_version,
                      "library": f"{info.name} {info.version}",
                      "stateVersions": {entry.name: entry.state_version for entry in library.summary.features},
                      "startedBy": "fusionkit (Python)", "realTime": real_time, "options": options}
            try:
                if record is not None:
                    instance._recorder = ScenarioWriter(instance, os.fspath(record), options, real_time)
                instance._begin(where, truncate_to=0, header=header, real_time=real_time, resumed=None,
                                records=0, keeping=header)
            except BaseException:
                if instance._recorder is not None:
                    instance._recorder.close()
                Instance.close(instance)
                raise
            return instance
        header, records, good, dropped = existing.header, existing.records, existing.good_length, existing.dropped
        if header.get("feature") != feature:
            raise JournalError(f'journal {where}: it is a session of feature "{header.get("feature")}", not "{feature}"')
        info = library.summary.library
        running, writer = f"{info.name} {info.version}", header.get("library")
        if writer is not None and writer != running:
            # The inputs replayed through other code would not make the same session.
            raise JournalError(f"journal {where}: it was written by {writer}, and this library is {running}: a journal "
                               "replays only on the library version that wrote it (its inputs would run through other "
                               f"code); resume it with {writer}, or delete it to start afresh")
        current = library.summary.feature(feature).state_version
        if header.get("stateVersion", current) != current:
            # The inputs replayed on a feature whose state's shape changed would not make the same session.
            raise JournalError(f'journal {where}: it was written with state version {header["stateVersion"]} of feature '
                               f'"{feature}"; this library\'s is {current}, and a journal replays only on the version '
                               "that wrote it")
        if dropped is not None:
            warnings.warn(JournalWarning(f"journal {where}: {dropped}"), stacklevel=3)
        journaled: object = header.get("options", {})
        if not isinstance(journaled, dict):
            raise JournalError(f'journal {where}: its header\'s "options" is not an object')
        # A journal that starts with a checkpoint goes on from it; the rest replays after.
        first = records[0] if records else None
        checkpoint = first["checkpoint"] if isinstance(first, dict) and list(first) == ["checkpoint"] else None
        if checkpoint is not None:
            journaled = {key: value for key, value in journaled.items()
                         if key not in ("state", "stateVersion", "seed", "checkpoint")}
            journaled["checkpoint"] = checkpoint
        instance = library._create_with_options(feature, journaled, cls)
        try:
            instance.path = where
            instance._drive_lock = threading.RLock()
            for number, line in enumerate(records):
                if number == 0 and checkpoint is not None:
                    continue
                try:
                    instance._apply(line, replaying=True)
                except FusionError as error:
                    raise JournalError(f"journal {where}: record {number + 1}, {json.dumps(line)}, "
                                       f"cannot be replayed: {error}") from error
            instance._begin(where, truncate_to=good, header=None, real_time=bool(header.get("realTime")),
                            resumed=Resumption(len(records), dropped), records=len(records), keeping=header,
                            chain=existing.chain)
        except BaseException:
            Instance.close(instance)
            raise
        return instance

    def _begin(self, path: str, *, truncate_to: int, header: Mapping[str, Any] | None, real_time: bool,
               resumed: Resumption | None, records: int, keeping: Mapping[str, Any], chain: int | None = None) -> None:
        self.path = path
        self.resumed = resumed
        #: The header, written again when a checkpoint replaces what follows it.
        self._header = dict(keeping)
        #: Records after the header.
        self._records = records
        # Checkpoints restart effects: not with time travel (a goto may return to before a
        # checkpoint) nor while recording (a recording cannot replay the restart).
        options = keeping.get("options")
        self._can_checkpoint = ({"fk_checkpoint", "fk_restart_effects"} <= set(self.library.optional_functions)
                                and not (isinstance(options, dict) and options.get("history"))
                                and self._recorder is None)
        self._file = open(path, "ab")
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.close()
            raise JournalError(f"journal {path}: another process has it open") from None
        # Cut a torn tail (or, for a new journal, everything) off before appending.
        self._file.truncate(truncate_to)
        #: The CRC the next line's goes on from (format 2); None in a journal of format 1.
        self._chain = chain
        if header is not None:
            written = self._write(header)
            self._chain = written if chains(header) else None
        else:
            os.fsync(self._file.fileno())
        self._has_pending = "fk_pending" in self.library.optional_functions
        self._knows_next_wake = "fk_next_wake" in self.library.optional_functions
        #: Real time the clock has not been moved by yet, since it wakes nothing (see _tick).
        self._held_ns = 0
        self._start_driving(real_time, f"fusionkit-journal-{self.feature}")

    # -- what is journaled -------------------------------------------------------------

    def _change(self, kind: str, value: JSON, apply: Callable[[], object]) -> None:
        # The real time held back first, so that the change runs at the clock's true time.
        if self._held_ns:
            held, self._held_ns = self._held_ns, 0
            self._move(held)
        # Applied from the record, live as on replay: what is journaled is what runs.
        recorder = self._recorder
        if recorder is None:
            self._perform({kind: value})
        else:
            recorder.change(kind, value, lambda: self._perform({kind: value}))

    def set_request_handler(self, handler: Callable[[HostEvent], object] | None) -> None:
        if self._recorder is None:
            Instance.set_request_handler(self, handler)
        else:
            _watch_requests(self, self._recorder, handler)

    def poll_request(self) -> HostEvent | None:
        event = Instance.poll_request(self)
        if event is not None and self._recorder is not None:
            self._recorder.saw(event)
        return event

    def close(self) -> None:
        """Stops the clock and destroys the instance. The journal stays: opening it again
        resumes the session; delete the file to start afresh."""
        ReplayableInstance.close(self)
        if self._recorder is not None:
            with self._drive_lock:
                self._recorder.close()

    # -- records -----------------------------------------------------------------------

    #: Records after which the journal is replaced by a checkpoint, when the instance
    #: allows one then (tried again after each record until it does).
    checkpoint_every = 100

    def _perform(self, record: dict[str, Any]) -> None:
        with self._drive_lock:
            self._write(record)
            self._records += 1
            try:
                self._apply(record, replaying=False)
            finally:
                self._checkpoint_if_due()

    def _checkpoint_if_due(self) -> None:
        """Replaces the journal by its header and a checkpoint (fk_checkpoint) once
        `checkpoint_every` records piled up, then restarts the instance's effects as one
        made from the checkpoint does, so that both go on alike. BusyError (work under way
        that cannot restart) tries again after the next record; a checkpoint that cannot be
        written leaves the journal as it was."""
        if not self._can_checkpoint or self._records < self.checkpoint_every:
            return
        try:
            checkpoint = self.checkpoint()
        except FusionError:
            return
        try:
            # The client message ids the dropped records carried go on after it (a bridge
            # answers from them whether an input was applied, or how it was refused).
            applied_ids = [id for id, refusal in self._messages if refusal is None]
            refused = [{"id": id, **refusal} for id, refusal in self._messages if refusal is not None]
            applied = ([{"applied": applied_ids}] if applied_ids else []) + ([{"refused": refused}] if refused else [])
            # So do the poison inputs, with the versions they were applied at.
            self._replace([self._header, {"checkpoint": checkpoint}, *applied, *self._poisoned])
        except OSError:
            return
        self._records = 1 + len(applied) + len(self._poisoned)
        with contextlib.suppress(FusionError):
            self.restart_effects()

    def _replace(self, lines: list[Mapping[str, Any]]) -> None:
        """Replaces the journal atomically: a new file beside it, locked, written and
        flushed, renamed over it, and the folder flushed."""
        fresh_path = self.path + ".new"
        fresh = open(fresh_path, "wb")
        # The new file is in this package's format, whatever the old one's (a journal of
        # format 1 resumed here is chained from its first checkpoint on).
        self._header = {**self._header, "fusionJournal": FORMAT_VERSION}
        lines = [self._header, *lines[1:]]
        try:
            fcntl.flock(fresh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            data, chain = encode_lines(lines)
            fresh.write(data)
            fresh.flush()
            os.fsync(fresh.fileno())
            os.rename(fresh_path, self.path)
        except BaseException:
            fresh.close()
            with contextlib.suppress(OSError):
                os.unlink(fresh_path)
            raise
        old, self._file = self._file, fresh
        self._chain = chain
        old.close()
        folder = os.open(os.path.dirname(os.path.abspath(self.path)), os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

    def _write(self, record: Mapping[str, Any]) -> int:
        """Appends `record` and flushes it to the disk; its line's CRC."""
        if self._file.closed:
            raise JournalError(f"journal {self.path}: it is closed; nothing more can be applied")
        line, crc = line_and_crc(record, self._chain)
        if self._chain is not None:
            self._chain = crc
        self._file.write(line)
        self._file.flush()
        os.fsync(self._file.fileno())
        return crc

    #: How many client message ids a journal keeps (as the Swift journal does).
    REMEMBERED_MESSAGES = 256

    def _remember(self, messages: list[tuple[Any, dict[str, str] | None]]) -> None:
        self._messages = (self._messages + messages)[-self.REMEMBERED_MESSAGES:]

    def _apply(self, record: Mapping[str, Any], *, replaying: bool) -> None:
        """Applies a record, then lets the effects it started settle, the same live and
        on replay. On replay a refusal is passed over: it happened the first time too."""
        if not isinstance(record, Mapping) or len(record) != 1:
            raise JournalError(f"journal {self.path}: {json.dumps(record)} is not a record of one key")
        (kind, value), = record.items()

        def count(number: Any) -> int:
            # A version, id or nanoseconds: whole, from 0, in any form JSON writes it (2e9
            # too, as the Swift reader takes it); refused here, not by the library, whose
            # refusal replay would pass over.
            whole_number = whole(number)
            if whole_number is None or whole_number < 0:
                raise JournalError(f"journal {self.path}: {json.dumps(record)} is not a whole {kind} record "
                                   f"({json.dumps(number)} is not a whole number from 0)")
            return whole_number

        try:
            if kind == "send":
                Instance.send_json(self, json.dumps(value, ensure_ascii=False).encode())
            elif kind == "sendBy":  # an input and the id of the client message that carried it
                try:
                    Instance.send_json(self, json.dumps(value["input"], ensure_ascii=False).encode())
                except FusionError as error:
                    # Refused (on replay: again, as the first time): kept with the refusal.
                    self._remember([(value["id"], {"status": error.status or "FK_ERR_INTERNAL", "message": error.message})])
                    raise
                self._remember([(value["id"], None)])
            elif kind == "applied":  # message ids of inputs applied before the checkpoint above
                self._remember([(id, None) for id in value])
            elif kind == "refused":  # those the feature refused, with the refusal
                self._remember([(entry["id"], {"status": entry["status"], "message": entry["message"]}) for entry in value])
            elif kind == "poisoned":  # an input that killed a bridge, put out of the way: never applied
                # Kept for checkpoints with its version: where it stands, unless it says.
                version = value.get("version")
                kept = {**value, "version": self.version if version is None else count(version)}
                self._poisoned = [*self._poisoned, {"poisoned": kept}]
            elif kind == "goto":
                Instance.goto(self, count(value))
            elif kind == "respond":
                Instance.respond_json(self, count(value["id"]), json.dumps(value["result"], ensure_ascii=False).encode())
            elif kind == "fail":
                Instance.fail_request(self, count(value["id"]), value["message"])
            elif kind == "advance":
                # Refused here, not by the library: on replay its refusal would be passed over.
                Instance.advance_clock(self, nanoseconds=count(value))
            elif kind == "checkpoint":
                raise JournalError(f"journal {self.path}: a checkpoint only ever starts a journal")
            else:
                raise JournalError(f'journal {self.path}: a record of a kind this package does not know, "{kind}"')
        except JournalError:
            # The journal's own damage, never a refusal passed over (JournalError is a
            # FusionError: caught below, a record of an unknown kind was skipped silently).
            raise
        except FusionError as error:
            if not replaying or error.status == "FK_ERR_INVALID_HANDLE":
                raise
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            # A record whose fields are not what its kind holds ({"respond": {}}, an advance
            # of "abc"): damage, refused as the Swift reader refuses it.
            if not replaying:
                raise
            raise JournalError(f"journal {self.path}: {json.dumps(record)} is not a whole {kind} record "
                               f"({type(error).__name__}: {error})") from None
        with contextlib.suppress(FusionError):
            Instance.advance_clock(self, 0)

    # -- the clock in real time --------------------------------------------------------

    def _tick(self, elapsed_ns: int) -> bool:
        """Journals a move of the clock when it can change what the session does: when an
        effect's sleep is due (fk_next_wake). Until then the time is held back, and
        journaled as one move when due or before the next change of another kind. A move
        that wakes nothing changes nothing (effects sleep on the clock; they do not read
        it); with nothing pending no effect can tell that time moved at all."""
        if self._has_pending and self.pending()[0] == 0:
            self._held_ns = 0
            return True
        held = self._held_ns + elapsed_ns
        if self._knows_next_wake:
            wake = self.next_wake()
            if wake is None or held < wake:  # an effect waits on a later deadline, or on a host
                self._held_ns = held
                return True
        self._held_ns = 0
        return self._move(held)

    def _move(self, nanoseconds: int) -> bool:
        """Journals and applies a move of the real-time clock (and records it, when recording)."""
        try:
            self._perform({"advance": nanoseconds})
        except (FusionError, JournalError, OSError):
            return False
        if self._recorder is not None:
            self._recorder.moved(nanoseconds)
        return True
