"""A poison input contained per input, not per id (docs/deploy.md, "Poison inputs"): the
same input on the same state is refused whatever its message id, so a person who clicks
again does not take down the next bridge; a session whose inputs killed two bridges is
quarantined before they reach a third; and a bridge that traps lets go of its sockets and
locks before Swift's backtracer spends seconds on it. The feature is
Tests/libraries/bare_library.c built with -DBARE_POISON: its input "poison" traps."""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import websocket
from bridge import Client, Server
from cluster import Bridge, Cluster
from test_poison import rejoin, state_count

Closed = (websocket.WebSocketException, OSError, ValueError)


def count_of(page: Client, instance: str = "t") -> int:
    """The instance's count, as the bridge has it now (`resync`)."""
    reply, before = page.request({"type": "resync", "instance": instance})
    assert reply["type"] == "ok", reply
    return int([m for m in before if m.get("type") == "state" and m.get("instance") == instance][-1]["state"]["count"])


def down(cluster: Cluster) -> list[Bridge]:
    """The bridges that died, or are dying: a trapping bridge closes its sockets at once
    and then prints its backtrace for seconds before it exits."""
    def answers(bridge: Bridge) -> bool:
        try:
            return bridge.alive and bridge.healthz() == 200
        except OSError:
            return False
    return [bridge for bridge in cluster.bridges if not answers(bridge)]


def holder_of(cluster: Cluster, session: str) -> Bridge:
    holder = cluster.postgres.psql(f"SELECT holder FROM fusion_sessions WHERE id = '{session}'")
    return next(bridge for bridge in cluster.bridges if holder.endswith(f"port {bridge.port}"))


def reply_to(page: Client, id_: str) -> dict[str, Any]:
    while True:
        item = page.receive()
        if item.get("re") == id_ and item.get("type") in ("ok", "error"):
            return item


def send_as_documented(page: Client, url: str, origin: str, message: dict[str, Any]) -> tuple[Client, str]:
    """Sends one `send` as docs/web-protocol.md ("Exactly once") says a client does: when
    the connection drops before the reply, it rejoins, asks `applied`, and sends again
    (same id) what was neither applied nor poisoned. The page in use after it, and the
    outcome: "ok", "poisoned" (named in `applied`) or the error's status."""
    for _ in range(5):
        try:
            page.send(message)
            reply = reply_to(page, message["id"])
            return page, "ok" if reply["type"] == "ok" else reply["status"]
        except Closed:
            session = page.session
            page.close()
            page = rejoin(url, origin, session)
            answer, _ = page.request({"type": "applied", "ids": [message["id"]]})
            if message["id"] in answer.get("poisoned", []):
                return page, "poisoned"
            if message["id"] in answer["ids"]:
                return page, "ok"
    raise AssertionError(f"{message} was never answered")


def test_a_poison_input_sent_again_with_fresh_ids_kills_one_bridge(
        make_cluster: Callable[..., Cluster], build_bare_library: Callable[..., Path]) -> None:
    cluster = make_cluster(3, libraries=[build_bare_library(poison=True)])
    url, origin = cluster.ws_url, cluster.url
    page = Client(url, origin)
    session = page.session
    page.create("tally", key="t")
    for number in range(3):
        assert page.request({"type": "send", "id": f"m.{number}", "instance": "t", "input": "add"})[0]["type"] == "ok"
    outcomes = []
    # A person clicking the same button again and again: a fresh id every time.
    for number in range(10):
        page, outcome = send_as_documented(page, url, origin, {"type": "send", "id": f"p.{number}", "instance": "t", "input": "poison"})
        outcomes.append(outcome)
    dead = down(cluster)
    assert len(dead) == 1, f"{len(dead)} bridges died of one input sent 10 times: {outcomes}"
    assert outcomes[0] == "poisoned" and set(outcomes[1:]) == {"BRIDGE_POISON_INPUT"}, outcomes
    assert count_of(page) == 3
    # One poison input is not a quarantine: the session goes on.
    assert page.request({"type": "send", "id": "m.3", "instance": "t", "input": "add"})[0]["type"] == "ok"
    page.close()
    assert state_count(rejoin(url, origin, session)) == 4


def test_a_session_whose_inputs_killed_two_bridges_is_quarantined(
        make_cluster: Callable[..., Cluster], build_bare_library: Callable[..., Path]) -> None:
    cluster = make_cluster(3, libraries=[build_bare_library(poison=True)])
    url, origin = cluster.ws_url, cluster.url
    page = Client(url, origin)
    session = page.session
    page.create("tally", key="t")
    # Two poison inputs on two states: the content check cannot know the second.
    for round_ in range(2):
        assert page.request({"type": "send", "id": f"m.{round_}", "instance": "t", "input": "add"})[0]["type"] == "ok"
        page, outcome = send_as_documented(page, url, origin, {"type": "send", "id": f"p.{round_}", "instance": "t", "input": "poison"})
        assert outcome == "poisoned", outcome
    assert len(down(cluster)) == 2
    # The third bridge holds the session, quarantined: readable, and nothing changes it.
    assert count_of(page) == 2
    reply, _ = page.request({"type": "send", "id": "m.2", "instance": "t", "input": "add"})
    assert reply["type"] == "error" and reply["status"] == "BRIDGE_SESSION_QUARANTINED", reply
    reply, _ = page.request({"type": "send", "id": "p.2", "instance": "t", "input": "poison"})
    assert reply["type"] == "error" and reply["status"] == "BRIDGE_SESSION_QUARANTINED", reply
    reply, _ = page.request({"type": "create", "feature": "tally", "key": "u"})
    assert reply["type"] == "error" and reply["status"] == "BRIDGE_SESSION_QUARANTINED", reply
    reply, _ = page.request({"type": "destroy", "instance": "t"})
    assert reply["type"] == "error" and reply["status"] == "BRIDGE_SESSION_QUARANTINED", reply
    # A page finds its instance again, and reads it.
    reply, _ = page.request({"type": "create", "feature": "tally", "key": "t", "reuse": True})
    assert reply["type"] == "created" and reply["existing"], reply
    assert count_of(page) == 2
    reply, _ = page.request({"type": "applied", "ids": ["m.1", "p.1"]})
    assert reply["ids"] == ["m.1"] and reply["poisoned"] == ["p.1"], reply
    assert len(down(cluster)) == 2
    page.close()
    page = rejoin(url, origin, session)
    assert state_count(page) == 2


def test_a_trapping_bridge_lets_go_of_its_sessions_before_its_backtrace(
        make_cluster: Callable[..., Cluster], build_bare_library: Callable[..., Path]) -> None:
    """Swift's backtracer keeps a trapping process alive for seconds. Its sockets (and so
    the session's lock in PostgreSQL) go first: the session is taken over while the dead
    bridge is still printing its stacks, not once it has exited."""
    cluster = make_cluster(3, libraries=[build_bare_library(poison=True)])
    url, origin = cluster.ws_url, cluster.url
    page = Client(url, origin)
    session = page.session
    page.create("tally", key="t")
    assert page.request({"type": "send", "id": "m.0", "instance": "t", "input": "add"})[0]["type"] == "ok"
    victim = holder_of(cluster, session)
    start = time.monotonic()
    page.send({"type": "send", "id": "p.0", "instance": "t", "input": "poison"})
    page.close()
    page = rejoin(url, origin, session)
    took = time.monotonic() - start
    still_printing = victim.alive
    assert victim.wait(30) is not None
    print(f"take-over after a trap: {took:.2f} s (the dead bridge still alive then: {still_printing})")
    # Before, the take-over waited for the process to exit (2-5 s here, most of it the
    # backtrace); a bridge without the backtracer exits at once, and then the take-over
    # is as quick as after kill -9 (0.03-0.2 s here).
    assert still_printing or took < 1.0, f"the take-over waited for the trapping bridge to exit ({took:.2f} s)"
    assert state_count(page) == 1


def test_a_restarted_single_bridge_refuses_the_poison_input_under_a_fresh_id(
        fusion: Path, build_bare_library: Callable[..., Path], tmp_path: Path) -> None:
    library = build_bare_library(poison=True)
    journals = tmp_path / "journals"
    first = Server(fusion, str(library), "--journal", str(journals))
    page = first.connect()
    session = page.session
    page.create("tally", key="t")
    assert page.request({"type": "send", "id": "a", "instance": "t", "input": "add"})[0]["type"] == "ok"
    page.send({"type": "send", "id": "b", "instance": "t", "input": "poison"})
    first.process.communicate(timeout=30)  # its backtrace read, so that it never waits on a full pipe
    assert first.process.returncode != 0
    second = Server(fusion, str(library), "--journal", str(journals))
    try:
        page = second.connect(session)
        assert state_count(page) == 1
        reply, _ = page.request({"type": "send", "id": "c", "instance": "t", "input": "poison"})
        assert reply["type"] == "error" and reply["status"] == "BRIDGE_POISON_INPUT", reply
        assert second.process.poll() is None
        assert page.request({"type": "send", "id": "d", "instance": "t", "input": "add"})[0]["type"] == "ok"
        # On the state after it, the same input is another matter: it is applied (and kills
        # this bridge; its restart then finds the session's second poison input).
        page.send({"type": "send", "id": "e", "instance": "t", "input": "poison"})
        second.process.communicate(timeout=30)
        assert second.process.returncode != 0
    finally:
        if second.process.poll() is None:
            second.stop()
    third = Server(fusion, str(library), "--journal", str(journals))
    try:
        page = third.connect(session)
        assert state_count(page) == 2
        reply, _ = page.request({"type": "send", "id": "f", "instance": "t", "input": "add"})
        assert reply["type"] == "error" and reply["status"] == "BRIDGE_SESSION_QUARANTINED", reply
        assert third.process.poll() is None
    finally:
        third.stop()
