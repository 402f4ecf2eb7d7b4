"""How many event loops `fusion serve` runs, and where it handles messages (docs/web.md,
"Threads"): a bridge with no journal handles each connection's messages on the event loop
that reads its socket, and runs one loop more than the machine has cores, so that a loop
sharing its core with another process does not hold up its connections while the other
core is idle; so does one with a file journal and group commit, which waits for each
sync without a thread. A bridge whose every input waits on its thread for the disk
(`--journal-sync each`) keeps one loop per core and handles messages on Swift's pool (as a
PostgreSQL-journaled one does, Tests/cluster). NIO_SINGLETON_GROUP_LOOP_COUNT overrides the
count. The loops are counted by their threads' names in /proc."""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from bridge import Server, event_loop_threads


def event_loops(server: Server) -> int:
    """The bridge's NIO event loop threads."""
    return event_loop_threads(server.process.pid)


def drive(server: Server, sessions: int = 4, inputs: int = 10) -> None:
    """Several sessions' inputs, interleaved: each `ok` carries its input's version, and a
    resync then shows each instance at the count its page sent (nothing lost or doubled)."""
    clients = [server.connect() for _ in range(sessions)]
    try:
        instances = [client.create("counter")[0] for client in clients]
        for step in range(1, inputs + 1):
            ids = [client.send({"type": "send", "instance": instance, "input": "increase"})
                   for client, instance in zip(clients, instances, strict=True)]
            for client, id_ in zip(clients, ids, strict=True):
                ok = client.next("ok", re=id_)
                assert ok["version"] == step, ok
        for client, instance in zip(clients, instances, strict=True):
            _, before = client.call(type="resync", instance=instance)
            whole = [m for m in before if m["type"] == "state" and m["instance"] == instance]
            assert whole and whole[-1]["state"]["value"] == inputs, before
    finally:
        for client in clients:
            client.close()


def test_a_bridge_without_a_journal_runs_one_loop_more_than_the_cores(serve: Callable[..., Server]) -> None:
    server = serve()
    drive(server)
    assert event_loops(server) == (os.cpu_count() or 1) + 1


def test_a_bridge_with_group_commit_runs_one_loop_more_than_the_cores(serve: Callable[..., Server], tmp_path: Path) -> None:
    server = serve("--journal", str(tmp_path))
    drive(server)
    assert event_loops(server) == (os.cpu_count() or 1) + 1


def test_a_bridge_syncing_each_record_runs_one_loop_per_core(serve: Callable[..., Server], tmp_path: Path) -> None:
    server = serve("--journal", str(tmp_path), "--journal-sync", "each")
    drive(server)
    assert event_loops(server) == (os.cpu_count() or 1)


def test_the_environment_says_how_many_loops(serve: Callable[..., Server], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NIO_SINGLETON_GROUP_LOOP_COUNT", "1")
    server = serve()
    drive(server)
    assert event_loops(server) == 1
