"""What happens to an exception an instance's callback raises: kept for
`Instance.callback_errors`, logged, never handed to the library."""
from __future__ import annotations

import _thread
import collections
import threading

from . import _lifetime


class CallbackErrors(collections.deque[BaseException]):
    """The newest exceptions raised by an instance's callbacks (at most `maxlen`), and
    `total`, how many there have been."""

    def __init__(self, maxlen: int) -> None:
        super().__init__(maxlen=maxlen)
        self.total = 0
        self._lock = threading.Lock()

    def record(self, error: BaseException) -> None:
        with self._lock:  # a change callback and a request handler may fail at once
            self.append(error)
            self.total += 1


def _report_callback_error(errors: CallbackErrors, callback: object, error: BaseException) -> None:
    """An exception escaping a callback must not reach the library (ctypes would print
    it and carry on, but a C caller has no way to hear of it): keep it for
    `Instance.callback_errors`, log it, and let Ctrl-C still interrupt the main thread."""
    errors.record(error)
    _lifetime.log.error("exception in fusionkit callback %r", callback, exc_info=error)
    if isinstance(error, KeyboardInterrupt):
        _thread.interrupt_main()
