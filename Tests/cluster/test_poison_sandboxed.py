"""A sandboxed plugin's poison input through PostgreSQL (issue 38, deliverable 3): the
faulty test plugin (Tests/sandbox/Faulty, built to WebAssembly) traps on "trap". The bridge
that applies it lives: it refuses the input at once (BRIDGE_POISON_INPUT), goes on from the
state before it, and puts the record away in the database (a `poisoned` row naming it).
When that bridge is killed, the bridge that takes the session over replays the journal
without the input (no child process needed) and refuses its message id again."""
from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from bridge import Client
from cluster import Cluster
from test_poison import rejoin

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Wasm"))
import build as wasm_build  # noqa: E402


@pytest.fixture(scope="module")
def faulty_wasm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert not wasm_build.missing(), f"missing: {wasm_build.missing()}"
    return wasm_build.build(tmp_path_factory.mktemp("faulty"), [ROOT / "Tests/sandbox/Faulty/Faulty.swift",
                                                                 ROOT / "Tests/sandbox/Faulty/Library.swift"], "Faulty")


def value(client: Client, before: list[dict]) -> int:
    states = [m for m in before + client.drain(0.3) if m.get("type") == "state" and m.get("instance") == "f"]
    return int(states[-1]["state"]["value"])


def test_a_sandboxed_poison_input_is_refused_at_once_and_put_away_in_the_database(
        make_cluster: Callable[..., Cluster], faulty_wasm: Path) -> None:
    cluster = make_cluster(3, libraries=[faulty_wasm])
    url = cluster.url.replace("http://", "ws://") + "/ws"
    page = Client(url, cluster.url)
    session = page.session
    page.create("faulty", key="f")
    for number in range(2):
        assert page.request({"type": "send", "id": f"m.{number}", "instance": "f", "input": "increase"})[0]["type"] == "ok"
    start = time.monotonic()
    reply, _ = page.request({"type": "send", "id": "m.trap", "instance": "f", "input": "trap"})
    assert reply["type"] == "error" and reply["status"] == "BRIDGE_POISON_INPUT", reply
    # No poison check in a child process: a sandboxed fault never kills a bridge.
    logs = "".join(bridge.log.read_text(errors="replace") for bridge in cluster.bridges)
    assert "poison" not in logs.lower(), logs[-3000:]
    assert "FK_ERR_PLUGIN_TRAPPED" in reply["message"] and time.monotonic() - start < 5, reply
    assert all(bridge.alive for bridge in cluster.bridges), "a sandboxed fault killed a bridge"
    reply, before = page.request({"type": "send", "id": "m.2", "instance": "f", "input": "increase"})
    assert reply["type"] == "ok" and value(page, before) == 3
    rows = cluster.postgres.psql("SELECT record FROM fusion_records WHERE record::text LIKE '%poisoned%'")
    assert '"m.trap"' in rows and '"at"' in rows, rows

    holder = cluster.postgres.psql(f"SELECT holder FROM fusion_sessions WHERE id = '{session}'")
    victim = next(bridge for bridge in cluster.bridges if holder.endswith(f"port {bridge.port}"))
    page.close()
    victim.kill()
    page = rejoin(url, cluster.url, session)
    states = [m for m in page.drain(1.0) if m.get("type") == "state" and m.get("instance") == "f"]
    assert states and states[-1]["state"] == {"value": 3}, states
    reply, _ = page.request({"type": "applied", "ids": ["m.1", "m.trap", "m.2"]})
    assert reply["ids"] == ["m.1", "m.2"] and reply["poisoned"] == ["m.trap"], reply
    reply, _ = page.request({"type": "send", "id": "m.trap", "instance": "f", "input": "trap"})
    assert reply["type"] == "error" and reply["status"] == "BRIDGE_POISON_INPUT", reply
    # No poison check in a child process: a sandboxed fault never kills a bridge.
    logs = "".join(bridge.log.read_text(errors="replace") for bridge in cluster.bridges)
    assert "poison" not in logs.lower(), logs[-3000:]
