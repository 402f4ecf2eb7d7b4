"""Exceptions: one class per status code of include/fusionkit.h, under `FusionError`.

A refused call raises the class of its status, carrying the number (`code`), its
name from fk_status_name() (`status`) and the library's own words from
fk_last_error_message() (`message`), read on the thread that made the call, right
after it. Some classes also derive from the built-in exception a Python programmer
would reach for (`ValueError` for bad input, `LookupError` for unknown names), so
`except ValueError` works too.
"""
from __future__ import annotations

from typing import ClassVar

__all__ = [
    "FusionError",
    "LibraryLoadError",
    "AbiVersionError",
    "MissingFunctionError",
    "NullArgumentError",
    "InvalidHandleError",
    "InvalidUTF8Error",
    "MalformedJSONError",
    "UnknownFeatureError",
    "UnknownInputError",
    "InvalidInputError",
    "InvalidStateError",
    "InvalidArgumentError",
    "UnknownSubscriptionError",
    "InternalError",
    "UnknownRequestError",
    "InvalidResponseError",
    "JournalError",
    "PatchError",
    "NotInManifestError",
    "error_for_status",
]


class FusionError(Exception):
    """Any error of this package: every exception it raises is one, but for TypeError
    for an argument of the wrong Python type (a programming error, as in Python itself)
    and OSError from reading or writing a file you named.

    code     the fk_status number, or None for errors that are not a status (loading).
    status   its name, e.g. "FK_ERR_UNKNOWN_INPUT", or None.
    message  what went wrong, in the library's words.
    function the fk_ function that refused, when there is one.
    """

    #: The status code a class stands for; None for the base and the loading errors.
    CODE: ClassVar[int | None] = None

    def __init__(self, message: str, *, code: int | None = None, status: str | None = None,
                 function: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code if code is not None else self.CODE
        self.status = status
        self.function = function

    def __str__(self) -> str:
        if self.status is None:
            return self.message
        return f"{self.status}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, message={self.message!r})"


class LibraryLoadError(FusionError):
    """The library cannot be used: not found, not loadable, or not a FusionKit library."""


class AbiVersionError(LibraryLoadError):
    """The library speaks another ABI version than this package (`found`, `expected`)."""

    def __init__(self, message: str, *, found: int, expected: int) -> None:
        super().__init__(message)
        self.found = found
        self.expected = expected


class MissingFunctionError(FusionError):
    """The loaded library lacks an entry point added to the ABI after its first version."""


class NullArgumentError(FusionError, ValueError):
    """FK_ERR_NULL_ARGUMENT: a required pointer was NULL (reachable only through `Library.c`)."""
    CODE = 1


class InvalidHandleError(FusionError):
    """FK_ERR_INVALID_HANDLE: not a live instance (closed, destroyed, or made up)."""
    CODE = 2


class InvalidUTF8Error(FusionError, ValueError):
    """FK_ERR_INVALID_UTF8: text that is not valid UTF-8."""
    CODE = 3


class MalformedJSONError(FusionError, ValueError):
    """FK_ERR_MALFORMED_JSON: text that is not JSON, or is empty."""
    CODE = 4


class UnknownFeatureError(FusionError, LookupError):
    """FK_ERR_UNKNOWN_FEATURE: no feature of that name (the message lists them)."""
    CODE = 5


class UnknownInputError(FusionError, ValueError):
    """FK_ERR_UNKNOWN_INPUT: an input case the feature does not have."""
    CODE = 6


class InvalidInputError(FusionError, ValueError):
    """FK_ERR_INVALID_INPUT: a known input with a missing, unknown or mistyped field."""
    CODE = 7


class InvalidStateError(FusionError, ValueError):
    """FK_ERR_INVALID_STATE: a given state that does not fit the feature's State."""
    CODE = 8


class InvalidArgumentError(FusionError, ValueError):
    """FK_ERR_INVALID_ARGUMENT: any other argument out of its range."""
    CODE = 9


class UnknownSubscriptionError(FusionError, LookupError):
    """FK_ERR_UNKNOWN_SUBSCRIPTION: no such subscription on the instance."""
    CODE = 10


class InternalError(FusionError, RuntimeError):
    """FK_ERR_INTERNAL: the library failed on its own."""
    CODE = 11


class UnknownRequestError(FusionError, LookupError):
    """FK_ERR_UNKNOWN_REQUEST: no open host request with that id."""
    CODE = 12


class InvalidResponseError(FusionError, ValueError):
    """FK_ERR_INVALID_RESPONSE: a response that does not fit the request; it stays open."""
    CODE = 13


class LimitExceededError(FusionError):
    """FK_ERR_LIMIT_EXCEEDED: the call would go past a limit of `Library.limit`; the
    message names it."""
    CODE = 14


class UnsettledError(FusionError):
    """FK_ERR_UNSETTLED: an effect of an instance on a manual clock waits on something
    other than that clock and the host's answers, so it cannot settle; the message names
    the feature and the effects."""
    CODE = 15


class BusyError(FusionError):
    """FK_ERR_BUSY: the instance has work under way that the call cannot wait for or
    start again (a host request open, an effect its feature does not restart); the
    message names it. Try again later."""
    CODE = 16


class PluginTrappedError(FusionError):
    """FK_ERR_PLUGIN_TRAPPED: a sandboxed plugin (a WebAssembly module) stopped on a trap
    during the call. Nothing of it was applied; the instance is failed from then on, and
    its last good state is still readable."""
    CODE = 17


class PluginLimitError(FusionError):
    """FK_ERR_PLUGIN_LIMIT: a sandboxed plugin's call ran past its time budget or asked for
    memory past its cap (the message says which). The instance is failed, as on a trap."""
    CODE = 18


class InstanceFailedError(FusionError):
    """FK_ERR_INSTANCE_FAILED: the instance failed earlier (a trap or a limit in a sandboxed
    plugin) and takes no more inputs; its last good state is still readable."""
    CODE = 19


_BY_CODE: dict[int, type[FusionError]] = {
    cls.CODE: cls
    for cls in (NullArgumentError, InvalidHandleError, InvalidUTF8Error, MalformedJSONError,
                UnknownFeatureError, UnknownInputError, InvalidInputError, InvalidStateError,
                InvalidArgumentError, UnknownSubscriptionError, InternalError, UnknownRequestError,
                InvalidResponseError, LimitExceededError, UnsettledError, BusyError,
                PluginTrappedError, PluginLimitError, InstanceFailedError)
    if cls.CODE is not None
}


def error_for_status(code: int, status: str, message: str, function: str | None = None) -> FusionError:
    """The exception for a status code. Codes are only ever added to the ABI, so a code
    newer than this package still raises, as a plain FusionError carrying the number."""
    cls = _BY_CODE.get(code, FusionError)
    return cls(message, code=code, status=status, function=function)


class JournalError(FusionError):
    """A journal that cannot be read (damaged, of another feature, in use) or written
    (fusionkit.journal); `status` is None."""


class PatchError(FusionError, ValueError):
    """A JSON Patch that cannot be applied (fusionkit.patch): a missing path, an index
    out of range, a failed test; `status` is None."""


class NotInManifestError(FusionError, KeyError):
    """A feature or input case the manifest does not list (`Manifest.feature`,
    `FeatureSpec.input`); the message lists those it does. A KeyError as before."""
