"""The one-call round trip: `send_and_read` / `send_and_read_json` (fk_send_and_read) and
the state read into the instance's own buffer (fk_state_into)."""
from __future__ import annotations

import json
import threading
from typing import Any

import fusionkit
import pytest


def test_send_and_read_returns_the_state_right_after_the_input(lib: fusionkit.Library) -> None:
    with lib.create("counter") as counter:
        assert counter.send_and_read("increase") == {"value": 1, "isReset": False, "alert": None}
        assert counter.send_and_read_json(b'"increase"') == (b'{"value":2,"isReset":false,"alert":null}', 2)
        assert counter.send_and_read_json('{"show":{}}') == (b'{"value":2,"isReset":false,"alert":"The value is 2."}', 3)
        assert counter.send_and_read({"reset": {}})["isReset"] is True
        assert counter.state == {"value": 0, "isReset": True, "alert": "The value is 2."}
        assert counter.version == 4
    with lib.create("answer") as answer:
        state = answer.send_and_read("answerChanged", text="blue")
        assert state["answer"] == "blue" and state["isSubmitEnabled"] is True


def test_a_refused_input_changes_nothing(lib: fusionkit.Library) -> None:
    with lib.create("counter") as counter:
        counter.send_and_read("increase")
        with pytest.raises(fusionkit.UnknownInputError, match='"jump"'):
            counter.send_and_read("jump")
        # A NUL inside the text is sent with its length, not cut at the NUL: the library
        # sees the whole text and names the control character.
        with pytest.raises(fusionkit.MalformedJSONError) as caught:
            counter.send_and_read_json(b'"inc\x00rease"')
        assert "column 5" in str(caught.value)
        assert counter.state_json() == (b'{"value":1,"isReset":false,"alert":null}', 1)


def test_a_state_larger_than_the_buffer_is_read_whole(lib: fusionkit.Library) -> None:
    with lib.create("wifi") as wifi:
        state = wifi.state
        networks = [{"id": f"n{i}", "name": f"Network {i}", "isSecured": i % 2 == 0, "connectivity": 0.25,
                     "signalBars": 1, "signalPercent": 25}
                    for i in range(400)]
        state["foundNetworks"] = networks
        state["otherNetworks"] = networks
    with lib.create("wifi", state=state, settings={"liveScan": False}) as wifi:
        text, version = wifi.send_and_read_json('{"networkTapped":{"id":"n3"}}')
        assert len(text) > 20_000
        assert (text, version) == wifi.state_json()
        assert json.loads(text)["selectedNetworkID"] == "n3"
        assert wifi.state == json.loads(text)
        # And again, now that the instance's buffer has grown to fit.
        assert wifi.send_and_read_json('{"networkTapped":{"id":"n4"}}')[1] == version + 1


def test_two_threads_each_get_the_state_their_own_input_produced(lib: fusionkit.Library) -> None:
    per_thread = 3000
    seen: list[list[tuple[int, int]]] = [[], []]
    start = threading.Barrier(2)

    def run(index: int) -> None:
        start.wait()
        for _ in range(per_thread):
            text, version = counter.send_and_read_json(b'"increase"')
            seen[index].append((json.loads(text)["value"], version))

    with lib.create("counter") as counter:
        threads = [threading.Thread(target=run, args=(index,)) for index in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for pairs in seen:
            assert all(value == version for value, version in pairs)
            versions = [version for _, version in pairs]
            assert versions == sorted(versions)
        assert sorted(version for pairs in seen for _, version in pairs) == list(range(1, 2 * per_thread + 1))
        assert counter.version == 2 * per_thread


def test_a_callback_may_send_and_read_on_the_same_instance(lib: fusionkit.Library) -> None:
    inner: list[tuple[bytes, int]] = []
    with lib.create("counter") as counter:
        def on_change(version: int) -> None:
            if version == 1:
                inner.append(counter.send_and_read_json(b'"increase"'))

        counter.subscribe(on_change)
        outer = counter.send_and_read_json(b'"increase"')
        # Each call returns the state its own input produced, though the callback's
        # input was applied before the outer call returned.
        assert outer == (b'{"value":1,"isReset":false,"alert":null}', 1)
        assert inner == [(b'{"value":2,"isReset":false,"alert":null}', 2)]
        assert counter.version == 2


def test_a_library_without_the_one_call_functions_still_works(library_path: Any) -> None:
    lib = fusionkit.Library(library_path)
    # As with a library built before fk_send_and_read and fk_state_into existed.
    lib._hot.clear()
    with lib.create("counter") as counter:
        assert counter.send_and_read("increase")["value"] == 1
        assert counter.send_and_read_json(b'"increase"') == (b'{"value":2,"isReset":false,"alert":null}', 2)
        assert counter.state["value"] == 2


def test_a_library_without_the_call_struct_function_still_works(library_path: Any) -> None:
    lib = fusionkit.Library(library_path)
    # As with a library built after fk_send_and_read but before fk_send_and_read_call.
    del lib._hot["fk_send_and_read_call"]
    with lib.create("counter") as counter:
        assert counter.send_and_read("increase") == {"value": 1, "isReset": False, "alert": None}
        assert counter.send_and_read_json(b'"increase"') == (b'{"value":2,"isReset":false,"alert":null}', 2)
        with pytest.raises(fusionkit.UnknownInputError):
            counter.send_and_read("jump")
        assert counter.version == 2


def test_the_round_trip_reads_each_instances_own_state(lib: fusionkit.Library) -> None:
    # Each pooled buffer carries its instance's handle (fk_call): two instances used in
    # turn must never read each other's state, nor a refused input the state before it.
    with lib.create("counter") as first, lib.create("answer") as second:
        for value in range(1, 4):
            assert first.send_and_read("increase")["value"] == value
            assert second.send_and_read("answerChanged", text=str(value))["answer"] == str(value)
        with pytest.raises(fusionkit.UnknownInputError):
            first.send_and_read_json(b'"jump"')
        assert first.send_and_read_json(b'"decrease"') == (b'{"value":2,"isReset":false,"alert":null}', 4)


def test_after_close_every_read_is_refused(lib: fusionkit.Library) -> None:
    counter = lib.create("counter")
    counter.close()
    with pytest.raises(fusionkit.InvalidHandleError):
        counter.send_and_read("increase")
    with pytest.raises(fusionkit.InvalidHandleError):
        counter.state


def test_a_state_that_outgrew_the_buffer_comes_with_its_own_version(lib: fusionkit.Library) -> None:
    with lib.create("wifi", settings={"liveScan": False}) as wifi:
        def on_change(version: int) -> None:
            if version == 1:
                wifi.send("wifiToggled", isOn=False)

        wifi.subscribe(on_change)
        # The Wi-Fi state (about 900 bytes) does not fit the first buffer: it is read again
        # after the callback's input, and the version says so.
        text, version = wifi.send_and_read_json('{"networkTapped":{"id":"blob"}}')
        assert (json.loads(text)["isOn"], version) == (False, 2)
        # The buffer has grown: from now on the state is the one the input produced.
        text, version = wifi.send_and_read_json('{"wifiToggled":{"isOn":true}}')
        assert (json.loads(text)["isOn"], version) == (True, 3)


def test_every_kind_of_input_takes_the_right_path(lib: fusionkit.Library) -> None:
    # send_and_read finds a case name sent before with one dict look-up; a mapping
    # (unhashable), a hashable non-input and keyword fields each take the full path.
    class Name(str):
        pass

    with lib.create("counter") as counter, lib.create("answer") as answer:
        assert counter.send_and_read("increase")["value"] == 1
        assert counter.send_and_read(Name("increase"))["value"] == 2
        assert counter.send_and_read({"increase": {}})["value"] == 3
        with pytest.raises(TypeError, match="case name or a mapping"):
            counter.send_and_read(("increase",))  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            counter.send_and_read({"increase": {}}, by=2)
        assert answer.send_and_read("answerChanged", text="x")["answer"] == "x"
        # send_and_read_json: bytes go straight through; str is encoded; nothing else is text.
        assert counter.send_and_read_json('"increase"') == (b'{"value":4,"isReset":false,"alert":null}', 4)
        for wrong in (bytearray(b'"increase"'), memoryview(b'"increase"'), 5):
            with pytest.raises(TypeError, match="must be str or bytes"):
                counter.send_and_read_json(wrong)  # type: ignore[arg-type]
        with pytest.raises(fusionkit.MalformedJSONError):
            counter.send_and_read_json('"inc\x00rease"')  # a NUL inside a str goes with its length too
        assert counter.version == 4
        # Every buffer taken went back to the pool, also after the refusals.
        assert len(counter._buffers) == 1


def test_the_version_read_is_the_one_the_library_wrote(lib: fusionkit.Library) -> None:
    # The version comes from a view laid over the buffer's fk_call struct; it must follow
    # the struct when the buffer grows (the memory is replaced, the struct is not).
    with lib.create("wifi", settings={"liveScan": False}) as wifi:
        for index in range(5):
            text, version = wifi.send_and_read_json(f'{{"networkTapped":{{"id":"n{index}"}}}}')
            assert (text, version) == wifi.state_json()
