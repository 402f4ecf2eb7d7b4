"""Instances through the package: inputs in every form, state and version, creation
options, patches, the manual clock, and the lifetime rules (close, with, garbage
collection: the native instance is freed exactly once; use after close raises)."""
from __future__ import annotations

import gc
import json
import threading
from collections.abc import Callable
from typing import Any

import fusionkit
import pytest
from fusionkit import _lifetime


def test_counter_spec(counter: fusionkit.Instance) -> None:
    assert counter.snapshot() == ({"value": 0, "isReset": False, "alert": None}, 0)
    counter.send("increase")
    counter.send("increase")
    counter.send({"decrease": {}})
    assert counter.state == {"value": 1, "isReset": False, "alert": None}
    counter.send("show")
    assert counter.state["alert"] == "The value is 1."
    counter.send("alertDismissed")
    counter.send_json('{"reset":{}}')
    assert counter.snapshot() == ({"value": 0, "isReset": True, "alert": None}, 6)
    assert counter.version == 6
    text, version = counter.state_json()
    assert (text, version) == (b'{"value":0,"isReset":true,"alert":null}', 6)


def test_inputs_in_every_form(lib: fusionkit.Library) -> None:
    with lib.create("answer") as answer:
        answer.send("answerChanged", text="  hi ")
        assert answer.state["answer"] == "  hi "
        answer.send({"answerChanged": {"text": "두부 🐱"}})  # non-ASCII goes as UTF-8
        assert answer.state == {"answer": "두부 🐱", "isSubmitEnabled": True, "isSubmitting": False,
                                "submitted": None}
        answer.send_json(b'{"answerChanged":{"text":"\\u00e9"}}')
        assert answer.state["answer"] == "é"
        answer.send("answerChanged", text='quote " and \\ backslash')
        assert answer.state["answer"] == 'quote " and \\ backslash'
        with pytest.raises(TypeError, match="either inside the mapping or as keywords"):
            answer.send({"answerChanged": {}}, text="x")
        assert answer.version == 4
    with lib.create("wifi", settings={"liveScan": False}) as wifi:
        wifi.send("networkTapped", id="blob")
        assert wifi.state["destination"]["connect"]["network"]["id"] == "blob"
        wifi.send("wifiToggled", isOn=False)
        assert wifi.state["isOn"] is False and wifi.state["destination"] is None


def test_the_host_says_who_is_signed_in(lib: fusionkit.Library) -> None:
    with lib.create("profile", user={"subject": "alice", "claims": {"name": "Alice Example"}}) as profile:
        assert profile.state["signedInAs"] == "Alice Example"
    with lib.create("profile", requests="host") as profile:
        assert profile.state["signedInAs"] is None
    with pytest.raises(fusionkit.FusionError, match="subject"):
        lib.create("profile", user={"claims": {}})


def test_state_is_a_copy(counter: fusionkit.Instance) -> None:
    state = counter.state
    state["value"] = 99
    assert counter.state["value"] == 0


def test_create_with_a_state(lib: fusionkit.Library) -> None:
    start = {"value": 41, "isReset": False, "alert": None}
    with lib.create("counter", state=start) as counter:  # fk_create with a state
        counter.send("increase")
        assert counter.snapshot() == ({"value": 42, "isReset": False, "alert": None}, 1)
    with lib.create("counter", state=json.dumps(start)) as counter:  # as JSON text
        assert counter.state == start
    with lib.create("counter", state=start, clock="manual") as counter:  # fk_create_with_options
        assert counter.state == start
    with lib.create("counter", state='{"value":0,"isReset":true,"alert":"x"}', seed=3) as counter:
        assert counter.state == {"value": 0, "isReset": True, "alert": "x"}
    with lib.create("counter", options={"state": start, "seed": 1}) as counter:
        assert counter.state == start
    with pytest.raises(TypeError, match="either as `options` or as keywords"):
        lib.create("counter", options={}, seed=1)


def test_seed_repeats_what_home_draws(lib: fusionkit.Library) -> None:
    def draws(seed: int) -> list[str]:
        with lib.create("home", seed=seed) as home:
            out = []
            for tap in ("viewDidLoad", "tap1", "tap2", "tap1", "tap2", "tap1"):
                home.send(tap)
                out.append(home.state["desc"])
            return out

    first = draws(7)
    assert first == draws(7)
    assert first[0].startswith("Number ") and first[1].startswith("Tap1 Number ")
    assert any(draws(seed) != first for seed in (8, 9, 10))


def test_manual_clock(lib: fusionkit.Library) -> None:
    with lib.create("answer", clock="manual") as answer:
        answer.send("answerChanged", text=" blue ")
        answer.send("submitTapped")
        assert answer.state["isSubmitting"] is True
        answer.advance_clock(0.4)
        assert answer.state["isSubmitting"] is True  # time stands still but for the clock
        answer.advance_clock(nanoseconds=100_000_000)  # 0.5 s in all: the submission lands before this returns
        assert answer.snapshot() == ({"answer": "", "isSubmitEnabled": False, "isSubmitting": False,
                                      "submitted": "blue"}, 3)
        answer.advance_clock()  # by 0: only lets effects settle
        with pytest.raises(TypeError):
            answer.advance_clock(1.0, nanoseconds=5)


def test_a_manual_clock_stops_at_its_end_and_a_checkpoint_says_its_time_exactly(lib: fusionkit.Library) -> None:
    """A manual clock stops 2^63 - 1 ns after its start (fusionkit.h, fk_advance_clock):
    moves past it stop there, an effect asleep past it never wakes and is not counted by
    fk_next_wake, and a checkpoint then says the clock's time exactly (it was cut short,
    or wrapped, once the clock had passed 2^63 ns)."""
    end = 2**63 - 1
    with lib.create("answer", clock="manual") as answer:
        answer.advance_clock(nanoseconds=end - 100_000_000)  # 0.1 s before the end
        answer.send("answerChanged", text="late")
        answer.send("submitTapped")  # its effect sleeps 0.5 s: past the end
        assert answer.next_wake() is None
        answer.advance_clock(nanoseconds=2**64 - 1)
        answer.advance_clock(nanoseconds=2**64 - 1)
        assert answer.state["isSubmitting"] is True  # it never woke
        assert answer.next_wake() is None
    with lib.create("counter", clock="manual") as counter:
        for _ in range(3):  # 3 x (2^64 - 1) ns would pass 2^63 and 2^64 alike
            counter.advance_clock(nanoseconds=2**64 - 1)
        counter.send("increase")
        checkpoint = counter.checkpoint()
        assert checkpoint["clock"] == end
        with lib.create("counter", options={"clock": "manual", "checkpoint": checkpoint}) as resumed:
            assert resumed.checkpoint() == checkpoint
        with pytest.raises(fusionkit.InvalidArgumentError, match="past the manual clock's end"):
            lib.create("counter", options={"clock": "manual", "checkpoint": {**checkpoint, "clock": end + 1}})
    with lib.create("answer", clock="manual") as answer:  # a sleeper due exactly at the end wakes there
        answer.advance_clock(nanoseconds=end - 500_000_000)
        answer.send("answerChanged", text="on time")
        answer.send("submitTapped")
        assert answer.next_wake() == 500_000_000
        answer.advance_clock(nanoseconds=2**64 - 1)
        assert answer.state["submitted"] == "on time"


def test_a_checkpoint_past_the_largest_version_is_refused(lib: fusionkit.Library) -> None:
    """A checkpoint made up to start at version 2^63 was taken, and fk_history and
    fk_state_patch then wrote the versions negative: a checkpoint starts at most at
    2^53 - 1, what every front end's JSON reader reads exactly (fusionkit.h)."""
    with lib.create("counter", clock="manual") as counter:
        checkpoint = counter.checkpoint()
    largest = 2**53 - 1
    with lib.create("counter", options={"clock": "manual", "history": 2,
                                        "checkpoint": {**checkpoint, "version": largest - 1}}) as far:
        far.send("increase")
        assert far.version == largest
        assert [entry.version for entry in far.history().entries] == [largest - 1, largest]
        assert far.state_patch(largest - 1)["to"] == largest
    for version in (largest + 1, 2**63 - 1, 2**63):
        with pytest.raises(fusionkit.InvalidArgumentError, match="past the largest version"):
            lib.create("counter", options={"clock": "manual", "checkpoint": {**checkpoint, "version": version}})


@pytest.mark.parametrize("written", ["3", "3.0", "3e0", "0.3e1"])
def test_a_whole_number_option_takes_every_way_json_writes_it(lib: fusionkit.Library, written: str) -> None:
    """`1e2` was taken for "seed" and refused for "history" and "stateVersion": one number
    to JSON, so every option that counts takes each spelling, and a fraction none."""
    from_integer = lib.create("counter", options='{"history": 3, "seed": 3}')
    spelled = lib.create("counter", options=f'{{"history": {written}, "seed": {written}}}')
    with from_integer, spelled:
        for instance in (from_integer, spelled):
            for _ in range(5):
                instance.send("increase")
        assert len(spelled.history().entries) == len(from_integer.history().entries) == 3
    one = written.replace("3", "1")
    with lib.create("counter", options=f'{{"state": {{"value": 2, "isReset": false}}, "stateVersion": {one}}}') as restored:
        assert restored.state["value"] == 2
    for key in ("history", "seed", "stateVersion"):
        with pytest.raises(fusionkit.InvalidArgumentError, match=key):
            lib.create("counter", options=f'{{"state": {{"value": 2, "isReset": false}}, "{key}": 2.5}}')


def test_state_patch(counter: fusionkit.Instance) -> None:
    first = counter.state_patch(0)
    assert first == {"from": 0, "to": 0, "patch": []}
    counter.send("increase")
    counter.send("show")
    assert counter.state_patch(0) == {"from": 0, "to": 2, "patch": [
        {"op": "replace", "path": "/value", "value": 1},
        {"op": "replace", "path": "/alert", "value": "The value is 1."}]}
    assert counter.state_patch(2)["patch"] == []
    far = counter.state_patch(12345)
    assert far == {"from": None, "to": 2, "state": counter.state}


def test_use_after_close_raises_and_never_crashes(lib: fusionkit.Library) -> None:
    instance = lib.create("counter")
    subscription = instance.subscribe(lambda version: None)
    instance.close()
    assert instance.closed and "closed" in repr(instance)
    assert not subscription.active
    subscription.unsubscribe()  # ended with the instance: nothing to do
    instance.close()  # again: nothing
    calls: list[Callable[[], object]] = [
        lambda: instance.send("increase"), lambda: instance.send_json('"increase"'), lambda: instance.state,
        lambda: instance.version, lambda: instance.snapshot(), lambda: instance.state_patch(0),
        lambda: instance.subscribe(lambda version: None), lambda: instance.advance_clock(1),
        lambda: instance.set_request_handler(lambda event: None), lambda: instance.set_request_handler(None),
        lambda: instance.poll_request(), lambda: instance.respond(1, {}), lambda: instance.fail_request(1, "x"),
    ]
    for call in calls:
        with pytest.raises(fusionkit.InvalidHandleError, match="not a live instance"):
            call()


class DestroyCounter:
    """Counts fk_destroy calls per handle, still calling the real function."""

    def __init__(self, lib: fusionkit.Library) -> None:
        self.real = lib.c.fk_destroy
        self.calls: dict[int, list[int]] = {}
        self.lock = threading.Lock()

    def __call__(self, handle: int) -> int:
        status: int = self.real(handle)
        with self.lock:
            self.calls.setdefault(handle, []).append(status)
        return status


def test_close_and_with_destroy_exactly_once(lib: fusionkit.Library, monkeypatch: pytest.MonkeyPatch) -> None:
    spy = DestroyCounter(lib)
    monkeypatch.setattr(lib.c, "fk_destroy", spy)
    with lib.create("counter") as instance:
        instance.send("increase")
    instance.close()
    other = lib.create("counter")
    other.close()
    other.close()
    del other
    gc.collect()
    assert _lifetime.reaper.flush(10)
    assert spy.calls == {instance.handle: [0], spy_handle(spy, instance.handle): [0]}


def spy_handle(spy: DestroyCounter, known: int) -> int:
    others = [handle for handle in spy.calls if handle != known]
    assert len(others) == 1
    return others[0]


def test_garbage_collection_destroys_exactly_once(lib: fusionkit.Library, monkeypatch: pytest.MonkeyPatch) -> None:
    spy = DestroyCounter(lib)
    monkeypatch.setattr(lib.c, "fk_destroy", spy)
    instance = lib.create("counter")
    handle = instance.handle
    # A callback that refers back to its instance makes a reference cycle: only the
    # cyclic collector can free it, and the callback must survive until it is destroyed.
    seen: list[int] = []
    instance.subscribe(lambda version: seen.append(instance.version))  # noqa: F821 (the cycle is the point)
    instance.send("increase")
    assert seen == [1]
    del instance
    gc.collect()
    assert _lifetime.reaper.flush(10)
    gc.collect()
    assert spy.calls == {handle: [0]}
    # The library agrees: the handle is dead.
    with pytest.raises(fusionkit.InvalidHandleError):
        lib.check(lib.c.fk_destroy(handle))
    assert _lifetime.parked_count() == 0


def test_instances_are_closed_at_interpreter_exit(library_path: Any, clean_env: Callable[..., dict[str, str]]) -> None:
    """An instance left open with an effect under way must not hang or crash the exit:
    atexit closes it while Python can still run its callbacks."""
    import subprocess
    import sys
    from pathlib import Path
    package = Path(__file__).resolve().parents[2] / "bindings/python"
    code = (f"import sys; sys.path.insert(0, {str(package)!r}); import fusionkit\n"
            f"lib = fusionkit.load({str(library_path)!r})\n"
            "wifi = lib.create('wifi')\n"
            "wifi.subscribe(lambda v: print('change', v, flush=True))\n"
            "wifi.send('screenAppeared')\n"  # a live scan ticking on a library thread
            "profile = lib.create('profile'); profile.send('loadAllProfiles')\n"
            "print('leaving', flush=True)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(), timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "leaving"


def test_every_header_function_is_reachable_through_the_package(library_path: Any,
                                                                 wait_until: Callable[..., None]) -> None:
    """Wraps every fk_ function of a fresh Library in a counter (the real function still
    runs) and uses only the public API: each one must have been called."""
    lib = fusionkit.Library(library_path)
    from fusionkit import _native
    counts = {name: 0 for name in _native.PROTOTYPES}
    for name in counts:
        real = getattr(lib.c, name)

        def counting(*args: Any, _real: Any = real, _name: str = name) -> Any:
            counts[_name] += 1
            return _real(*args)

        setattr(lib.c, name, counting)
        if name in lib._hot:  # the round trip's own function objects (no argtypes, GIL kept)
            def counting_hot(*args: Any, _real: Any = lib._hot[name], _name: str = name) -> Any:
                counts[_name] += 1
                return _real(*args)

            lib._hot[name] = counting_hot
    counts["fk_abi_version"] += 1 if lib.abi_version == 1 else 0  # called while loading, before the wrappers
    counts["fk_library_version"] += 1 if lib.version == "0.1.0" else 0
    assert lib.features  # fk_manifest_summary, fk_free
    assert lib.feature("counter").input("increase")  # fk_feature_manifest
    assert lib.manifest.feature("answer").inputs  # fk_manifest
    assert lib.status_name(6) == "FK_ERR_UNKNOWN_INPUT"
    assert lib.limit("subscribers") == 1024  # fk_limit
    with lib.create("counter") as counter:  # fk_create
        with pytest.raises(fusionkit.UnknownInputError):  # fk_last_error_message, fk_status_name
            counter.send("jump")
        with counter.subscribe(lambda version: None):  # fk_subscribe
            counter.send("increase")
        counter.state_patch(0)
        assert counter.version == 1
        assert counter.send_and_read("increase")["value"] == 2  # fk_send_and_read_call
        with pytest.raises(fusionkit.MalformedJSONError):  # fk_send_and_read: a NUL inside goes with its length
            counter.send_and_read_json(b'"inc\x00rease"')
        assert counter.state["value"] == 2  # fk_state_into
        assert counter.state_json()[1] == 2  # fk_state
    with lib.create("profile", requests="host", clock="manual") as profile:  # fk_create_with_options
        profile.advance_clock(0)
        profile.send("loadAllProfiles")
        wait_until(lambda: profile.state["pending"] == ["pet", "family", "preschool", "babyProfile"], "loading")
        events: list[fusionkit.HostEvent] = []

        def polled_four() -> bool:
            event = profile.poll_request()
            if event is not None:
                events.append(event)
            return len(events) == 4

        wait_until(polled_four, "four requests")
        profile.advance_clock(0)
        assert profile.pending() == (4, 4)  # fk_pending: four fetches wait on four requests
        assert profile.next_wake() is None  # fk_next_wake: they wait on the host, not the clock
        profile.respond(events[0].id, {"name": "Dubu", "species": "cat", "age": 4})
        profile.set_request_handler(lambda event: None)
        profile.fail_request(events[1].id, "down")
    with lib.create("counter", history=4) as travelling:
        travelling.send("increase")
        assert travelling.history()  # fk_history
        assert travelling.goto(0) == 2  # fk_goto
        # Text holding a NUL cannot go through fk_send_and_read_call, so fk_send_and_read
        # gets it, with its length, and refuses it.
        with pytest.raises(fusionkit.MalformedJSONError):
            travelling.send_and_read_json(b'"increase"\x00')
    with lib.create("counter", clock="manual") as written:
        written.send("increase")
        checkpoint = written.checkpoint()  # fk_checkpoint
        written.restart_effects()  # fk_restart_effects: the Counter has none to restart
        with lib.create("counter", options={"clock": "manual", "checkpoint": checkpoint}) as resumed:
            assert resumed.snapshot() == ({"value": 1, "isReset": False, "alert": None}, 1)
    missing = [name for name, count in counts.items() if count == 0]
    assert missing == [], f"not reached through the package: {missing}"


def test_destroying_a_stale_handle_leaves_the_instance_now_in_its_slot_alone(lib: fusionkit.Library) -> None:
    """A handle destroyed twice is refused the second time, and nothing else happens: the
    instance made since, which the table may have put in the same slot, stays alive."""
    from ctypes import byref, c_uint64
    stale = c_uint64()
    lib.check(lib.c.fk_create(b"counter", 7, None, 0, byref(stale)))
    lib.check(lib.c.fk_destroy(stale.value))
    made_since = [c_uint64() for _ in range(8)]  # the freed slot is among the next ones taken
    for handle in made_since:
        lib.check(lib.c.fk_create(b"counter", 7, None, 0, byref(handle)))
    with pytest.raises(fusionkit.InvalidHandleError):
        lib.check(lib.c.fk_destroy(stale.value))
    for handle in made_since:
        lib.check(lib.c.fk_send(handle.value, b'"increase"', 10))
        lib.check(lib.c.fk_destroy(handle.value))
