"""What every part of an `Instance` stands on: its library, its native handle, its
lock, and how a refused call becomes an exception. `Instance` (in _instance.py) is this
plus the parts: subscriptions, time travel, host requests."""
from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ._callback_errors import CallbackErrors
from ._text import JSON
from .errors import FusionError, InvalidHandleError, UnknownSubscriptionError
from .manifest import ManifestSummary

_OK = 0
_INVALID_HANDLE = InvalidHandleError.CODE
_UNKNOWN_SUBSCRIPTION = UnknownSubscriptionError.CODE


class LibraryCalls(Protocol):
    """What an instance's parts call on their `Library` (_library.py imports this
    module, so naming that class here would make an import circle; `Library` meets
    this protocol, which mypy checks where it makes instances)."""

    c: Any
    _hot: dict[str, Any]

    @property
    def summary(self) -> ManifestSummary: ...
    @property
    def optional_functions(self) -> tuple[str, ...]: ...
    def error(self, status: int, function: str | None = None) -> FusionError: ...
    def require(self, function: str) -> None: ...
    def _create_with_options(self, feature: str, options: Mapping[str, JSON], cls: type[Any]) -> Any: ...


class InstanceHandle:
    """The fields `Instance.__init__` sets, declared here for the parts that use them."""

    library: LibraryCalls
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
        def snapshot(self) -> tuple[Any, int]: ...

    def _fail(self, status: int, function: str) -> FusionError:
        return self.library.error(status, function)
