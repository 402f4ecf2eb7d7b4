"""What every part of an `Instance` stands on: its library, its native handle, its
lock, and how a refused call becomes an exception. `Instance` (in _instance.py) is this
plus the parts: subscriptions, time travel, host requests."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import FusionError, InvalidHandleError, UnknownSubscriptionError

if TYPE_CHECKING:
    from ._library import Library
    from ._subscriptions import CallbackErrors
    from ._text import JSON

_OK = 0
_INVALID_HANDLE = InvalidHandleError.CODE
_UNKNOWN_SUBSCRIPTION = UnknownSubscriptionError.CODE


class InstanceHandle:
    """The fields `Instance.__init__` sets, declared here for the parts that use them."""

    library: Library
    feature: str
    #: The fk_instance number: never 0, never reused in a process.
    handle: int
    _c: Any
    _lock: threading.Lock
    _closed: bool
    _change_trampolines: dict[int, Any]
    _request_trampoline: Any
    _close_listeners: list[Callable[[], None]]
    callback_errors: CallbackErrors

    if TYPE_CHECKING:
        def snapshot(self) -> tuple[dict[str, JSON], int]: ...

    def _fail(self, status: int, function: str) -> FusionError:
        return self.library.error(status, function)
