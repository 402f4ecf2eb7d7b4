"""Time: the manual clock (fk_advance_clock, fk_pending, fk_next_wake) and time travel (fk_history,
fk_goto), the part of `Instance` that moves through versions."""
from __future__ import annotations

import json
import math
from ctypes import byref, c_char_p, c_uint64
from dataclasses import dataclass

from ._handle import _OK, InstanceHandle
from ._text import JSON, _owned, _u64
from .errors import InternalError, InvalidArgumentError


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """A version an instance keeps, and what made it (see `Instance.history`)."""
    version: int
    #: "start", "input", "effect" (an action an effect fed back), "response" (the host's
    #: answer to a request) or "goto" (a return to an earlier state).
    cause: str
    #: For an input: the input as it was sent (a str or a dict).
    input: JSON = None
    #: For a goto: the version whose state was restored.
    restored: int | None = None


@dataclass(frozen=True, slots=True)
class History:
    """The versions an instance keeps for time travel (fk_history), oldest first."""
    #: How many versions are kept at most (the "history" option).
    limit: int
    #: The current version: the last entry's.
    version: int
    entries: tuple[HistoryEntry, ...]

    @classmethod
    def from_json(cls, text: bytes) -> History:
        raw = json.loads(text)
        return cls(limit=raw["limit"], version=raw["version"],
                   entries=tuple(HistoryEntry(version=entry["version"], cause=entry["cause"], input=entry.get("input"),
                                              restored=entry.get("restored")) for entry in raw["entries"]))


class TimeTravel(InstanceHandle):
    """The part of `Instance` that moves its clock and returns to earlier versions."""

    def advance_clock(self, seconds: float = 0.0, *, nanoseconds: int | None = None) -> None:
        """Moves a manual clock forward (fk_advance_clock; create with clock="manual") and
        returns once the effects that woke have settled, run on this thread; their changes
        are reported before it returns. advance_clock(0.5) or
        advance_clock(nanoseconds=500_000_000). UnsettledError names an effect that waits
        on something other than the clock and the host (the clock has moved)."""
        self.library.require("fk_advance_clock")
        if nanoseconds is None:
            if not math.isfinite(seconds) or seconds < 0:
                raise InvalidArgumentError(f"seconds must be finite and not negative, not {seconds}",
                                           status="FK_ERR_INVALID_ARGUMENT")
            if seconds * 1_000_000_000 >= 2**64:
                raise InvalidArgumentError(f"seconds {seconds} is out of range: the clock moves by at most 2^64 - 1 nanoseconds",
                                           status="FK_ERR_INVALID_ARGUMENT")
            nanoseconds = round(seconds * 1_000_000_000)
        elif seconds:
            raise TypeError("give either seconds or nanoseconds")
        status = self._c.fk_advance_clock(self.handle, _u64(nanoseconds, "nanoseconds"))
        if status != _OK:
            raise self._fail(status, "fk_advance_clock")

    def pending(self) -> tuple[int, int]:
        """(effects, requests): effects not finished (running, or waiting on the clock or
        a host request) and host requests not answered (fk_pending)."""
        self.library.require("fk_pending")
        effects, requests = c_uint64(), c_uint64()
        status = self._c.fk_pending(self.handle, byref(effects), byref(requests))
        if status != _OK:
            raise self._fail(status, "fk_pending")
        return effects.value, requests.value

    def next_wake(self) -> int | None:
        """Nanoseconds the manual clock must move before an effect asleep on it wakes (0
        when one is due already), or None when none sleeps (fk_next_wake).
        InvalidArgumentError for an instance on the system clock."""
        self.library.require("fk_next_wake")
        nanoseconds = c_uint64()
        status = self._c.fk_next_wake(self.handle, byref(nanoseconds))
        if status != _OK:
            raise self._fail(status, "fk_next_wake")
        return None if nanoseconds.value == 2**64 - 1 else nanoseconds.value

    # -- checkpoints -----------------------------------------------------------------

    def checkpoint(self) -> dict[str, JSON]:
        """The instance written down (fk_checkpoint), for `create(..., checkpoint=…)` to go
        on from: state, versions, the manual clock's time, the random source's place.
        BusyError while a host request is open or an effect runs that the feature does
        not restart; InvalidArgumentError on the system clock."""
        self.library.require("fk_checkpoint")
        text = c_char_p()
        status = self._c.fk_checkpoint(self.handle, byref(text), None)
        if status != _OK:
            raise self._fail(status, "fk_checkpoint")
        value = json.loads(_owned(self._c, text))
        if not isinstance(value, dict):
            raise InternalError(f"fk_checkpoint returned what is not an object: {value!r}", status="FK_ERR_INTERNAL")
        return value

    def restart_effects(self) -> None:
        """Stops every effect and starts again those the feature restarts for the current
        state (fk_restart_effects): what a checkpoint does to the instance it was taken of."""
        self.library.require("fk_restart_effects")
        status = self._c.fk_restart_effects(self.handle)
        if status != _OK:
            raise self._fail(status, "fk_restart_effects")

    # -- time travel -----------------------------------------------------------------

    def history(self) -> History:
        """The versions this instance keeps, each with what made it (fk_history); create
        it with history=N to keep N. InvalidArgumentError when it keeps none."""
        self.library.require("fk_history")
        text = c_char_p()
        status = self._c.fk_history(self.handle, byref(text), None)
        if status != _OK:
            raise self._fail(status, "fk_history")
        return History.from_json(_owned(self._c, text))

    def goto(self, version: int) -> int:
        """Returns to the state of a kept version (fk_goto), as a new version, which it
        returns: the versions after `version` are forgotten and the next input branches
        from there; running effects and open host requests are cancelled. Going to the
        current version changes nothing. InvalidArgumentError (naming the versions kept)
        for a version not kept."""
        self.library.require("fk_goto")
        reached = c_uint64()
        status = self._c.fk_goto(self.handle, _u64(version, "version"), byref(reached))
        if status != _OK:
            raise self._fail(status, "fk_goto")
        return reached.value

    def back(self, steps: int = 1) -> int:
        """Returns to the state `steps` versions back in `history()` (goto of that entry's
        version); returns the version reached."""
        entries = self.history().entries
        if not isinstance(steps, int) or steps < 1:
            raise InvalidArgumentError(f"steps must be a whole number above 0, not {steps!r}",
                                       status="FK_ERR_INVALID_ARGUMENT")
        if steps >= len(entries):
            raise InvalidArgumentError(f"only {len(entries) - 1} versions back are kept, not {steps}",
                                       status="FK_ERR_INVALID_ARGUMENT")
        return self.goto(entries[-1 - steps].version)
