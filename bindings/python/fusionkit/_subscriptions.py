"""Hearing about changes: `Instance.subscribe` (fk_subscribe), `Subscription` and the
asyncio stream `Instance.changes()`."""
from __future__ import annotations

import _thread
import asyncio
from collections.abc import AsyncGenerator, Callable
from ctypes import byref, c_uint64

from . import _lifetime
from ._callback_errors import _report_callback_error
from ._handle import _INVALID_HANDLE, _OK, _UNKNOWN_SUBSCRIPTION, InstanceHandle
from ._native import CHANGE_FN
from ._text import JSON
from .errors import InvalidHandleError


class Subscription:
    """An active fk_subscribe. `unsubscribe()` (or leaving a `with` block) ends it; when
    that returns, the callback is not running (unless you unsubscribe from inside it)
    and will not be called again. Ending it twice, or after the instance closed, does
    nothing."""

    __slots__ = ("_instance", "id")

    def __init__(self, instance: Subscriptions, subscription_id: int) -> None:
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


class Subscriptions(InstanceHandle):
    """The part of `Instance` that tells of changes."""

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
