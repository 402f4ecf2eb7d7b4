"""`Instance`: a running feature (fk_create … fk_destroy), with the round trip on its
hot path. Subscriptions, the clock and time travel, and host requests are parts of it
in modules of their own.

Threads: every method may be called from any thread, as every fk_ function may. Change
callbacks and request handlers run on whichever thread the library calls them from:
the thread that sent the input, or one of the library's own threads running an effect
(a timer, a host request). Keep them short, and hand work to your own thread or event
loop (`Instance.changes()` does that for asyncio).
"""
from __future__ import annotations

import contextlib
import ctypes
import json
import os
import threading
from collections.abc import Callable, Mapping
from ctypes import byref, c_char_p, c_size_t, c_uint64, string_at
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol

from . import _lifetime
from ._callback_errors import CallbackErrors
from ._handle import _OK, LibraryCalls
from ._host_requests import HostRequests
from ._input import _encoded_names, _input_json
from ._state_buffer import _STATE_BUFFER_START, _StateBuffer
from ._subscriptions import Subscriptions
from ._text import JSON, _owned, _parse, _scan_once, _u64, _utf8
from ._time_travel import TimeTravel
from .manifest import FeatureSpec, Manifest

if TYPE_CHECKING:
    # Defaults (PEP 696) for the checkers; at run time a type variable is only a name.
    from typing import Self

    from typing_extensions import TypeVar
    StateT = TypeVar("StateT", bound=Mapping[str, Any], default=dict[str, JSON])
    InputT = TypeVar("InputT", bound=str | Mapping[str, Any], default=str | Mapping[str, JSON])
else:
    from typing import TypeVar
    StateT = TypeVar("StateT")
    InputT = TypeVar("InputT")


class Instance(Subscriptions, TimeTravel, HostRequests, Generic[StateT, InputT]):
    """A running instance of a feature (fk_create … fk_destroy).

    Typed by the feature's state and inputs (`Instance[WiFiSettingsState,
    WiFiSettingsInput]`) through the module `fusion types --lang python` writes for a
    library; a plain `Instance` takes any input and gives the state as a dict.

    `close()` destroys it (also on leaving a `with` block, and when the object is
    garbage collected); the native instance is freed exactly once. After close every
    call raises InvalidHandleError; closing again does nothing.
    """

    #: How many callback exceptions `callback_errors` keeps (the newest).
    MAX_KEPT_ERRORS = 100

    #: The library that made it (a `Library`).
    library: LibraryFace

    def __init__(self, library: LibraryFace, feature: str, handle: int) -> None:
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

    def __enter__(self) -> Self:
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

    # -- inputs ----------------------------------------------------------------------

    def send(self, input: InputT, /, **fields: JSON) -> None:
        """Sends an input and applies it before returning (fk_send).

        send("increase")                          -> "increase"
        send("networkTapped", id="blob")          -> {"networkTapped":{"id":"blob"}}
        send({"networkTapped": {"id": "blob"}})   -> as given
        """
        data = _input_json(input, fields)
        status = self._c.fk_send(self.handle, data, len(data))
        if status != _OK:
            raise self._fail(status, "fk_send")

    def send_and_read(self, input: InputT, /, **fields: JSON) -> StateT:
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
        # No NUL check (send_and_read_json's `0 in text`): the shorthand's JSON never holds a
        # raw NUL, a cached name being an identifier and json's encoder escaping the rest.
        status = call(buffer.ref, data) if call is not None else self._send_and_read_other(buffer, data)
        if not status:
            text = buffer.memory.value
            if text:
                # The text is a bytes object of its own now: the buffer may go back.
                buffers.append(buffer)
                string = text.decode()
                # _parse written out (as in `state`): a call costs a tenth of the round trip.
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

    def snapshot(self) -> tuple[StateT, int]:
        """The state and the version it belongs to, read together."""
        text, version = self.state_json()
        state: StateT = _parse(text)
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
    def state(self) -> StateT:
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
        # _parse written out (as in send_and_read): a call costs about as much as the scan.
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


class LibraryFace(LibraryCalls, Protocol):
    """`Instance.library`: the public face of the `Library` that made the instance, as a
    protocol (_library.py imports this module; `Library` meets it, which mypy checks)."""

    path: Path
    abi_version: int
    version: str

    def check(self, status: int, function: str | None = None) -> None: ...
    def status_name(self, status: int) -> str: ...
    def last_error_message(self) -> str: ...
    def limit(self, name: str | int, new_value: int | None = None) -> int: ...
    def manifest_json(self) -> str: ...
    @property
    def manifest(self) -> Manifest: ...
    def feature(self, name: str) -> FeatureSpec: ...
    @property
    def features(self) -> tuple[str, ...]: ...
    def create(self, feature: str | bytes, *, state: Mapping[str, JSON] | str | bytes | None = None,
               seed: int | None = None, clock: Literal["system", "manual"] | None = None,
               requests: Literal["builtin", "host"] | None = None, settings: Mapping[str, JSON] | None = None,
               history: int | None = None, state_version: int | None = None,
               options: Mapping[str, JSON] | str | bytes | None = None,
               record: str | os.PathLike[str] | None = None,
               journal: str | os.PathLike[str] | None = None) -> Instance: ...
    def restore(self, saved: Mapping[str, JSON] | str | os.PathLike[str], **options: Any) -> Instance: ...
