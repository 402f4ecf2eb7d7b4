"""Tests/abi/c/bad_inputs.c, row by row, through the Python package.

Each row does something wrong and names the exception class it must raise and words
the library's message must contain; after every row the live instances' state and
version must be exactly what they were. Rows the Python API cannot express on purpose
(NULL pointers, made-up handles, lengths past the buffer) go through `Library.c`, the
package's declared prototypes, and `Library.check`, which raises the same classes.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from ctypes import addressof, byref, c_char_p, c_uint64, create_string_buffer
from dataclasses import dataclass
from pathlib import Path

import fusionkit
import pytest
from fusionkit import _native

FK_NUL_TERMINATED = _native.NUL_TERMINATED


@dataclass
class World:
    lib: fusionkit.Library
    counter: fusionkit.Instance  # live, at value 2
    answer: fusionkit.Instance   # live, with "blue" typed
    dead: fusionkit.Instance     # closed

    def low(self, function: str, *args: object) -> None:
        """A call through the declared prototypes, checked by the package."""
        self.lib.check(getattr(self.lib.c, function)(*args), function)


Row = Callable[[World], object]


def _noop(_user_data: int | None, _instance: int, _version: int) -> None:
    pass


NOOP = _native.CHANGE_FN(_noop)
_MEMORY = create_string_buffer(4096)


def buffer(data: int | None, capacity: int) -> object:
    """A pointer to an fk_buffer with the given data address and capacity."""
    return byref(fusionkit.Buffer(data, capacity, 0, 0))


def good_buffer(capacity: int = 4096) -> object:
    return buffer(addressof(_MEMORY), capacity)


def length_only(w: World) -> None:
    """Not an error: NULL data with capacity 0 asks for the length (and version) alone."""
    text, version = w.counter.state_json()
    struct = fusionkit.Buffer(None, 0, 999, 999)
    w.low("fk_state_into", w.counter.handle, byref(struct))
    assert (struct.length, struct.version, struct.data, struct.capacity) == (len(text), version, None, 0)
NULL_CALLBACK = _native.CHANGE_FN()
DEEP = "[" * 100_000 + "]" * 100_000


def unsubscribe_twice(w: World) -> None:
    subscription = w.counter.subscribe(lambda version: None)
    subscription.unsubscribe()
    w.low("fk_unsubscribe", w.counter.handle, subscription.id)


def destroy_twice(w: World) -> None:
    instance = w.lib.create("counter")
    handle = instance.handle
    instance.close()
    w.low("fk_destroy", handle)


E = fusionkit
ROWS: list[tuple[str, Row, type[fusionkit.FusionError] | None, tuple[str, ...]]] = [
    # fk_create
    ("create: NULL feature name", lambda w: w.low("fk_create", None, 0, None, 0, byref(c_uint64())),
     E.NullArgumentError, ("feature", "NULL")),
    ("create: NULL out_instance", lambda w: w.low("fk_create", b"counter", 7, None, 0, None),
     E.NullArgumentError, ("out_instance",)),
    ("create: unknown feature", lambda w: w.lib.create("teleporter"),
     E.UnknownFeatureError, ('"teleporter"', "counter", "answer")),
    ("create: feature name not UTF-8", lambda w: w.lib.create(b"count\xff"), E.InvalidUTF8Error, ("UTF-8",)),
    ("create: state malformed", lambda w: w.lib.create("counter", state='{"value":'),
     E.MalformedJSONError, ("state", "line 1, column 10")),
    ("create: state empty", lambda w: w.lib.create("counter", state=""), E.MalformedJSONError, ("empty",)),
    ("create: state not UTF-8", lambda w: w.lib.create("counter", state=b'{"alert":"\xc3\x28"}'),
     E.InvalidUTF8Error, ("UTF-8", "byte 10")),
    ("create: state field of the wrong type",
     lambda w: w.lib.create("counter", state={"value": "three", "isReset": False, "alert": None}),
     E.InvalidStateError, ("$.value", "expected an integer, found a string")),
    ("create: state missing a field", lambda w: w.lib.create("counter", state={"value": 3}),
     E.InvalidStateError, ('missing field "isReset"',)),
    ("create: state not an object", lambda w: w.lib.create("counter", state="[1,2]"),
     E.InvalidStateError, ("expected an object, found an array",)),
    ("create: state number too large",
     lambda w: w.lib.create("counter", state={"value": 123456789012345678901234567890, "isReset": False,
                                              "alert": None}),
     E.InvalidStateError, ("$.value", "Int")),
    # fk_send
    ("send: NULL input", lambda w: w.low("fk_send", w.counter.handle, None, 0), E.NullArgumentError, ("input_json",)),
    ("send: empty input", lambda w: w.counter.send_json(""), E.MalformedJSONError, ("empty",)),
    ("send: only whitespace", lambda w: w.counter.send_json("  \n "), E.MalformedJSONError, ("whitespace",)),
    ("send: truncated JSON", lambda w: w.counter.send_json('{"increase":'),
     E.MalformedJSONError, ("line 1, column 13", "end of input")),
    ("send: trailing garbage", lambda w: w.counter.send_json('"increase" x'),
     E.MalformedJSONError, ("'x'", "after the end")),
    ("send: unquoted case name", lambda w: w.counter.send_json("increase"), E.MalformedJSONError, ("'i'", "column 1")),
    ("send: length beyond any buffer", lambda w: w.low("fk_send", w.counter.handle, b'"increase"', FK_NUL_TERMINATED - 1),
     E.InvalidArgumentError, ("length",)),
    ("send: nesting 100000 deep", lambda w: w.counter.send_json(DEEP), E.MalformedJSONError, ("nesting deeper than",)),
    ("send: invalid UTF-8", lambda w: w.counter.send_json(b'"\xc3\x28"'), E.InvalidUTF8Error, ("UTF-8", "byte 1")),
    ("send: lone continuation byte", lambda w: w.counter.send_json(b'"inc\x80"'), E.InvalidUTF8Error, ("byte 4",)),
    ("send: UTF-8 encoded surrogate", lambda w: w.counter.send_json(b'"\xed\xa0\x80"'), E.InvalidUTF8Error, ("UTF-8",)),
    ("send: unknown input case", lambda w: w.counter.send("jump"),
     E.UnknownInputError, ('"jump"', "increase, decrease, reset, show, alertDismissed")),
    ("send: unknown input case as object", lambda w: w.counter.send("jump", height=2),
     E.UnknownInputError, ('"jump"', "valid inputs")),
    ("send: unknown input case holding a NUL", lambda w: w.counter.send_json(b'"jump\\u0000x"'),
     E.UnknownInputError, ('"jump\\u0000x"', "valid inputs")),
    ("send: a number is not an input", lambda w: w.counter.send_json("42"),
     E.InvalidInputError, ("case name", "found a number")),
    ("send: object with two keys", lambda w: w.counter.send({"increase": {}, "decrease": {}}),
     E.InvalidInputError, ("exactly one key", "2 keys")),
    ("send: payload is not an object", lambda w: w.counter.send({"increase": 5}),
     E.InvalidInputError, ('"increase"', "found a number")),
    # Neither "increase" nor {"increase":{}}: it was taken as a third spelling.
    ("send: payload is null", lambda w: w.counter.send({"increase": None}),
     E.InvalidInputError, ('"increase"', "takes no fields", "found null")),
    ("send: field on an input without fields", lambda w: w.counter.send("increase", by=5),
     E.InvalidInputError, ('no field "by"', "takes no fields")),
    ("send: field of the wrong type", lambda w: w.answer.send("answerChanged", text=5),
     E.InvalidInputError, ('"answerChanged"', '"text"', "expected a string, found a number")),
    ("send: missing field", lambda w: w.answer.send({"answerChanged": {}}),
     E.InvalidInputError, ('missing field "text"', "text: string")),
    ("send: bare name of an input with fields", lambda w: w.answer.send("answerChanged"),
     E.InvalidInputError, ('missing field "text"',)),
    ("send: unknown field", lambda w: w.answer.send("answerChanged", text="a", txet="b"),
     E.InvalidInputError, ('no field "txet"', "text: string")),
    ("send: null for a required field", lambda w: w.answer.send("answerChanged", text=None),
     E.InvalidInputError, ('"text"', "expected a string, found null")),
    # handles: a closed Instance passes its stale handle on, and the library refuses it
    ("send: destroyed instance", lambda w: w.dead.send("increase"), E.InvalidHandleError, ("not a live instance",)),
    ("state: destroyed instance", lambda w: w.dead.state, E.InvalidHandleError, ("not a live instance",)),
    ("version: destroyed instance", lambda w: w.dead.version, E.InvalidHandleError, ("not a live instance",)),
    ("subscribe: destroyed instance", lambda w: w.dead.subscribe(lambda version: None),
     E.InvalidHandleError, ("not a live instance",)),
    ("unsubscribe: destroyed instance", lambda w: w.low("fk_unsubscribe", w.dead.handle, 1),
     E.InvalidHandleError, ("not a live instance",)),
    ("destroy: destroyed instance", lambda w: w.low("fk_destroy", w.dead.handle),
     E.InvalidHandleError, ("not a live instance",)),
    ("destroy: twice", destroy_twice, E.InvalidHandleError, ("destroyed",)),
    ("send: made-up handle 1", lambda w: w.low("fk_send", 1, b'"increase"', 10), E.InvalidHandleError, ("instance 1 ",)),
    ("send: made-up handle 42", lambda w: w.low("fk_send", 42, b'"increase"', 10),
     E.InvalidHandleError, ("instance 42 ",)),
    ("state: made-up handle UINT64_MAX",
     lambda w: w.low("fk_state", 2**64 - 1, byref(c_char_p()), None, None),
     E.InvalidHandleError, ("18446744073709551615",)),
    ("send: handle 0", lambda w: w.low("fk_send", 0, b'"increase"', 10), E.InvalidHandleError, ("0",)),
    ("destroy: handle 0 does nothing", lambda w: w.low("fk_destroy", 0), None, ()),
    # out-pointers and subscriptions
    ("state: NULL out_json", lambda w: w.low("fk_state", w.counter.handle, None, None, None),
     E.NullArgumentError, ("out_json",)),
    ("version: NULL out_version", lambda w: w.low("fk_version", w.counter.handle, None),
     E.NullArgumentError, ("out_version",)),
    ("manifest: NULL out_json", lambda w: w.low("fk_manifest", None, None), E.NullArgumentError, ("out_json",)),
    ("manifest summary: NULL out_json", lambda w: w.low("fk_manifest_summary", None, None), E.NullArgumentError,
     ("out_json",)),
    ("feature manifest: NULL feature name", lambda w: w.low("fk_feature_manifest", None, 0, byref(c_char_p()), None),
     E.NullArgumentError, ("feature", "NULL")),
    ("feature manifest: NULL out_json", lambda w: w.low("fk_feature_manifest", b"counter", 7, None, None),
     E.NullArgumentError, ("out_json",)),
    ("feature manifest: unknown feature",
     lambda w: w.low("fk_feature_manifest", b"teleporter", 10, byref(c_char_p()), None), E.UnknownFeatureError,
     ('"teleporter"', "counter, answer, home, wifi, profile")),
    ("feature manifest: feature name not UTF-8",
     lambda w: w.low("fk_feature_manifest", b"count\xff", 6, byref(c_char_p()), None), E.InvalidUTF8Error, ("UTF-8",)),
    ("subscribe: NULL callback", lambda w: w.low("fk_subscribe", w.counter.handle, NULL_CALLBACK, None,
                                                 byref(c_uint64())),
     E.NullArgumentError, ("callback",)),
    ("subscribe: NULL out_subscription", lambda w: w.low("fk_subscribe", w.counter.handle, NOOP, None, None),
     E.NullArgumentError, ("out_subscription",)),
    ("unsubscribe: unknown subscription", lambda w: w.low("fk_unsubscribe", w.counter.handle, 12345),
     E.UnknownSubscriptionError, ("12345",)),
    ("unsubscribe: twice", unsubscribe_twice, E.UnknownSubscriptionError, ("no subscription",)),
    # creation options
    ("options: malformed JSON", lambda w: w.lib.create("counter", options='{"seed":'),
     E.MalformedJSONError, ("options", "line 1")),
    ("options: not an object", lambda w: w.lib.create("counter", options="[]"),
     E.InvalidArgumentError, ("JSON object", "found an array")),
    ("options: unknown key", lambda w: w.lib.create("counter", options={"sead": 1}),
     E.InvalidArgumentError, ('"sead"', "state, seed, clock, requests, settings")),
    ("options: negative seed", lambda w: w.lib.create("counter", seed=-1),
     E.InvalidArgumentError, ('"seed"', "unsigned integer", "-1")),
    ("options: seed as text", lambda w: w.lib.create("counter", options={"seed": "42"}),
     E.InvalidArgumentError, ('"seed"', '"42"')),
    ("options: seed past 2^63 as a number", lambda w: w.lib.create("counter", options='{"seed":18446744073709551615}'),
     E.InvalidArgumentError, ('"seed"', "string of digits")),
    ("options: unknown clock", lambda w: w.lib.create("counter", options={"clock": "lunar"}),
     E.InvalidArgumentError, ('"clock"', '"system" or "manual"', "lunar")),
    ("options: unknown requests mode", lambda w: w.lib.create("counter", options={"requests": "pigeon"}),
     E.InvalidArgumentError, ('"requests"', '"builtin" or "host"')),
    ("options: settings not an object", lambda w: w.lib.create("counter", options={"settings": True}),
     E.InvalidArgumentError, ('"settings"', "found a boolean")),
    # A feature's settings are the ones it declares (the manifest's "settings"): a typo or
    # a value of another type fell back to the default without a word.
    ("options: a setting the feature does not have", lambda w: w.lib.create("wifi", settings={"liveScna": False}),
     E.InvalidArgumentError, ('"wifi"', '"liveScna"', "its settings are liveScan")),
    ("options: a setting of the wrong type", lambda w: w.lib.create("wifi", settings={"liveScan": 0}),
     E.InvalidArgumentError, ('"liveScan"', "a boolean", "found 0")),
    ("options: a setting for a feature without settings", lambda w: w.lib.create("counter", settings={"liveScan": False}),
     E.InvalidArgumentError, ('"counter"', "no settings")),
    ("options: state that does not fit",
     lambda w: w.lib.create("counter", seed=1, state={"value": True, "isReset": False, "alert": None}),
     E.InvalidStateError, ("$.value", "expected an integer, found a boolean")),
    ("create: state with a field the feature lacks",
     lambda w: w.lib.create("counter", state={"value": 3, "isReset": False, "count": 3}),
     E.InvalidStateError, ("$.count", "does not have", '"stateVersion"')),
    ("options: stateVersion without a state", lambda w: w.lib.create("counter", state_version=1),
     E.InvalidArgumentError, ('"stateVersion"', 'no "state"')),
    ("options: stateVersion 0",
     lambda w: w.lib.create("counter", state={"value": 1, "isReset": False}, state_version=0),
     E.InvalidArgumentError, ('"stateVersion"', "from 1", "found 0")),
    ("options: state from a newer version",
     lambda w: w.lib.create("counter", state={"value": 1, "isReset": False}, state_version=2),
     E.InvalidStateError, ('state version 2 of feature "counter"', "newer than this library's version 1")),
    ("options: NULL out_instance", lambda w: w.low("fk_create_with_options", b"counter", 7, None, 0, None),
     E.NullArgumentError, ("out_instance",)),
    ("options: unknown feature", lambda w: w.lib.create("nope", seed=1),
     E.UnknownFeatureError, ('"nope"', "counter, answer, home, wifi, profile")),
    # time and host requests
    ("advance: system clock", lambda w: w.counter.advance_clock(nanoseconds=1000),
     E.InvalidArgumentError, ("system clock", '{"clock":"manual"}')),
    ("advance: destroyed instance", lambda w: w.dead.advance_clock(nanoseconds=1000),
     E.InvalidHandleError, ("not a live instance",)),
    ("request handler: destroyed instance", lambda w: w.dead.set_request_handler(None),
     E.InvalidHandleError, ("not a live instance",)),
    ("poll: NULL out_json", lambda w: w.low("fk_poll_request", w.counter.handle, None, None),
     E.NullArgumentError, ("out_json",)),
    ("poll: destroyed instance", lambda w: w.dead.poll_request(), E.InvalidHandleError, ("not a live instance",)),
    ("respond: NULL result", lambda w: w.low("fk_respond", w.counter.handle, 1, None, 0),
     E.NullArgumentError, ("result_json",)),
    ("respond: malformed result", lambda w: w.counter.respond_json(1, '{"name"'),
     E.MalformedJSONError, ("response", "line 1")),
    ("respond: unknown request", lambda w: w.counter.respond(77, {}), E.UnknownRequestError, ("request 77",)),
    ("respond: destroyed instance", lambda w: w.dead.respond(1, {}), E.InvalidHandleError, ("not a live instance",)),
    ("fail: NULL message", lambda w: w.low("fk_fail_request", w.counter.handle, 1, None, 0),
     E.NullArgumentError, ("message",)),
    ("fail: message not UTF-8", lambda w: w.counter.fail_request(1, b"down\xff"), E.InvalidUTF8Error, ("UTF-8",)),
    ("fail: unknown request", lambda w: w.counter.fail_request(77, "down"), E.UnknownRequestError, ("request 77",)),
    ("state patch: NULL out_json", lambda w: w.low("fk_state_patch", w.counter.handle, 0, None, None, None),
     E.NullArgumentError, ("out_json",)),
    ("state patch: destroyed instance", lambda w: w.dead.state_patch(0),
     E.InvalidHandleError, ("not a live instance",)),
    # caller-owned buffers: fk_state_into, fk_send_and_read
    ("state into: destroyed instance", lambda w: w.dead.state, E.InvalidHandleError, ("not a live instance",)),
    ("state into: made-up handle 42", lambda w: w.low("fk_state_into", 42, good_buffer()),
     E.InvalidHandleError, ("instance 42 ",)),
    ("state into: handle 0", lambda w: w.low("fk_state_into", 0, good_buffer()), E.InvalidHandleError, ("0",)),
    ("state into: NULL buffer", lambda w: w.low("fk_state_into", w.counter.handle, None),
     E.NullArgumentError, ("buffer", "NULL")),
    ("state into: NULL data with capacity 16", lambda w: w.low("fk_state_into", w.counter.handle, buffer(None, 16)),
     E.NullArgumentError, ("data", "NULL", "16")),
    ("state into: NULL data with capacity 1", lambda w: w.low("fk_state_into", w.answer.handle, buffer(None, 1)),
     E.NullArgumentError, ("data", "NULL")),
    ("state into: NULL data with capacity 0 gives the length", length_only, None, ()),
    ("send and read: destroyed instance", lambda w: w.dead.send_and_read("increase"),
     E.InvalidHandleError, ("not a live instance",)),
    ("send and read: made-up handle 42", lambda w: w.low("fk_send_and_read", 42, b'"increase"', 10, good_buffer()),
     E.InvalidHandleError, ("instance 42 ",)),
    ("send and read: handle 0", lambda w: w.low("fk_send_and_read", 0, b'"increase"', 10, good_buffer()),
     E.InvalidHandleError, ("0",)),
    ("send and read: NULL input", lambda w: w.low("fk_send_and_read", w.counter.handle, None, 0, good_buffer()),
     E.NullArgumentError, ("input_json",)),
    ("send and read: NULL buffer, input not applied",
     lambda w: w.low("fk_send_and_read", w.counter.handle, b'"increase"', 10, None), E.NullArgumentError, ("buffer", "NULL")),
    ("send and read: NULL data with capacity 16, input not applied",
     lambda w: w.low("fk_send_and_read", w.counter.handle, b'"increase"', 10, buffer(None, 16)),
     E.NullArgumentError, ("data", "NULL", "16")),
    ("send and read: NULL data with capacity 1, answer not applied",
     lambda w: w.low("fk_send_and_read", w.answer.handle, b'{"answerChanged":{"text":"red"}}', FK_NUL_TERMINATED,
                     buffer(None, 1)), E.NullArgumentError, ("data", "NULL")),
    ("send and read: empty input", lambda w: w.counter.send_and_read_json(b""), E.MalformedJSONError, ("empty",)),
    ("send and read: truncated JSON", lambda w: w.counter.send_and_read_json('{"increase":'),
     E.MalformedJSONError, ("line 1, column 13", "end of input")),
    ("send and read: unquoted case name", lambda w: w.counter.send_and_read_json("increase"),
     E.MalformedJSONError, ("'i'", "column 1")),
    ("send and read: invalid UTF-8", lambda w: w.counter.send_and_read_json(b'"\xc3\x28"'),
     E.InvalidUTF8Error, ("UTF-8", "byte 1")),
    ("send and read: length beyond any buffer",
     lambda w: w.low("fk_send_and_read", w.counter.handle, b'"increase"', FK_NUL_TERMINATED - 1, good_buffer()),
     E.InvalidArgumentError, ("length",)),
    ("send and read: unknown input case", lambda w: w.counter.send_and_read("jump"),
     E.UnknownInputError, ('"jump"', "increase, decrease, reset, show, alertDismissed")),
    ("send and read: unknown input case, buffer too small",
     lambda w: w.low("fk_send_and_read", w.counter.handle, b'{"jump":{}}', FK_NUL_TERMINATED, good_buffer(1)),
     E.UnknownInputError, ('"jump"', "valid inputs")),
    ("send and read: unknown input case, length only",
     lambda w: w.low("fk_send_and_read", w.counter.handle, b'"jump"', FK_NUL_TERMINATED, buffer(None, 0)),
     E.UnknownInputError, ('"jump"',)),
    ("send and read: field of the wrong type", lambda w: w.answer.send_and_read("answerChanged", text=5),
     E.InvalidInputError, ('"answerChanged"', '"text"', "expected a string, found a number")),
    ("send and read: field on an input without fields", lambda w: w.counter.send_and_read("increase", by=5),
     E.InvalidInputError, ('no field "by"', "takes no fields")),
]


@pytest.fixture(scope="module")
def world(lib: fusionkit.Library) -> Iterator[World]:
    counter = lib.create("counter")
    answer = lib.create("answer")
    dead = lib.create("counter")
    counter.send("increase")
    counter.send("increase")
    answer.send("answerChanged", text="blue")
    dead.close()
    yield World(lib, counter, answer, dead)
    counter.close()
    answer.close()


def snapshot(instance: fusionkit.Instance) -> tuple[bytes, int]:
    return instance.state_json()


@pytest.mark.parametrize("name,row,expected,words", ROWS, ids=[row[0] for row in ROWS])
def test_bad_input_raises_its_class_and_changes_nothing(
        world: World, name: str, row: Row, expected: type[fusionkit.FusionError] | None, words: tuple[str, ...]) -> None:
    before = snapshot(world.counter), snapshot(world.answer)
    if expected is None:
        row(world)
    else:
        with pytest.raises(expected) as caught:
            row(world)
        error = caught.value
        assert type(error) is expected
        assert error.code == expected.CODE
        assert error.status == world.lib.status_name(expected.CODE or 0)
        assert error.message, "no message"
        for word in words:
            assert word in error.message, f"{error.message!r} lacks {word!r}"
        assert str(error) == f"{error.status}: {error.message}"
    assert (snapshot(world.counter), snapshot(world.answer)) == before, "a live instance's state or version changed"
    # The table's own premise: the counter still reads 2, and the answer "blue".
    assert world.counter.state["value"] == 2 and world.answer.state["answer"] == "blue"


def test_the_table_covers_every_row_of_the_c_table() -> None:
    c_rows = re.findall(r'^\s*\{"([^"]+)", \w+, FK_', (Path(__file__).parents[1] / "abi/c/bad_inputs.c").read_text(),
                        flags=re.M)
    assert len(c_rows) >= 75
    assert sorted(c_rows) == sorted(row[0] for row in ROWS)


def test_message_is_cleared_by_a_successful_call(world: World) -> None:
    with pytest.raises(fusionkit.UnknownInputError):
        world.counter.send("jump")
    assert world.lib.last_error_message().startswith('unknown input "jump"')
    assert world.counter.version == 2
    assert world.lib.last_error_message() == ""


def test_status_names(lib: fusionkit.Library) -> None:
    assert lib.status_name(999) == "FK_ERR_UNKNOWN_STATUS"
    assert lib.status_name(6) == "FK_ERR_UNKNOWN_INPUT"
    for cls in (fusionkit.NullArgumentError, fusionkit.InvalidHandleError, fusionkit.InvalidUTF8Error,
                fusionkit.MalformedJSONError, fusionkit.UnknownFeatureError, fusionkit.UnknownInputError,
                fusionkit.InvalidInputError, fusionkit.InvalidStateError, fusionkit.InvalidArgumentError,
                fusionkit.UnknownSubscriptionError, fusionkit.InternalError, fusionkit.UnknownRequestError,
                fusionkit.InvalidResponseError, fusionkit.LimitExceededError):
        assert cls.CODE is not None
        expected = "FK_ERR_" + re_snake(cls.__name__.removesuffix("Error"))
        assert lib.status_name(cls.CODE) == expected


def re_snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.replace("UTF8", "Utf8").replace("JSON", "Json")).upper()


def test_a_status_newer_than_the_package_still_raises(lib: fusionkit.Library) -> None:
    with pytest.raises(fusionkit.FusionError) as caught:
        lib.check(999, "fk_future")
    assert type(caught.value) is fusionkit.FusionError
    assert caught.value.code == 999 and caught.value.status == "FK_ERR_UNKNOWN_STATUS"


def test_python_side_refusals_use_the_same_classes(counter: fusionkit.Instance) -> None:
    # Text with no UTF-8 form, and numbers ctypes would silently wrap into uint64_t.
    with pytest.raises(fusionkit.InvalidUTF8Error, match="not valid UTF-8"):
        counter.send("\udcff")
    with pytest.raises(fusionkit.InvalidArgumentError, match="out of range"):
        counter.respond(-1, {})
    with pytest.raises(fusionkit.InvalidArgumentError, match="out of range"):
        counter.fail_request(2**64, "x")
    with pytest.raises(fusionkit.InvalidArgumentError, match="not negative"):
        counter.advance_clock(-1.0)
    with pytest.raises(TypeError):
        counter.send(42)  # type: ignore[arg-type]
    assert counter.version == 0


def test_exceptions_are_also_builtin_kinds(counter: fusionkit.Instance) -> None:
    with pytest.raises(ValueError):
        counter.send("jump")
    with pytest.raises(LookupError):
        counter.library.create("teleporter")


@pytest.mark.parametrize("send", [
    lambda w: w.answer.send("answerChanged", text=math.nan),
    lambda w: w.answer.send({"answerChanged": {"text": -math.inf}}),
    lambda w: w.answer.send("answerChanged", text=_circular()),
    lambda w: w.lib.create("counter", settings={"x": math.nan}),
], ids=["nan field", "infinite field", "circular field", "nan setting"])
def test_a_value_json_cannot_hold_is_a_fusion_error(world: World, send: Callable[[World], object]) -> None:
    # Found by an outside probe: json's own ValueError came through, where every refusal
    # is a FusionError (errors.py); nothing reaches the library.
    before = world.answer.version
    with pytest.raises(fusionkit.InvalidArgumentError, match="cannot be written as JSON"):
        send(world)
    assert world.answer.version == before


def test_a_clock_move_beyond_64_bits_of_nanoseconds_is_refused(lib: fusionkit.Library) -> None:
    with lib.create("counter", clock="manual") as counter:
        with pytest.raises(fusionkit.InvalidArgumentError, match="out of range"):
            counter.advance_clock(1e300)  # was an OverflowError from round()


def test_every_64_bit_seed_draws_its_own_numbers(lib: fusionkit.Library) -> None:
    # Found by an outside probe: seeds from 2^63 on were read as doubles (2^63 and 2^63 + 1
    # drew alike, 2^64 - 1 was refused); they go as strings of digits now.
    for seed in (1 << 63, (1 << 63) + 1, (1 << 64) - 1):
        with lib.create("counter", seed=seed, clock="manual") as counter:
            assert counter.checkpoint()["seed"] == str(seed)


def _circular() -> dict[str, object]:
    loop: dict[str, object] = {}
    loop["self"] = loop
    return loop
