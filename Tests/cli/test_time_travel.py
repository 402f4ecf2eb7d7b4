"""Time travel and recording in `fusion run` (in a real terminal, through tmux) and
`fusion replay`, as a QA engineer uses them: go back, branch, save a session as it is
played, replay it, and see where a replay stops differing."""
from __future__ import annotations

import json
import time
from pathlib import Path

from fusion_cli import run


def test_history_back_and_goto_in_a_terminal(tmux, fusion):
    tmux.start(str(fusion), "run", "counter")
    tmux.wait_for('v0 {"value":0,')
    for _ in range(3):
        tmux.type("increase")
    tmux.wait_for('v3 {"value":3,')
    tmux.type(":history")
    screen = tmux.wait_for("4 versions kept (at most 1000)")
    assert "v0  start" in screen and "v1  increase" in screen and "→ v3  increase" in screen
    tmux.type(":back 2")
    tmux.wait_for('v4 (the state of v1) {"value":1,')
    tmux.type(":diff")
    tmux.wait_for(":back 2 changed (v3 → v4):")
    tmux.type("decrease")
    tmux.wait_for('v5 {"value":0,')
    tmux.type(":history")
    screen = tmux.wait_for("3 versions kept")
    assert "v4  ↩ back to v1" in screen and "→ v5  decrease" in screen
    tmux.type(":goto 2")
    tmux.wait_for("error: FK_ERR_INVALID_ARGUMENT: version 2 is not kept; this instance keeps v0, v4, v5")
    tmux.type(":back 9")
    tmux.wait_for("error: only 2 versions back are kept; :history lists them")
    tmux.type(":goto 0")
    tmux.wait_for('v6 (the state of v0) {"value":0,')
    tmux.type(":diff")
    tmux.wait_for(":goto 0 changed nothing (v6)")  # v5 and v0 both hold 0
    tmux.type(":back")
    tmux.wait_for("error: no earlier version is kept; :history lists them")


def test_a_session_recorded_in_a_terminal_replays(tmux, fusion, tmp_path: Path):
    """The Wi-Fi join takes a second of the system clock: recorded as the clock's moves,
    it joins at the same step in the replay."""
    record = tmp_path / "join.scenario.json"
    tmux.start(str(fusion), "run", "wifi", "--record", str(record), width=400)
    tmux.wait_for(f"Recording to {record}")
    tmux.type("networkTapped id=blob")
    tmux.type("passwordChanged password=wrong")
    tmux.type("joinButtonTapped")
    # On one line or spread over several, as the connect screen's width decides.
    tmux.wait_for(r'"incorrectPasswordAlertIsPresented": ?true', regex=True, timeout=20)
    tmux.type(":back")
    tmux.type("incorrectPasswordAlertDismissed")
    tmux.type(":quit")
    deadline = time.monotonic() + 10
    while "[exited]" not in tmux.screen() and time.monotonic() < deadline:
        time.sleep(0.05)
    recorded = json.loads(record.read_text())
    assert recorded["recorded"]["by"] == "fusion run"
    assert recorded["options"]["clock"] == "manual" and isinstance(recorded["options"]["seed"], int)
    kinds = [next(iter(step)) for step in recorded["steps"]]
    assert kinds[:3] == ["send", "send", "send"] and "advance" in kinds and "goto" in kinds
    replay = run(fusion, "replay", str(record))
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "joinButtonTapped" in replay.stdout and "↩ back to v" in replay.stdout
    assert replay.stdout.rstrip().endswith("every state was as recorded")


def test_a_piped_session_records_too(fusion, tmp_path: Path):
    record = tmp_path / "counter.scenario.json"
    result = run(fusion, "run", "counter", "--record", str(record), stdin="increase\nincrease\n:back\njump\nshow\n")
    assert result.returncode == 0, result.stderr
    steps = json.loads(record.read_text())["steps"]
    assert [step.get("send", step.get("goto")) for step in steps] == ["increase", "increase", 1, "jump", "show"]
    assert steps[3]["error"] == "FK_ERR_UNKNOWN_INPUT"
    replay = run(fusion, "replay", "--quiet", str(record))
    assert (replay.returncode, replay.stdout) == (0, "")


def test_replay_stops_at_the_first_state_that_differs(fusion, tmp_path: Path):
    record = tmp_path / "counter.scenario.json"
    run(fusion, "run", "counter", "--record", str(record), stdin="increase\nincrease\nincrease\n")
    recorded = json.loads(record.read_text())
    recorded["steps"][1]["state"]["value"] = 5
    record.write_text(json.dumps(recorded))
    replay = run(fusion, "replay", str(record))
    assert replay.returncode == 1
    lines = replay.stdout.splitlines()
    assert lines[1].strip().startswith("1  increase") and lines[1].rstrip().endswith("v1 ✓")
    assert lines[2].startswith('differs at step 2 (send "increase"):')
    assert lines[3].strip() == "value: expected 5, got 2"
    assert "step 3" not in replay.stdout


def test_replay_usage_errors(fusion, tmp_path: Path):
    assert run(fusion, "replay").returncode == 64
    missing = run(fusion, "replay", str(tmp_path / "none.scenario.json"))
    assert missing.returncode == 1 and "none.scenario.json" in missing.stderr
    unwritable = run(fusion, "run", "counter", "--record", str(tmp_path / "no" / "such" / "dir.json"), stdin="")
    assert unwritable.returncode == 1 and "cannot record the session" in unwritable.stderr
