"""A poison input (docs/deploy.md, "Poison inputs"): an input that makes a feature trap
kills the bridge that applies it, and only that one. The bridge that takes the session
over replays its journal in a child process first, puts the input out of the way, and
goes on from the state before it; the client is told the input was refused. The feature
is Tests/libraries/bare_library.c built with -DBARE_POISON: its input "poison" traps."""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from bridge import Client, Server
from cluster import Cluster


def state_count(client: Client, instance: str = "t") -> int:
    states = [m for m in client.drain(0.3) if m.get("type") == "state" and m.get("instance") == instance]
    return int(states[-1]["state"]["count"])


def rejoin(url: str, origin: str, session: str, timeout: float = 30) -> Client:
    deadline = time.monotonic() + timeout
    while True:
        try:
            client = Client(url, origin, session=session)
            assert client.session == session and client.welcome["resumed"], client.welcome
            return client
        except (OSError, ValueError) as error:
            if time.monotonic() > deadline:
                raise AssertionError(f"could not rejoin: {error!r}") from error
            time.sleep(0.1)


def test_a_poison_input_kills_only_the_bridge_that_applied_it(
        make_cluster: Callable[..., Cluster], build_bare_library: Callable[..., Path]) -> None:
    cluster = make_cluster(3, libraries=[build_bare_library(poison=True)])
    url = cluster.url.replace("http://", "ws://") + "/ws"
    page = Client(url, cluster.url)
    session = page.session
    page.create("tally", key="t")
    for number in range(3):
        assert page.request({"type": "send", "id": f"m.{number}", "instance": "t", "input": "add"})[0]["type"] == "ok"
    holder = cluster.postgres.psql(f"SELECT holder FROM fusion_sessions WHERE id = '{session}'")
    victim = next(bridge for bridge in cluster.bridges if holder.endswith(f"port {bridge.port}"))
    page.send({"type": "send", "id": "m.poison", "instance": "t", "input": "poison"})
    assert victim.wait(10) is not None, "the poison input did not kill its bridge"
    assert not victim.alive
    page.close()

    # The page rejoins through nginx; the session resumes on another bridge, at the state
    # before the poison input.
    page = rejoin(url, cluster.url, session)
    assert state_count(page) == 3
    reply, _ = page.request({"type": "applied", "ids": ["m.1", "m.poison"]})
    assert reply["ids"] == ["m.1"] and reply["poisoned"] == ["m.poison"], reply
    # Sent again (a client that never heard), it is refused, and nothing dies.
    reply, _ = page.request({"type": "send", "id": "m.poison", "instance": "t", "input": "poison"})
    assert reply["type"] == "error" and reply["status"] == "BRIDGE_POISON_INPUT", reply
    assert page.request({"type": "send", "id": "m.4", "instance": "t", "input": "add"})[0]["type"] == "ok"
    assert [bridge.alive for bridge in cluster.bridges].count(False) == 1
    journal = cluster.postgres.psql(
        f"SELECT record FROM fusion_records WHERE session_id = '{session}' AND record LIKE '%poisoned%'")
    assert '"poisoned":{"id":"m.poison","record":{"sendBy":{"id":"m.poison","input":"poison"}}}' in journal
    page.close()
    assert state_count(rejoin(url, cluster.url, session)) == 4


def test_a_poison_input_does_not_kill_a_restarted_single_bridge(
        fusion: Path, build_bare_library: Callable[..., Path], tmp_path: Path) -> None:
    library = build_bare_library(poison=True)
    journals = tmp_path / "journals"
    first = Server(fusion, str(library), "--journal", str(journals))
    page = first.connect()
    session = page.session
    page.create("tally", key="t")
    assert page.request({"type": "send", "id": "a", "instance": "t", "input": "add"})[0]["type"] == "ok"
    page.send({"type": "send", "id": "b", "instance": "t", "input": "poison"})
    assert first.process.wait(10) != 0
    # Started again on the same journals, it resumes the session without the poison input.
    second = Server(fusion, str(library), "--journal", str(journals))
    try:
        page = second.connect(session)
        assert page.welcome["resumed"]
        assert state_count(page) == 1
        reply, _ = page.request({"type": "applied", "ids": ["a", "b"]})
        assert reply["ids"] == ["a"] and reply["poisoned"] == ["b"]
        assert second.process.poll() is None
    finally:
        second.stop()
