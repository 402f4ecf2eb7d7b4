"""Host requests (include/fusionkit.h, "Host requests"): the work a feature asks the
host to do, handed to a handler or polled, and answered by id."""
from __future__ import annotations

import _thread
import json
from collections.abc import Callable
from ctypes import byref, c_char_p, string_at
from dataclasses import dataclass, field
from typing import Any

from . import _lifetime
from ._callback_errors import _report_callback_error
from ._handle import _OK, InstanceHandle
from ._native import REQUEST_FN
from ._text import JSON, _owned, _to_json, _u64, _utf8


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


class HostRequests(InstanceHandle):
    """The part of `Instance` that answers host requests."""

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
        self._answer_request("fk_respond", request_id, _utf8(text, "the response"))

    def fail_request(self, request_id: int, message: str | bytes) -> None:
        """Answers an open request with an error: why the work could not be done."""
        self._answer_request("fk_fail_request", request_id, _utf8(message, "the message"))

    def _answer_request(self, function: str, request_id: int, data: bytes) -> None:
        """fk_respond or fk_fail_request: the two answers take the same arguments."""
        self.library.require(function)
        status = getattr(self._c, function)(self.handle, _u64(request_id, "request_id"), data, len(data))
        if status != _OK:
            raise self._fail(status, function)
