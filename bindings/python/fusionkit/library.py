"""The Python front end over the C ABI: `Library` (a loaded library) and `Instance` (a
running feature), with subscriptions, the manual clock and host requests.

Threads: every method may be called from any thread, as every fk_ function may. Change
callbacks and request handlers run on whichever thread the library calls them from:
the thread that sent the input, or one of the library's own threads running an effect
(a timer, a host request). Keep them short, and hand work to your own thread or event
loop (`Instance.changes()` does that for asyncio).
"""
from __future__ import annotations

import _thread
import asyncio
import collections
import contextlib
import ctypes
import json
import math
import os
import threading
from collections.abc import AsyncGenerator, Callable, Mapping
from ctypes import byref, c_char_p, c_size_t, c_uint64, string_at
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from . import _lifetime
from ._native import (CHANGE_FN, NUL_TERMINATED, PROTOTYPES, REQUEST_FN, Call, find_library, holding_the_gil,
                      open_library)
from .errors import (FusionError, InvalidArgumentError, InvalidHandleError, InvalidUTF8Error, MissingFunctionError,
                     UnknownSubscriptionError, error_for_status)
from .manifest import FeatureSpec, Manifest, ManifestSummary, feature_from_json

__all__ = ["load", "Library", "Instance", "Subscription", "HostEvent", "History", "HistoryEntry", "JSON"]

#: Any value JSON can carry, as the json module reads it.
JSON = Any

#: The limits of fk_limit() by name, as `Library.limit` takes them (the FK_LIMIT_
#: constants of include/fusionkit.h, which documents each default and maximum).
LIMITS: dict[str, int] = {"length": 0, "json_depth": 1, "subscribers": 2, "host_requests": 3, "instances": 4}

_U64_LIMIT = 1 << 64
_OK = 0
_INVALID_HANDLE = InvalidHandleError.CODE
_UNKNOWN_SUBSCRIPTION = UnknownSubscriptionError.CODE

# Compact, UTF-8 (not \u-escaped), and strict: NaN and infinity are not JSON.
_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
# The json module's C scanner, called directly: json.loads spends more time finding the
# encoding and skipping whitespace around a small state than scanning it (see bench.py).
# (getattr: typeshed does not declare JSONDecoder.scan_once, the C scanner json.loads ends in.)
_scan_once: Callable[[str, int], tuple[Any, int]] = getattr(json.JSONDecoder(), "scan_once")
# Inputs sent by case name, encoded once: the hot path of send("increase").
_encoded_names: dict[str, bytes] = {}
_ENCODED_NAMES_LIMIT = 4096
# FK_NUL_TERMINATED as a ready ctypes argument: a bytes object always ends in a NUL, so
# text without a NUL inside can be passed without converting its length on every call.
_NUL_TERMINATED_ARG = c_size_t(NUL_TERMINATED)
# The first size of an instance's state buffer; it grows to fit the largest state read.
_STATE_BUFFER_START = 256


class _StateBuffer:
    """An fk_call (whose start is an fk_buffer) with its memory, made once per instance
    and reused: what fk_send_and_read_call, fk_send_and_read and fk_state_into write the
    state into. `length` and `version` are views of its fields as ctypes integers: their
    `.value` costs less than reading a field of the struct (or an item of a memoryview)."""

    __slots__ = ("memory", "size", "struct", "ref", "length", "version")

    def __init__(self, size: int, handle: int) -> None:
        self.struct = Call(instance=handle, input_len=NUL_TERMINATED)
        self.ref = byref(self.struct)
        self.length = c_size_t.from_buffer(self.struct, Call.length.offset)
        self.version = c_uint64.from_buffer(self.struct, Call.version.offset)
        self.resize(size)

    def resize(self, size: int) -> None:
        # Any: slicing a c_char array gives bytes (typeshed says a list), without the
        # full-size copy that `.raw` would make first.
        self.memory: Any = ctypes.create_string_buffer(size)
        self.size = size
        self.struct.data = ctypes.addressof(self.memory)
        self.struct.capacity = size


def _parse(text: bytes) -> JSON:
    """Reads JSON the library wrote: compact, one value, nothing around it."""
    string = text.decode("utf-8")
    try:
        value, end = _scan_once(string, 0)
    except StopIteration:
        end = -1
    if end != len(string):
        return json.loads(string)  # not the library's usual shape: let json decide, and explain
    return value


def _owned(c: Any, text: c_char_p) -> bytes:
    """Copies owned text out and frees it with the library's fk_free, exactly once."""
    try:
        return text.value or b""
    finally:
        c.fk_free(text)


def _utf8(value: str | bytes, what: str) -> bytes:
    """Text for the library: bytes as they are (so that a caller can send any bytes,
    valid or not), str as UTF-8. A str holding lone surrogates has no UTF-8 form; that is
    refused here with the status the library gives for invalid UTF-8."""
    if isinstance(value, bytes):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{what} must be str or bytes, not {type(value).__name__}")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidUTF8Error(f"{what} is not valid UTF-8: {error}", status="FK_ERR_INVALID_UTF8") from None


def _to_json(value: JSON, what: str) -> bytes:
    return _utf8(_encoder.encode(value), what)


def _u64(value: int, what: str) -> int:
    """ctypes silently wraps integers into uint64_t; refuse what does not fit instead."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not 0 <= value < _U64_LIMIT:
        raise InvalidArgumentError(f"{what} {value} is out of range: it must fit an unsigned 64-bit integer",
                                   status="FK_ERR_INVALID_ARGUMENT")
    return value


def _input_json(input: str | Mapping[str, JSON], fields: Mapping[str, JSON]) -> bytes:
    """An input as `Instance.send` takes it, as JSON text."""
    if isinstance(input, str):
        if fields:
            return _to_json({input: dict(fields)}, "the input")
        cached = _encoded_names.get(input)
        if cached is not None:
            return cached
        if input.isidentifier():
            # Without the json module: an identifier needs no escaping.
            data = b'"' + input.encode("utf-8") + b'"'
            if len(_encoded_names) < _ENCODED_NAMES_LIMIT:
                _encoded_names[input] = data
            return data
        return _to_json(input, "the input")
    if isinstance(input, Mapping):
        if fields:
            raise TypeError("give the fields either inside the mapping or as keywords, not both")
        return _to_json(input if isinstance(input, dict) else dict(input), "the input")
    raise TypeError(f"an input is a case name or a mapping, not {type(input).__name__}")


def load(path: str | os.PathLike[str] | None = None) -> Library:
    """Loads a FusionKit library and checks its ABI version before any other call.

    With no path: $FUSIONKIT_LIBRARY if set; else the library bundled in this package
    (wheels built by scripts/build-wheel carry one); else the FusionKit checkout's
    .build/release, then .build/debug (the checkout holding this package, or the current
    directory or one of its parents). Raises LibraryLoadError (AbiVersionError for
    another ABI version) saying which file and why.
    """
    return Library(find_library() if path is None else path)


@dataclass(frozen=True, slots=True)
class HostEvent:
    """A host request or its cancellation, as fk_request_fn and fk_poll_request give it:
    {"event":"request","id":7,"kind":"fetchPet","payload":{...}} or {"event":"cancel","id":7}."""
    event: str
    id: int
    kind: str | None = None
    payload: JSON = None
    raw: dict[str, JSON] = field(default_factory=dict, repr=False, compare=False)

    @property
    def is_request(self) -> bool:
        return self.event == "request"

    @property
    def is_cancel(self) -> bool:
        return self.event == "cancel"

    @classmethod
    def from_json(cls, text: bytes | str) -> HostEvent:
        data = json.loads(text)
        return cls(event=str(data["event"]), id=int(data["id"]), kind=data.get("kind"),
                   payload=data.get("payload"), raw=data)


class Library:
    """A loaded FusionKit library. Create instances of its features with `create()`.

    `c` is the ctypes handle with every prototype of include/fusionkit.h declared: the
    low level, for what the Python API deliberately cannot express (NULL pointers,
    made-up handles). Pair it with `check(status)` to get the same exceptions.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).absolute()
        self.c, self._missing = open_library(self.path)
        # The round-trip hot path's function objects (see holding_the_gil), made once.
        self._hot: dict[str, Any] = {name: holding_the_gil(self.c, name)
                                     for name in ("fk_send_and_read", "fk_send_and_read_call", "fk_state_into")
                                     if name not in self._missing}
        #: The ABI version the library speaks (equal to fusionkit.ABI_VERSION once loaded).
        self.abi_version: int = int(self.c.fk_abi_version())
        #: The library's own version, e.g. "0.1.0" (fk_library_version).
        self.version: str = (self.c.fk_library_version() or b"").decode("utf-8", "replace")
        # Features read one by one (feature()), by name.
        self._features: dict[str, FeatureSpec] = {}

    def __repr__(self) -> str:
        return f"<fusionkit.Library {self.path} v{self.version} ABI {self.abi_version}>"

    # -- errors ---------------------------------------------------------------------

    def error(self, status: int, function: str | None = None) -> FusionError:
        """The exception for a status just returned on this thread. Reads the message
        first, before any other library call can replace it."""
        message = self.c.fk_last_error_message()
        name = self.c.fk_status_name(status)
        return error_for_status(status, (name or b"").decode("utf-8", "replace"),
                                (message or b"").decode("utf-8", "replace"), function)

    def check(self, status: int, function: str | None = None) -> None:
        """Raises the exception for `status` unless it is FK_OK. Call it right after the
        call that returned the status, on the same thread."""
        if status != _OK:
            raise self.error(status, function)

    def status_name(self, status: int) -> str:
        """fk_status_name: "FK_ERR_UNKNOWN_INPUT", or "FK_ERR_UNKNOWN_STATUS"."""
        return (self.c.fk_status_name(status) or b"").decode("utf-8", "replace")

    def last_error_message(self) -> str:
        """fk_last_error_message on this thread: "" after a successful call."""
        return (self.c.fk_last_error_message() or b"").decode("utf-8", "replace")

    def require(self, function: str) -> None:
        """Raises MissingFunctionError when the library lacks an optional entry point."""
        if function in self._missing:
            raise MissingFunctionError(f"{self.path.name} lacks {function}: it was built before that function was added")

    def limit(self, name: str | int, new_value: int | None = None) -> int:
        """fk_limit: the value of a limit (a key of `LIMITS`, or its FK_LIMIT_ number)
        before the call, and, with `new_value`, sets it (clamped to the limit's maximum).
        Limits hold for the whole library; going past one raises LimitExceededError."""
        self.require("fk_limit")
        number = LIMITS.get(name) if isinstance(name, str) else name
        if number is None:
            raise ValueError(f"unknown limit {name!r}; the limits are: {', '.join(LIMITS)}")
        if new_value is not None and new_value < 0:
            raise ValueError(f"a limit is 0 or more, not {new_value}")
        old = int(self.c.fk_limit(number, -1 if new_value is None else new_value))
        if old < 0:
            raise ValueError(f"{self.path.name} has no limit number {number}")
        return old

    # -- the manifest ----------------------------------------------------------------

    def manifest_json(self) -> str:
        """fk_manifest, as the text the library wrote."""
        return self._owned_text("fk_manifest").decode("utf-8")

    def _owned_text(self, function: str, *arguments: Any) -> bytes:
        """Calls a function that hands back owned text (char **, size_t *) after `arguments`."""
        text = c_char_p()
        status = getattr(self.c, function)(*arguments, byref(text), None)
        if status != _OK:
            raise self.error(status, function)
        return _owned(self.c, text)

    @cached_property
    def manifest(self) -> Manifest:
        """The library's features, their inputs and the shape of their state: the whole
        manifest, read on first use (it makes the library describe every feature; use
        `summary` or `feature(name)` for less)."""
        return Manifest.from_json(self.manifest_json())

    @cached_property
    def summary(self) -> ManifestSummary:
        """The library and each feature's name, summary and state version
        (fk_manifest_summary: no feature is described), read on first use; from the whole
        manifest for a library built before that function."""
        if "fk_manifest_summary" in self._missing:
            return ManifestSummary.from_json(self.manifest_json())
        return ManifestSummary.from_json(self._owned_text("fk_manifest_summary"))

    def feature(self, name: str) -> FeatureSpec:
        """The feature called `name`, with its inputs and schemas, read once on first use
        (fk_feature_manifest describes only that feature); KeyError lists the features."""
        known = self._features.get(name)
        if known is not None:
            return known
        self.summary.feature(name)  # KeyError naming the features
        if "fk_feature_manifest" in self._missing or "manifest" in self.__dict__:
            spec = self.manifest.feature(name)
        else:
            data = name.encode("utf-8")
            spec = feature_from_json(self._owned_text("fk_feature_manifest", data, len(data)))
        self._features[name] = spec  # a race makes the same spec twice: harmless
        return spec

    @property
    def features(self) -> tuple[str, ...]:
        return self.summary.feature_names

    @property
    def optional_functions(self) -> tuple[str, ...]:
        """The optional functions of include/fusionkit.h this library exports (looked up
        in the library itself, so also right for one built before manifests listed them);
        calling a missing one raises MissingFunctionError naming it."""
        return tuple(name for name, (_, _, required) in PROTOTYPES.items() if not required and name not in self._missing)

    # -- instances -------------------------------------------------------------------

    def create(self, feature: str | bytes, *, state: Mapping[str, JSON] | str | bytes | None = None,
               seed: int | None = None, clock: Literal["system", "manual"] | None = None,
               requests: Literal["builtin", "host"] | None = None, settings: Mapping[str, JSON] | None = None,
               history: int | None = None, state_version: int | None = None,
               options: Mapping[str, JSON] | str | bytes | None = None,
               record: str | os.PathLike[str] | None = None,
               journal: str | os.PathLike[str] | None = None) -> Instance:
        """Creates an instance of `feature` (fk_create, or fk_create_with_options when
        any option is given).

        state     the state to start from: a dict, or its JSON text.
        seed      seeds the instance's random source, so that what it draws repeats.
        clock     "manual": time stands still until advance_clock().
        requests  "host": the feature's requests go to set_request_handler()/poll_request().
        settings  feature settings, e.g. {"liveScan": False} for "wifi".
        history   how many versions to keep for time travel (`history()`, `goto()`, `back()`).
        state_version  the feature's state version `state` was saved at (the manifest's
                  `state_version` then); an older state is migrated by the feature or
                  refused (InvalidStateError naming both versions). `restore()` passes
                  it for a saved document.
        options   the whole options object instead (a dict or JSON text), for keys
                  this package does not know yet.
        record    a file to record the session to, as a scenario that replays it
                  (`fusion replay FILE`, `fusionkit.scenario.run(FILE)`): returns a
                  `fusionkit.recording.RecordingInstance`, see there.
        journal   a file that makes the session crash-safe: each change is on disk
                  before it is applied, and if the file holds a session (cut short by
                  a crash), it is resumed, with the same state and version, and the
                  other arguments are not used. Returns a
                  `fusionkit.journal.JournaledInstance`, see there.
        """
        if record is not None and journal is not None:
            raise TypeError("record= and journal= cannot be combined yet; record a session, or journal it")
        if record is not None or journal is not None:
            from .recording import RecordingInstance
            parsed: Mapping[str, JSON] | None = (
                json.loads(_utf8(options, "the options")) if isinstance(options, (str, bytes)) else options)
            given: dict[str, JSON] = dict(parsed) if parsed is not None else {
                key: value for key, value in (("state", state), ("seed", seed), ("clock", clock),
                                              ("requests", requests), ("settings", settings), ("history", history),
                                              ("stateVersion", state_version))
                if value is not None}
            if isinstance(given.get("state"), (str, bytes)):
                given["state"] = json.loads(given["state"])
            name_text = feature if isinstance(feature, str) else feature.decode("utf-8")
            if journal is not None:
                from .journal import JournaledInstance
                return JournaledInstance.open(self, name_text, given, journal)
            assert record is not None
            return RecordingInstance.start(self, name_text, given, record)
        name = _utf8(feature, "the feature name")
        out = c_uint64()
        chosen: dict[str, JSON] = {key: value for key, value in
                                   (("seed", seed), ("clock", clock), ("requests", requests), ("settings", settings),
                                    ("history", history), ("stateVersion", state_version))
                                   if value is not None}
        if options is None and not chosen:
            state_json = None if state is None else (
                _utf8(state, "the state") if isinstance(state, (str, bytes)) else _to_json(state, "the state"))
            status = self.c.fk_create(name, len(name), state_json, 0 if state_json is None else len(state_json),
                                      byref(out))
            function = "fk_create"
        else:
            self.require("fk_create_with_options")
            if options is not None:
                if chosen or state is not None:
                    raise TypeError("give the options either as `options` or as keywords, not both")
                options_json = (_utf8(options, "the options") if isinstance(options, (str, bytes))
                                else _to_json(options, "the options"))
            else:
                options_json = _to_json(chosen, "the options")
                if isinstance(state, (str, bytes)):
                    # State given as JSON text goes in as written, so the library reports its flaws.
                    rest = b"}" if options_json == b"{}" else b"," + options_json[1:]
                    options_json = b'{"state":' + _utf8(state, "the state") + rest
                elif state is not None:
                    options_json = _to_json({"state": state, **chosen}, "the options")
            status = self.c.fk_create_with_options(name, len(name), options_json, len(options_json), byref(out))
            function = "fk_create_with_options"
        if status != _OK:
            raise self.error(status, function)
        return Instance(self, name.decode("utf-8"), out.value)

    def restore(self, saved: Mapping[str, JSON] | str | os.PathLike[str], **options: Any) -> Instance:
        """Creates an instance from a saved state: the document `Instance.save()` returns
        or writes (the same as `fusion`'s `--state FILE`), or the path of such a file.
        The feature is the one it names; a state saved by an older version of the
        feature is migrated or refused (InvalidStateError naming both versions).
        `options` are those of `create()`, e.g. `history=100`."""
        document: Any = saved
        where = "the saved state"
        if isinstance(saved, (str, os.PathLike)):
            where = f"saved state {os.fspath(saved)}"
            with open(saved, encoding="utf-8") as file:
                document = json.load(file)
        if not isinstance(document, Mapping) or not isinstance(document.get("state"), Mapping):
            raise ValueError(f'{where} is not a saved state: expected {{"feature": ..., "stateVersion": ..., "state": {{...}}}}')
        feature = document.get("feature")
        if not isinstance(feature, str):
            raise ValueError(f'{where} names no "feature"')
        version = document.get("stateVersion", 1)
        if type(version) is not int or version < 1:
            raise ValueError(f'{where} has a "stateVersion" that is not a whole number from 1: {version!r}')
        if version != self.summary.feature(feature).state_version:
            options["state_version"] = version
        return self.create(feature, state=document["state"], **options)

    def _create_with_options(self, feature: str, options: Mapping[str, JSON], cls: type[Instance]) -> Any:
        """fk_create_with_options, making an instance of `cls` (a subclass of Instance)."""
        self.require("fk_create_with_options")
        name = _utf8(feature, "the feature name")
        options_json = _to_json(options, "the options")
        out = c_uint64()
        status = self.c.fk_create_with_options(name, len(name), options_json, len(options_json), byref(out))
        if status != _OK:
            raise self.error(status, "fk_create_with_options")
        return cls(self, feature, out.value)


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


class Subscription:
    """An active fk_subscribe. `unsubscribe()` (or leaving a `with` block) ends it; when
    that returns, the callback is not running (unless you unsubscribe from inside it)
    and will not be called again. Ending it twice, or after the instance closed, does
    nothing."""

    __slots__ = ("_instance", "id")

    def __init__(self, instance: Instance, subscription_id: int) -> None:
        self._instance = instance
        self.id = subscription_id

    @property
    def active(self) -> bool:
        return self._instance._has_subscription(self.id)

    def unsubscribe(self) -> None:
        self._instance._unsubscribe(self.id)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.unsubscribe()

    def __repr__(self) -> str:
        return f"<fusionkit.Subscription {self.id} of {self._instance!r}{'' if self.active else ' (ended)'}>"


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


class Instance:
    """A running instance of a feature (fk_create … fk_destroy).

    `close()` destroys it (also on leaving a `with` block, and when the object is
    garbage collected); the native instance is freed exactly once. After close every
    call raises InvalidHandleError; closing again does nothing.
    """

    #: How many callback exceptions `callback_errors` keeps (the newest).
    MAX_KEPT_ERRORS = 100

    def __init__(self, library: Library, feature: str, handle: int) -> None:
        self.library = library
        self.feature = feature
        #: The fk_instance number: never 0, never reused in a process.
        self.handle = handle
        self._c = library.c
        self._handle_arg = c_uint64(handle)
        # The one-crossing paths, when the library has them (added to the ABI after its
        # first release; see holding_the_gil).
        self._send_and_read = library._hot.get("fk_send_and_read")
        self._send_and_read_call = library._hot.get("fk_send_and_read_call")
        self._state_into = library._hot.get("fk_state_into")
        # Free state buffers. A call takes one with list.pop and gives it back with
        # append, both atomic under the GIL: another thread may run between the library
        # writing into a buffer and this thread reading it, so each needs its own.
        self._buffer_size = _STATE_BUFFER_START  # the largest state seen, rounded up: new buffers' size
        self._buffers: list[_StateBuffer] = [_StateBuffer(_STATE_BUFFER_START, handle)]
        self._lock = threading.Lock()
        self._closed = False
        # Trampolines the library may call: subscription id -> fk_change_fn, and the request handler.
        self._change_trampolines: dict[int, Any] = {}
        self._request_trampoline: Any = None
        self._close_listeners: list[Callable[[], None]] = []
        #: Exceptions raised by this instance's callbacks, newest last (they are also logged
        #: on the "fusionkit" logger); `callback_error_count` counts every one.
        self.callback_errors = CallbackErrors(self.MAX_KEPT_ERRORS)
        _lifetime.track(self)

    def __repr__(self) -> str:
        return f"<fusionkit.Instance {self.feature} #{self.handle}{' (closed)' if self._closed else ''}>"

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def callback_error_count(self) -> int:
        """How many exceptions this instance's callbacks raised, also those no longer kept."""
        return self.callback_errors.total

    # -- lifetime --------------------------------------------------------------------

    def close(self) -> None:
        """Destroys the instance (fk_destroy): cancels its effects and its open host
        requests (the request handler hears the cancellations before this returns) and
        ends its subscriptions. Safe to call from a callback, and more than once."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            # Only fails if the handle was destroyed behind our back through `Library.c`;
            # then there is nothing left to free.
            self._c.fk_destroy(self.handle)
        finally:
            with self._lock:
                trampolines = [*self._change_trampolines.values(), self._request_trampoline]
                self._change_trampolines.clear()
                self._request_trampoline = None
                listeners, self._close_listeners = self._close_listeners, []
            _lifetime.release(trampolines)
            _lifetime.untrack(self)
            for listener in listeners:
                listener()

    def __enter__(self) -> Instance:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # Garbage collected without close(): the reaper thread destroys it (see _lifetime
        # for why not here). No lock: nobody else can hold a collected object's lock.
        if getattr(self, "_closed", True):
            return
        self._closed = True
        destroy = self._c.fk_destroy
        handle = self.handle
        trampolines: list[Any] = [*self._change_trampolines.values(), self._request_trampoline]
        listeners = self._close_listeners

        def job() -> None:
            destroy(handle)
            _lifetime.release(trampolines)
            for listener in listeners:
                listener()

        _lifetime.reaper.submit(job)

    def _fail(self, status: int, function: str) -> FusionError:
        return self.library.error(status, function)

    # -- inputs ----------------------------------------------------------------------

    def send(self, input: str | Mapping[str, JSON], /, **fields: JSON) -> None:
        """Sends an input and applies it before returning (fk_send).

        send("increase")                          -> "increase"
        send("networkTapped", id="blob")          -> {"networkTapped":{"id":"blob"}}
        send({"networkTapped": {"id": "blob"}})   -> as given
        """
        data = _input_json(input, fields)
        status = self._c.fk_send(self.handle, data, len(data))
        if status != _OK:
            raise self._fail(status, "fk_send")

    def send_and_read(self, input: str | Mapping[str, JSON], /, **fields: JSON) -> dict[str, JSON]:
        """Sends an input (as `send` takes it) and returns the state right after it, as a
        new dict: `send` then `state` in one call into the library (fk_send_and_read).
        The state is the one this input produced, even if other threads send inputs to
        the instance at the same time; except when it outgrew the instance's buffer: then
        it is read again (and the buffer grown), and may include changes made since.
        `send_and_read_json` returns the version, which says."""
        # send_and_read_json and _parse written out, in as few Python operations as will
        # do: each costs tens of nanoseconds, a Python call about a tenth of the round
        # trip, scanning the Counter's state about as much as the call into the library
        # (see bench.py). A case name sent before is found with one dict look-up (a
        # mapping raises TypeError there: unhashable).
        if fields:
            data = _input_json(input, fields)
        else:
            try:
                data = _encoded_names[input]  # type: ignore[index]
            except (KeyError, TypeError):
                data = _input_json(input, fields)
        buffers = self._buffers
        buffer = buffers.pop() if buffers else self._new_buffer()
        call = self._send_and_read_call
        status = call(buffer.ref, data) if call is not None and 0 not in data else self._send_and_read_other(buffer, data)
        if not status:
            text = buffer.memory.value
            if text:
                # The text is a bytes object of its own now: the buffer may go back.
                buffers.append(buffer)
                string = text.decode()
                try:
                    state, end = _scan_once(string, 0)
                except StopIteration:
                    end = -1
                if end != len(string):
                    state = json.loads(string)
                return state  # type: ignore[no-any-return]
        return _parse(self._finish_send_and_read(buffer, status)[0])  # type: ignore[no-any-return]

    def send_and_read_json(self, text: str | bytes) -> tuple[bytes, int]:
        """Sends an input written as JSON text and returns the state right after it as JSON
        text (UTF-8 bytes), with its version: JSON in, JSON out, in one call into the
        library (fk_send_and_read_call), the fastest round trip the package has. As with
        `send_and_read`, a state that outgrew the instance's buffer is read again (the
        version then says whether later changes are in it); buffers grow to fit, so this
        happens about once per instance."""
        # Every line here is on the hot path of a round trip: a Python operation costs tens
        # of nanoseconds, one ctypes call about half a microsecond (see bench.py).
        buffers = self._buffers
        buffer = buffers.pop() if buffers else self._new_buffer()
        call = self._send_and_read_call
        # Two arguments that ctypes passes as they are (a prepared pointer, the bytes, which
        # end in a NUL): `0 in text` (memchr) says whether the text may be read up to its NUL.
        if call is not None and type(text) is bytes and 0 not in text:
            status = call(buffer.ref, text)
        else:
            data = _utf8(text, "the input")
            status = call(buffer.ref, data) if call is not None and 0 not in data else self._send_and_read_other(buffer, data)
        if not status:
            # The library ends the text with a NUL and never writes one inside (JSON escapes
            # it), so `.value` is the whole text; empty when it did not fit.
            state: bytes = buffer.memory.value
            if state:
                # The version is read before the buffer goes back, where another thread may take it.
                result = state, buffer.version.value
                buffers.append(buffer)
                return result
        return self._finish_send_and_read(buffer, status)

    def _new_buffer(self) -> _StateBuffer:
        """A buffer for the pool, when every one is in use (by other threads, or by an
        outer call on this thread whose callback sends another input)."""
        return _StateBuffer(self._buffer_size, self.handle)

    def _send_and_read_other(self, buffer: _StateBuffer, data: bytes) -> int:
        """The round trip without fk_send_and_read_call: input text with a NUL inside (its
        length given), or a library built before that function, or before fk_send_and_read
        (then two calls, fk_send and fk_state_into or fk_state, and FK_OK: the state is
        then already in the buffer or read by _finish_send_and_read)."""
        if self._send_and_read is not None:
            return int(self._send_and_read(self._handle_arg, data, c_size_t(len(data)), buffer.ref))
        self.send_json(data)
        if self._state_into is None:
            buffer.memory.value = b""  # read by _finish_send_and_read with fk_state
            return _OK
        return self._state_into(self._handle_arg, buffer.ref)  # type: ignore[no-any-return]

    def _finish_send_and_read(self, buffer: _StateBuffer, status: int) -> tuple[bytes, int]:
        """After a round trip that failed, or whose state did not fit: raise, or read it again."""
        try:
            if status != _OK:
                raise self._fail(status, "fk_send_and_read")
            if self._state_into is None:
                return self.state_json()
            # Applied, but the state did not fit: read it again with room for it. (Another
            # thread's input may have landed in between; the version says.)
            self._grow(buffer, buffer.length.value + 1)
            return self._read_state(buffer)
        finally:
            self._buffers.append(buffer)

    def _grow(self, buffer: _StateBuffer, needed: int) -> None:
        """Grows `buffer` for a state of `needed` bytes, and new buffers of the pool with it."""
        size = max(needed, 2 * buffer.size)
        buffer.resize(size)
        if size > self._buffer_size:
            self._buffer_size = size

    def _read_state(self, buffer: _StateBuffer) -> tuple[bytes, int]:
        """fk_state_into, growing `buffer` (the caller's, taken from the pool) until the state fits."""
        state_into = self._state_into
        assert state_into is not None
        while True:
            status = state_into(self._handle_arg, buffer.ref)
            if status != _OK:
                raise self._fail(status, "fk_state_into")
            length = buffer.struct.length
            if length < buffer.size:
                return buffer.memory[:length], buffer.struct.version
            self._grow(buffer, length + 1)

    def send_json(self, text: str | bytes) -> None:
        """Sends an input written as JSON text, as it is: '"increase"', b'{"reset":{}}'."""
        data = _utf8(text, "the input")
        status = self._c.fk_send(self.handle, data, len(data))
        if status != _OK:
            raise self._fail(status, "fk_send")

    # -- state -----------------------------------------------------------------------

    def state_json(self) -> tuple[bytes, int]:
        """fk_state: the state's JSON text (UTF-8 bytes) and the version it belongs to."""
        text = c_char_p()
        length = c_size_t()
        version = c_uint64()
        status = self._c.fk_state(self.handle, byref(text), byref(length), byref(version))
        if status != _OK:
            raise self._fail(status, "fk_state")
        if text.value is not None and len(text.value) != length.value:
            # Not JSON as the library writes it (a raw NUL inside); copy by length instead.
            data = string_at(ctypes.cast(text, ctypes.c_void_p).value or 0, length.value)
            self._c.fk_free(text)
            return data, version.value
        return _owned(self._c, text), version.value

    def snapshot(self) -> tuple[dict[str, JSON], int]:
        """The state and the version it belongs to, read together."""
        text, version = self.state_json()
        state: dict[str, JSON] = _parse(text)
        return state, version

    def save(self, path: str | os.PathLike[str] | None = None) -> dict[str, JSON]:
        """The state as a saved document, {"feature", "stateVersion", "version", "state"}
        (the feature's state version travels with it, so that a later library can
        migrate it); also written to `path` when given, replacing it whole (written
        beside it, then renamed). `Library.restore()` and `fusion --state FILE` read it."""
        state, version = self.snapshot()
        document: dict[str, JSON] = {"feature": self.feature,
                                     "stateVersion": self.library.summary.feature(self.feature).state_version,
                                     "version": version, "state": state}
        if path is not None:
            target = os.fspath(path)
            temporary = f"{target}.{os.getpid()}.tmp"
            try:
                with open(temporary, "w", encoding="utf-8") as file:
                    json.dump(document, file, ensure_ascii=False, indent=2)
                    file.write("\n")
                os.replace(temporary, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        return document

    @property
    def state(self) -> dict[str, JSON]:
        """The current state, as a new dict (changing it changes nothing in the instance)."""
        # The hot path of a round trip, so the buffer read and _parse are written out here
        # (a Python call costs about as much as scanning the Counter's state).
        state_into = self._state_into
        if state_into is None:
            return self.snapshot()[0]
        buffers = self._buffers
        buffer = buffers.pop() if buffers else self._new_buffer()
        try:
            status = state_into(self._handle_arg, buffer.ref)
            if status != _OK:
                raise self._fail(status, "fk_state_into")
            length = buffer.struct.length
            data = buffer.memory[:length] if length < buffer.size else self._read_state(buffer)[0]
        finally:
            buffers.append(buffer)
        string = data.decode("utf-8")
        try:
            state, end = _scan_once(string, 0)
        except StopIteration:
            end = -1
        if end != len(string):
            state = json.loads(string)
        return state  # type: ignore[no-any-return]

    @property
    def version(self) -> int:
        """fk_version: 0 when created, plus one for each change."""
        version = c_uint64()
        status = self._c.fk_version(self.handle, byref(version))
        if status != _OK:
            raise self._fail(status, "fk_version")
        return version.value

    def state_patch(self, since_version: int) -> dict[str, JSON]:
        """fk_state_patch: what changed since `since_version`, as
        {"from": V, "to": N, "patch": [RFC 6902 operations]}, or, when V is too old,
        {"from": None, "to": N, "state": {...}}."""
        self.library.require("fk_state_patch")
        text = c_char_p()
        status = self._c.fk_state_patch(self.handle, _u64(since_version, "since_version"), byref(text), None, None)
        if status != _OK:
            raise self._fail(status, "fk_state_patch")
        patch: dict[str, JSON] = _parse(_owned(self._c, text))
        return patch

    # -- changes ---------------------------------------------------------------------

    def subscribe(self, callback: Callable[[int], object]) -> Subscription:
        """Calls `callback(version)` after every change (fk_subscribe), in increasing
        version order, one call at a time, until unsubscribed or closed.

        It runs on the thread that sent the input, or on a library thread running an
        effect; it may call any method, including send() on this instance (changes it
        causes are reported after it returns). Read the state with `.state` if needed;
        it may have moved on past `version`. An exception it raises is logged and kept
        in `callback_errors`; the library never sees it.
        """
        if not callable(callback):
            raise TypeError("callback must be callable")
        errors = self.callback_errors

        # Only what it needs, and not `self`: the trampoline lives in this instance.
        def on_change(_user_data: int | None, _instance: int, version: int) -> None:
            ident = _thread.get_ident()
            _lifetime.enter_callback(ident)
            try:
                callback(version)
            except BaseException as error:
                _report_callback_error(errors, callback, error)
            finally:
                _lifetime.leave_callback(ident)

        trampoline = CHANGE_FN(on_change)
        out = c_uint64()
        status = self._c.fk_subscribe(self.handle, trampoline, None, byref(out))
        if status != _OK:
            raise self._fail(status, "fk_subscribe")
        with self._lock:
            # Held from here until fk_unsubscribe or fk_destroy returns (see _lifetime).
            self._change_trampolines[out.value] = trampoline
        return Subscription(self, out.value)

    def _has_subscription(self, subscription_id: int) -> bool:
        with self._lock:
            return subscription_id in self._change_trampolines

    def _unsubscribe(self, subscription_id: int) -> None:
        with self._lock:
            trampoline = self._change_trampolines.pop(subscription_id, None)
        if trampoline is None:
            return  # ended already: unsubscribed, or the instance closed
        status = self._c.fk_unsubscribe(self.handle, subscription_id)
        if status not in (_OK, _INVALID_HANDLE, _UNKNOWN_SUBSCRIPTION):
            error = self._fail(status, "fk_unsubscribe")
            with self._lock:
                self._change_trampolines[subscription_id] = trampoline
            raise error
        # OK, or the library no longer has it (destroyed meanwhile): it will not call it again.
        _lifetime.release([trampoline])

    def _add_close_listener(self, listener: Callable[[], None]) -> bool:
        with self._lock:
            if self._closed:
                return False
            self._close_listeners.append(listener)
            return True

    def _remove_close_listener(self, listener: Callable[[], None]) -> None:
        with self._lock:
            if listener in self._close_listeners:
                self._close_listeners.remove(listener)

    async def changes(self, *, include_current: bool = False) -> AsyncGenerator[dict[str, JSON], None]:
        """The state after each change, delivered on the running event loop's thread:

            async for state in instance.changes():
                draw(state)

        The callback reads the state on the library's thread and hands it to the loop
        with call_soon_threadsafe; states arrive in version order, and a state already
        superseded by a newer one delivered is skipped. The subscription starts with
        the iteration (the first `async for` step), so send inputs after that; with
        include_current=True the current state comes first, which marks that moment. The iteration ends when the instance closes; leaving
        it (break) unsubscribes once the generator is closed (use
        contextlib.aclosing() to make that immediate).
        """
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[int, dict[str, JSON]] | None] = asyncio.Queue()

        def post(item: tuple[int, dict[str, JSON]] | None) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:
                pass  # the loop is closed: nobody is listening any more

        def on_change(_version: int) -> None:
            try:
                state, version = self.snapshot()
            except InvalidHandleError:
                return  # closing; the close listener ends the iteration
            post((version, state))

        def on_close() -> None:
            post(None)

        subscription = self.subscribe(on_change)
        try:
            if not self._add_close_listener(on_close):
                return
            last = -1
            if include_current:
                state, last = self.snapshot()
                yield state
            while True:
                item = await queue.get()
                if item is None:
                    return
                version, state = item
                if version <= last:
                    continue
                last = version
                yield state
        finally:
            self._remove_close_listener(on_close)
            subscription.unsubscribe()

    # -- time ------------------------------------------------------------------------

    def advance_clock(self, seconds: float = 0.0, *, nanoseconds: int | None = None) -> None:
        """Moves a manual clock forward (fk_advance_clock; create with clock="manual") and
        returns once the effects that woke have settled; their changes are reported
        before it returns. advance_clock(0.5) or advance_clock(nanoseconds=500_000_000)."""
        self.library.require("fk_advance_clock")
        if nanoseconds is None:
            if not math.isfinite(seconds) or seconds < 0:
                raise InvalidArgumentError(f"seconds must be finite and not negative, not {seconds}",
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
            raise ValueError(f"steps must be a whole number above 0, not {steps!r}")
        if steps >= len(entries):
            raise InvalidArgumentError(f"only {len(entries) - 1} versions back are kept, not {steps}",
                                       status="FK_ERR_INVALID_ARGUMENT")
        return self.goto(entries[-1 - steps].version)

    # -- host requests ---------------------------------------------------------------

    def set_request_handler(self, handler: Callable[[HostEvent], object] | None) -> None:
        """Hands this instance's host requests and their cancellations to `handler`
        (fk_set_request_handler), and selects "host" requests. Requests waiting for
        poll_request() are handed over before this returns. None removes the handler:
        requests then wait for poll_request().

        The handler runs on a library thread (or the thread sending an input, or the one
        closing the instance, for cancellations); it may call respond() right away, or
        keep the id and answer later from any thread.
        """
        self.library.require("fk_set_request_handler")
        if handler is None:
            trampoline: Any = None
            status = self._c.fk_set_request_handler(self.handle, REQUEST_FN(), None)  # REQUEST_FN() is NULL
        else:
            if not callable(handler):
                raise TypeError("handler must be callable or None")
            errors = self.callback_errors

            def on_event(_user_data: int | None, _instance: int, event: int | None, length: int) -> None:
                ident = _thread.get_ident()
                _lifetime.enter_callback(ident)
                try:
                    handler(HostEvent.from_json(string_at(event or 0, length)))
                except BaseException as error:
                    _report_callback_error(errors, handler, error)
                finally:
                    _lifetime.leave_callback(ident)

            trampoline = REQUEST_FN(on_event)
            # `trampoline` stays referenced through the call: waiting requests are handed over inside it.
            status = self._c.fk_set_request_handler(self.handle, trampoline, None)
        if status != _OK:
            raise self._fail(status, "fk_set_request_handler")
        with self._lock:
            previous, self._request_trampoline = self._request_trampoline, trampoline
        if previous is not None:
            # The previous handler is not called again now that the call returned.
            _lifetime.release([previous])

    def poll_request(self) -> HostEvent | None:
        """The next request or cancellation of an instance with no handler
        (fk_poll_request), in the order they happened; None when there is none."""
        self.library.require("fk_poll_request")
        text = c_char_p()
        status = self._c.fk_poll_request(self.handle, byref(text), None)
        if status != _OK:
            raise self._fail(status, "fk_poll_request")
        if text.value is None:
            return None  # nothing waiting; nothing to free
        return HostEvent.from_json(_owned(self._c, text))

    def respond(self, request_id: int, result: JSON) -> None:
        """Answers an open request with its result (fk_respond), encoded as JSON.
        InvalidResponseError when it does not fit; the request then stays open."""
        self.respond_json(request_id, _to_json(result, "the response"))

    def respond_json(self, request_id: int, text: str | bytes) -> None:
        """Answers an open request with a result written as JSON text."""
        self.library.require("fk_respond")
        data = _utf8(text, "the response")
        status = self._c.fk_respond(self.handle, _u64(request_id, "request_id"), data, len(data))
        if status != _OK:
            raise self._fail(status, "fk_respond")

    def fail_request(self, request_id: int, message: str | bytes) -> None:
        """Answers an open request with an error: why the work could not be done."""
        self.library.require("fk_fail_request")
        data = _utf8(message, "the message")
        status = self._c.fk_fail_request(self.handle, _u64(request_id, "request_id"), data, len(data))
        if status != _OK:
            raise self._fail(status, "fk_fail_request")
