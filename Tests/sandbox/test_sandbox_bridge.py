"""In the bridge (issue 38, deliverable 3): an input on which a sandboxed plugin traps,
loops past its time limit or allocates past its cap is refused with the poison status
at once (no child process replays the session), the session goes on from the state
before it, and with a journal the record is put away so that no replay applies it: the
bridge restarted on the same journal resumes at that state and refuses the input's
message id again. (Tests/cluster/test_poison_sandboxed.py does the same through
PostgreSQL, with another bridge taking the session over.)"""
from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "web"))
from bridge import Client, Server  # noqa: E402


def value_after(client: Client, message: dict) -> int:
    """Sends a message, and reads the instance's value from the last state it was sent."""
    reply, before = client.request(message)
    assert reply["type"] == "ok", reply
    states = [m for m in before + client.drain(0.3) if m.get("type") == "state" and m.get("instance") == "f"]
    return int(states[-1]["state"]["value"])


def test_a_fault_is_refused_at_once_and_the_session_goes_on(fusion: Path, faulty_wasm: Path) -> None:
    server = Server(fusion, "--plugin-time-limit", "300ms", str(faulty_wasm))
    try:
        with server.connect() as page:
            page.create("faulty", key="f")
            assert page.request({"type": "send", "instance": "f", "input": "increase"})[0]["type"] == "ok"
            for fault, words in (("trap", "FK_ERR_PLUGIN_TRAPPED"), ("spin", "FK_ERR_PLUGIN_LIMIT"),
                                 ("hog", "FK_ERR_PLUGIN_LIMIT")):
                start = time.monotonic()
                reply, _ = page.request({"type": "send", "instance": "f", "input": fault})
                assert reply["type"] == "error" and reply["status"] == "BRIDGE_POISON_INPUT", reply
                assert words in reply["message"] and "goes on from the state before it" in reply["message"], reply
                assert time.monotonic() - start < 10
            assert value_after(page, {"type": "send", "instance": "f", "input": "increase"}) == 2
        code, _, errors = server.stop()
        assert code == 0, errors
    finally:
        if server.process.poll() is None:
            server.process.kill()


def test_with_a_journal_the_faulting_record_is_put_away_and_never_replayed(fusion: Path, faulty_wasm: Path,
                                                                           tmp_path: Path) -> None:
    journals = tmp_path / "journals"
    server = Server(fusion, "--journal", str(journals), str(faulty_wasm))
    page = server.connect()
    session = page.session
    page.create("faulty", key="f")
    for number in range(2):
        assert page.request({"type": "send", "id": f"m.{number}", "instance": "f", "input": "increase"})[0]["type"] == "ok"
    reply, _ = page.request({"type": "send", "id": "m.trap", "instance": "f", "input": "trap"})
    assert reply["status"] == "BRIDGE_POISON_INPUT", reply
    assert value_after(page, {"type": "send", "id": "m.2", "instance": "f", "input": "increase"}) == 3
    page.close()
    server.process.send_signal(signal.SIGKILL)  # a crash: only the journal is left
    server.process.wait(timeout=10)

    # A journal line is a record and its CRC (docs/reliability.md).
    records = [json.loads(line.rsplit(" ", 1)[0]) for path in journals.rglob("*") if path.is_file()
               for line in path.read_text().splitlines()]
    marks = [record["poisoned"] for record in records if "poisoned" in record]
    assert len(marks) == 1 and marks[0]["id"] == "m.trap" and marks[0]["version"] == 2, marks

    again = Server(fusion, "--journal", str(journals), str(faulty_wasm))
    try:
        page = again.connect(session=session)
        assert page.welcome["resumed"], page.welcome
        states = [m for m in page.drain(1.0) if m.get("type") == "state" and m.get("instance") == "f"]
        assert states and states[-1]["state"] == {"value": 3}, states
        reply, _ = page.request({"type": "applied", "ids": ["m.1", "m.trap", "m.2"]})
        assert reply["ids"] == ["m.1", "m.2"] and reply["poisoned"] == ["m.trap"], reply
        reply, _ = page.request({"type": "send", "id": "m.trap", "instance": "f", "input": "trap"})
        assert reply["type"] == "error" and reply["status"] == "BRIDGE_POISON_INPUT", reply
        # Said as it happened: the plugin failed; no bridge died.
        assert "sandboxed plugin fail" in reply["message"] and "killed" not in reply["message"], reply
        assert value_after(page, {"type": "send", "id": "m.3", "instance": "f", "input": "increase"}) == 4
        page.close()
    finally:
        again.stop()
