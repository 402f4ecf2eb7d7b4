"""Changes and host requests: callbacks on the sending thread and on the library's
effect threads, exceptions inside callbacks, callback lifetimes, asyncio delivery."""
from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any

import fusionkit
import pytest
from fusionkit import _lifetime

PET = {"name": "Dubu", "species": "cat", "age": 4}
FAMILY = {"members": [{"name": "Yuna", "relation": "mother"}]}
SCHOOL = {"name": "Maple", "className": "Owls", "teacher": "Mr. Seo"}
BABY = {"name": "Haneul", "birthDate": "2024-02-29", "heightCm": 84, "weightKg": 11.2}
ANSWERS = {"fetchPet": PET, "fetchFamily": FAMILY, "fetchPreschool": SCHOOL, "fetchBabyProfile": BABY}


def test_changes_on_the_sending_thread(counter: fusionkit.Instance, main_thread_ident: int) -> None:
    heard: list[tuple[int, int]] = []
    subscription = counter.subscribe(lambda version: heard.append((version, threading.get_ident())))
    counter.send("increase")
    counter.send("show")
    with pytest.raises(fusionkit.UnknownInputError):
        counter.send("jump")  # refused: no change, no call
    assert heard == [(1, main_thread_ident), (2, main_thread_ident)]
    assert subscription.active
    subscription.unsubscribe()
    assert not subscription.active
    counter.send("increase")
    assert len(heard) == 2
    subscription.unsubscribe()  # again: nothing


def test_subscription_as_context_manager(counter: fusionkit.Instance) -> None:
    heard: list[int] = []
    with counter.subscribe(heard.append) as subscription:
        counter.send("increase")
        assert isinstance(subscription.id, int) and subscription.id > 0
    counter.send("increase")
    assert heard == [1]


def test_wifi_join_arrives_from_an_effect_thread(lib: fusionkit.Library, main_thread_ident: int) -> None:
    """The real one-second join, on the system clock: its result is a change made on a
    library thread, heard by the callback there."""
    arrived: queue.Queue[tuple[int, int, dict[str, Any]]] = queue.Queue()
    with lib.create("wifi", settings={"liveScan": False}) as wifi:
        wifi.subscribe(lambda version: arrived.put((version, threading.get_ident(), wifi.state)))
        wifi.send("networkTapped", id="blob")
        wifi.send("passwordChanged", password="blob")
        wifi.send("joinButtonTapped")
        for _ in range(3):
            _, ident, _ = arrived.get(timeout=5)
            assert ident == main_thread_ident
        assert wifi.state["destination"]["connect"]["isConnecting"] is True
        version, ident, state = arrived.get(timeout=10)
        assert ident != main_thread_ident, "the join's result should come from a library thread"
        assert version == 4
        assert state["selectedNetworkID"] == "blob" and state["destination"] is None


def test_profile_builtin_answers_arrive_from_effect_threads(lib: fusionkit.Library, main_thread_ident: int) -> None:
    heard: queue.Queue[tuple[int, int]] = queue.Queue()
    with lib.create("profile") as profile:
        profile.subscribe(lambda version: heard.put((version, threading.get_ident())))
        profile.send("loadAllProfiles")
        assert heard.get(timeout=5) == (1, main_thread_ident)
        later = [heard.get(timeout=10) for _ in range(4)]
        assert [version for version, _ in later] == [2, 3, 4, 5]  # in order, one at a time
        assert all(ident != main_thread_ident for _, ident in later)
        state = profile.state
        assert state["isLoading"] is False and state["pet"] == {"name": "Mochi", "species": "dog", "age": 3}


def test_manual_clock_changes_are_reported_before_advance_returns(lib: fusionkit.Library) -> None:
    with lib.create("answer", clock="manual") as answer:
        heard: list[int] = []
        answer.subscribe(heard.append)
        answer.send("answerChanged", text="blue")
        answer.send("submitTapped")
        answer.advance_clock(0.5)
        assert heard == [1, 2, 3]


def test_an_exception_in_a_callback_is_reported_not_raised(counter: fusionkit.Instance,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []

    def broken(version: int) -> None:
        calls.append(version)
        raise RuntimeError(f"broken at {version}")

    counter.subscribe(broken)
    with caplog.at_level(logging.ERROR, logger="fusionkit"):
        counter.send("increase")  # returns normally: the library never sees the exception
        counter.send("increase")
    assert calls == [1, 2]
    assert counter.state["value"] == 2
    assert [str(error) for error in counter.callback_errors] == ["broken at 1", "broken at 2"]
    assert counter.callback_error_count == 2
    for _ in range(fusionkit.Instance.MAX_KEPT_ERRORS):
        counter.send("increase")
    assert len(counter.callback_errors) == fusionkit.Instance.MAX_KEPT_ERRORS  # the newest are kept
    assert str(counter.callback_errors[-1]) == f"broken at {2 + fusionkit.Instance.MAX_KEPT_ERRORS}"
    assert counter.callback_error_count == 2 + fusionkit.Instance.MAX_KEPT_ERRORS
    assert "exception in fusionkit callback" in caplog.text and "RuntimeError: broken at 2" in caplog.text


def test_an_exception_on_a_library_thread_is_reported(lib: fusionkit.Library, wait_until: Callable[..., None],
                                                      caplog: pytest.LogCaptureFixture) -> None:
    with lib.create("profile") as profile, caplog.at_level(logging.ERROR, logger="fusionkit"):
        profile.subscribe(lambda version: 1 / 0)
        profile.send("loadAllProfiles")
        wait_until(lambda: len(profile.callback_errors) == 5, "five failed callbacks")
        assert all(isinstance(error, ZeroDivisionError) for error in profile.callback_errors)
        assert profile.state["isLoading"] is False
    assert caplog.text.count("ZeroDivisionError") >= 5


def test_callbacks_are_kept_alive_while_the_library_may_call_them(counter: fusionkit.Instance) -> None:
    heard: list[int] = []

    class Listener:
        def __call__(self, version: int) -> None:
            heard.append(version)

    listener = Listener()
    gone = weakref.ref(listener)
    subscription = counter.subscribe(listener)
    del listener
    gc.collect()
    counter.send("increase")  # the only reference is the package's: it must still work
    assert heard == [1] and gone() is not None
    subscription.unsubscribe()
    gc.collect()
    assert gone() is None, "released once unsubscribe returned"


def test_unsubscribing_from_inside_the_callback(counter: fusionkit.Instance) -> None:
    heard: list[int] = []
    box: list[fusionkit.Subscription] = []

    def once(version: int) -> None:
        heard.append(version)
        box[0].unsubscribe()

    box.append(counter.subscribe(once))
    counter.send("increase")
    counter.send("increase")
    assert heard == [1]
    # Parked while its own call was running, then dropped by the next release outside callbacks.
    with counter.subscribe(lambda version: None):
        pass
    assert _lifetime.parked_count() == 0


def test_a_callback_may_send_to_its_own_instance(counter: fusionkit.Instance) -> None:
    heard: list[int] = []

    def echo(version: int) -> None:
        heard.append(version)
        if counter.state["value"] < 3:
            counter.send("increase")  # reported after this callback returns

    counter.subscribe(echo)
    counter.send("increase")
    assert counter.state["value"] == 3 and heard == [1, 2, 3]


def test_closing_from_inside_a_callback(lib: fusionkit.Library) -> None:
    instance = lib.create("counter")
    heard: list[int] = []

    def close_now(version: int) -> None:
        heard.append(version)
        instance.close()

    instance.subscribe(close_now)
    instance.send("increase")
    assert instance.closed and heard == [1]
    with pytest.raises(fusionkit.InvalidHandleError):
        instance.send("increase")
    with lib.create("counter"):
        pass
    assert _lifetime.parked_count() == 0


def test_host_requests_answered_by_a_handler(lib: fusionkit.Library, wait_until: Callable[..., None]) -> None:
    """The four profile fetches, answered from the test's thread after the handler
    collected them on the library's threads."""
    events: queue.Queue[fusionkit.HostEvent] = queue.Queue()
    with lib.create("profile") as profile:
        profile.set_request_handler(events.put)
        profile.send("loadAllProfiles")
        requests = [events.get(timeout=5) for _ in range(4)]
        assert all(event.is_request and event.payload == {"profileID": "baby-1"} for event in requests)
        assert sorted(event.kind or "" for event in requests) == sorted(ANSWERS)
        pet = next(event for event in requests if event.kind == "fetchPet")  # they come in any order
        with pytest.raises(fusionkit.InvalidResponseError, match=r"\$\.name: expected a string"):
            profile.respond(pet.id, {"name": 3})
        for event in reversed(requests):  # the bad answer left the request open
            profile.respond(event.id, ANSWERS[event.kind or ""])
        wait_until(lambda: profile.state["isLoading"] is False, "the four answers to land")
        state = profile.state
        assert (state["pet"], state["family"], state["school"]) == (PET, FAMILY, SCHOOL)
        assert state["babyProfile"] == {"name": "Haneul", "birthDate": "2024-02-29", "heightCm": 84, "weightKg": 11.2}
        with pytest.raises(fusionkit.UnknownRequestError):
            profile.respond(pet.id, PET)  # answered already

        # Load again; one fetch fails, the three others are cancelled.
        profile.send("retryTapped")
        again = [events.get(timeout=5) for _ in range(4)]
        family = next(event for event in again if event.kind == "fetchFamily")
        profile.fail_request(family.id, "the server is down")
        cancelled = {events.get(timeout=5).id for _ in range(3)}
        assert cancelled == {event.id for event in again} - {family.id}
        wait_until(lambda: profile.state["error"] is not None, "the error")
        assert profile.state["error"] == "Could not load the family profile: the server is down"


def test_host_requests_polled_and_cancelled_at_close(lib: fusionkit.Library, wait_until: Callable[..., None]) -> None:
    profile = lib.create("profile", requests="host")
    assert profile.poll_request() is None
    profile.send("loadAllProfiles")
    polled: list[fusionkit.HostEvent] = []

    def polled_four() -> bool:
        event = profile.poll_request()
        if event is not None:
            polled.append(event)
        return len(polled) == 4

    wait_until(polled_four, "four polled requests")
    assert len(polled) == 4 and all(event.is_request for event in polled)
    # A handler set now hears the cancellations that closing sends, before close returns.
    told: list[fusionkit.HostEvent] = []
    profile.set_request_handler(told.append)
    profile.close()
    assert sorted(event.id for event in told) == sorted(event.id for event in polled)
    assert all(event.is_cancel and event.kind is None for event in told)


def test_replacing_and_removing_the_request_handler(lib: fusionkit.Library) -> None:
    first: list[fusionkit.HostEvent] = []
    second: list[fusionkit.HostEvent] = []
    with lib.create("profile", clock="manual") as profile:
        profile.set_request_handler(first.append)
        profile.set_request_handler(None)  # requests now wait for poll_request
        profile.send("loadAllProfiles")
        profile.advance_clock(0)
        assert first == []
        profile.set_request_handler(second.append)  # the waiting ones are handed over before it returns
        assert len(second) == 4 and profile.poll_request() is None


def test_a_handler_may_answer_at_once(lib: fusionkit.Library, wait_until: Callable[..., None]) -> None:
    with lib.create("profile") as profile:
        def answer(event: fusionkit.HostEvent) -> None:
            if event.is_request:
                profile.respond(event.id, ANSWERS[event.kind or ""])

        profile.set_request_handler(answer)
        profile.send("loadAllProfiles")
        wait_until(lambda: profile.state["isLoading"] is False, "answers given inside the handler")
        assert profile.state["pet"] == PET and not profile.callback_errors


def test_asyncio_changes_arrive_on_the_loop_thread(lib: fusionkit.Library) -> None:
    async def main() -> tuple[list[dict[str, Any]], set[int], int]:
        loop_thread = threading.get_ident()
        threads: set[int] = set()
        states: list[dict[str, Any]] = []
        with lib.create("profile") as profile:
            async with contextlib.aclosing(profile.changes(include_current=True)) as changes:
                async for state in changes:
                    threads.add(threading.get_ident())
                    states.append(state)
                    if len(states) == 1:
                        profile.send("loadAllProfiles")  # then four answers on library threads
                    if not state["isLoading"] and state["pet"] is not None:
                        break
            subscriptions = len(profile._change_trampolines)
        return states, threads - {loop_thread}, subscriptions

    states, other_threads, subscriptions = asyncio.run(asyncio.wait_for(main(), 20))
    assert other_threads == set(), "delivered on another thread than the loop's"
    assert states[0]["isLoading"] is False and states[0]["pet"] is None
    assert states[1]["isLoading"] is True
    assert states[-1]["isLoading"] is False
    assert 3 <= len(states) <= 6
    assert subscriptions == 0, "leaving the iteration unsubscribes"


def test_asyncio_changes_end_when_the_instance_closes(lib: fusionkit.Library) -> None:
    async def main() -> list[int]:
        counter = lib.create("counter")
        values: list[int] = []

        async def consume() -> None:
            async for state in counter.changes():
                values.append(state["value"])

        task = asyncio.create_task(consume())
        await asyncio.sleep(0)
        for _ in range(3):
            counter.send("increase")
        await asyncio.sleep(0.05)
        counter.close()
        await asyncio.wait_for(task, 5)
        return values

    assert asyncio.run(main()) == [1, 2, 3]
