"""What a recorded and a journaled instance share (recording.py, journal.py): every
change goes through the subclass's `send_json`, `goto`, answers and clock moves, one at
a time under one reentrant lock, and a session on the system clock runs on a manual
clock that a thread moves in real time."""
from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING

from .library import Instance, _input_json

if TYPE_CHECKING:
    from .library import JSON

#: How often the clock of a real-time session moves, in seconds.
TICK = 0.010


class DrivenInstance(Instance):
    """An Instance whose subclass writes each change down (`_tick` moves the clock)."""

    _drive_lock: threading.RLock
    _file: IO[bytes]

    def _start_driving(self, real_time: bool, name: str) -> None:
        """Starts the real-time clock thread when the session asked for the system clock."""
        if not hasattr(self, "_drive_lock"):
            self._drive_lock = threading.RLock()
        self._ticking = real_time
        self._ticker: threading.Thread | None = None
        if real_time:
            self._ticker = threading.Thread(target=self._tick_loop, name=name, daemon=True)
            self._ticker.start()

    def _tick(self, elapsed_ns: int) -> bool:
        """Moves the clock by `elapsed_ns` (called with the lock held); False stops the thread."""
        raise NotImplementedError

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
