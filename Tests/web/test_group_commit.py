"""Group commit (docs/reliability.md, "Group commit"): `fusion serve --journal DIR` lets
the records of every session written during one sync share the next one, and still
acknowledges no input before it is on the disk. Shown from outside: many sessions send
at once, the bridge is killed with SIGKILL in the middle, and the bridge started again
with the journals has every input it acknowledged."""
from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from bridge import Client, Server

SESSIONS = 24
INPUTS = 40  # each session sends them all at once, without waiting for the oks


def _pipelined(server: Server) -> list[tuple[Client, int]]:
    """Opens SESSIONS sessions with a counter each and sends INPUTS increases on each,
    all at once; returns each client with how many inputs it sent."""
    clients = [server.connect() for _ in range(SESSIONS)]
    for client in clients:
        client.create("counter", key="c")
    for client in clients:
        for _ in range(INPUTS):
            client.send({"type": "send", "instance": "c", "input": "increase"})
    return [(client, INPUTS) for client in clients]


def _acknowledged(client: Client, wanted: int) -> int:
    """Reads a client's replies until `wanted` oks came; returns how many did."""
    oks = 0
    while oks < wanted:
        message = client.receive()
        assert message["type"] != "error", message
        if message["type"] == "ok":
            oks += 1
    return oks


@pytest.mark.parametrize("sync", ["group", "each"])
def test_every_acknowledged_input_survives_a_sigkill(serve: Callable[..., Server], tmp_path: Path, sync: str) -> None:
    journals = tmp_path / "journals"
    first = serve("--journal", str(journals), "--journal-sync", sync, "--max-messages-per-second", "100000")
    sent = _pipelined(first)
    # Half of each session's inputs acknowledged, then the process dies on the spot: the
    # rest are in flight (read, being written, waiting for a sync, or not read yet).
    acknowledged = {client.session: _acknowledged(client, INPUTS // 2) for client, _ in sent}
    first.process.kill()
    first.process.wait(timeout=10)
    for client, _ in sent:
        client.close()

    again = serve("--journal", str(journals), "--journal-sync", sync)
    for session, acked in acknowledged.items():
        with again.connect(session) as rejoined:
            assert rejoined.session == session, "the session was resumed from its journal"
            state = rejoined.next("state", instance="c")
            value = state["state"]["value"]
            # Never fewer than acknowledged (an ok means on the disk); never more than sent.
            assert acked <= value <= INPUTS, (session, acked, value)
            assert state["to"] == value, "each journaled input was applied once"
    code, _, err = again.stop()
    assert code == 0
    assert f"Resumed {SESSIONS} sessions" in err


def test_sessions_sending_at_once_share_syncs(serve: Callable[..., Server], tmp_path: Path) -> None:
    """With group commit, records that arrive while a sync runs wait for the next one, so
    under concurrent load there are fewer syncs than records; the bridge says how many
    when it stops."""
    server = serve("--journal", str(tmp_path / "journals"), "--max-messages-per-second", "100000")
    sent = _pipelined(server)
    for client, inputs in sent:
        assert _acknowledged(client, inputs) == inputs
        client.close()
    code, _, err = server.stop()
    assert code == 0
    found = re.search(r"Journals: (\d+) records put on the disk by (\d+) syncs\.", err)
    assert found, err
    records, syncs = int(found.group(1)), int(found.group(2))
    assert records == SESSIONS * INPUTS
    assert 0 < syncs < records, f"{records} records took {syncs} syncs: none shared"
    # Every journal holds its session's inputs, in order, each line checksummed.
    for journal in (tmp_path / "journals").glob("*/1.journal"):
        lines = journal.read_text().splitlines()
        assert [json.loads(line.rsplit(" ", 1)[0]) for line in lines[1:]] == [{"send": "increase"}] * INPUTS


def test_journal_sync_needs_a_journal(fusion: Path) -> None:
    refused = subprocess.run([str(fusion), "serve", "--journal-sync", "each"], capture_output=True, text=True, timeout=30)
    assert refused.returncode == 64, refused
    assert "--journal-sync is for --journal DIR" in refused.stderr


def test_a_bridge_journal_is_checkpointed_and_resumes(serve: Callable[..., Server], tmp_path: Path) -> None:
    """A long session's journal in the bridge is replaced by a checkpoint every hundred
    records (docs/reliability.md, "Checkpoints"); killed and started again, the bridge
    resumes it from the checkpoint and the records after it."""
    journals = tmp_path / "journals"
    first = serve("--journal", str(journals), "--max-messages-per-second", "100000")
    client = first.connect()
    client.create("counter", key="c")
    for _ in range(250):
        client.send({"type": "send", "instance": "c", "input": "increase"})
    assert _acknowledged(client, 250) == 250
    journal = journals / client.session / "1.journal"
    lines = [json.loads(line.rsplit(" ", 1)[0]) for line in journal.read_text().splitlines()]
    assert list(lines[1]) == ["checkpoint"] and lines[1]["checkpoint"]["state"]["value"] >= 150, lines[1]
    assert len(lines) < 1 + 100, "a checkpoint and fewer than a hundred records since"
    first.process.kill()
    first.process.wait(timeout=10)
    client.close()
    again = serve("--journal", str(journals))
    with again.connect(client.session) as rejoined:
        state = rejoined.next("state", instance="c")
        assert state["state"]["value"] == 250 and state["to"] == 250
