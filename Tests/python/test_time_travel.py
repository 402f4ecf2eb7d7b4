"""Time travel and recording from Python: history(), goto() and back() over fk_history
and fk_goto, and create(record=...) writing a scenario that replays to the same states
through the Python runner and through `fusion replay`, also for a session that ran on
the system clock with effects waiting on it."""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import fusionkit
import fusionkit.scenario as scenario
import pytest
from fusionkit.recording import recording_options, seconds_text

ROOT = Path(__file__).resolve().parents[2]


# -- time travel ---------------------------------------------------------------------


def test_history_lists_each_version_with_its_cause(lib: fusionkit.Library) -> None:
    with lib.create("counter", history=10) as counter:
        counter.send("increase")
        counter.send_json('{"increase":{}}')
        history = counter.history()
        assert history.limit == 10 and history.version == 2
        assert [(entry.version, entry.cause, entry.input) for entry in history.entries] == [
            (0, "start", None), (1, "input", "increase"), (2, "input", {"increase": {}})]


def test_goto_restores_a_state_as_a_new_version_and_branches(lib: fusionkit.Library) -> None:
    with lib.create("counter", history=10) as counter:
        for _ in range(3):
            counter.send("increase")
        assert counter.goto(1) == 4
        assert counter.state["value"] == 1 and counter.version == 4
        counter.send("decrease")
        assert counter.state["value"] == 0
        assert [(entry.version, entry.cause, entry.restored) for entry in counter.history().entries] == [
            (0, "start", None), (4, "goto", 1), (5, "input", None)]
        assert counter.back(2) == 6 and counter.state["value"] == 0  # v0's state


def test_refused_travel_changes_nothing(lib: fusionkit.Library) -> None:
    with lib.create("counter", history=3) as counter:
        for _ in range(5):
            counter.send("increase")
        with pytest.raises(fusionkit.InvalidArgumentError, match="v3, v4, v5"):
            counter.goto(1)
        with pytest.raises(fusionkit.InvalidArgumentError, match="only 2 versions back"):
            counter.back(3)
        assert counter.snapshot() == ({"value": 5, "isReset": False, "alert": None}, 5)
    with lib.create("counter") as plain:
        with pytest.raises(fusionkit.InvalidArgumentError, match='"history"'):
            plain.history()
        with pytest.raises(fusionkit.InvalidArgumentError):
            plain.goto(0)


def test_subscribers_hear_the_goto(lib: fusionkit.Library) -> None:
    heard: list[int] = []
    with lib.create("counter", history=5) as counter:
        counter.subscribe(heard.append)
        counter.send("increase")
        counter.goto(0)
    assert heard == [1, 2]


# -- recording -----------------------------------------------------------------------


def test_recording_options_draw_a_seed_and_take_the_manual_clock() -> None:
    options, real_time = recording_options({"settings": {"liveScan": False}})
    assert real_time and options["clock"] == "manual" and 0 <= options["seed"] < 2**53
    options, real_time = recording_options({"clock": "manual", "seed": 7})
    assert not real_time and options == {"clock": "manual", "seed": 7}
    assert [seconds_text(n) for n in (0, 1_000_000_000, 1_012_000_000, 5)] == ["0", "1", "1.012", "0.000000005"]


def test_a_recorded_session_replays_to_the_same_states(lib: fusionkit.Library, tmp_path: Path, fusion: Path) -> None:
    path = tmp_path / "counter.scenario.json"
    with lib.create("counter", history=20, record=path) as counter:
        counter.send("increase")
        counter.send_and_read("increase")
        counter.back()
        with pytest.raises(fusionkit.UnknownInputError):
            counter.send("jump")
        counter.send("show")
        # The file is valid JSON after every step, before the session ends.
        assert len(json.loads(path.read_text())["steps"]) == 5
    recorded = json.loads(path.read_text())
    assert recorded["options"]["history"] == 20 and "seed" in recorded["options"]
    assert [next(iter(step)) for step in recorded["steps"]] == ["send", "send", "goto", "send", "send"]
    assert recorded["steps"][3]["error"] == "FK_ERR_UNKNOWN_INPUT"
    assert recorded["steps"][-1]["state"] == {"value": 1, "isReset": False, "alert": "The value is 1."}
    result = scenario.run(path, lib)
    assert result.passed, result.report()
    replay = subprocess.run([fusion, "replay", lib.path, path], capture_output=True, text=True)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "every state was as recorded" in replay.stdout


def test_a_system_clock_session_replays_exactly(lib: fusionkit.Library, tmp_path: Path) -> None:
    """The Wi-Fi join waits a second on the clock: recorded in real time, the clock's
    moves are written so that the replay (on a manual clock) joins at the same step."""
    path = tmp_path / "wifi.scenario.json"
    with lib.create("wifi", settings={"liveScan": False}, record=path) as wifi:
        wifi.send("networkTapped", id="blob")
        wifi.send("passwordChanged", password="wrong")
        wifi.send("joinButtonTapped")
        deadline = time.monotonic() + 10
        while wifi.state["destination"]["connect"]["isConnecting"] and time.monotonic() < deadline:
            time.sleep(0.02)
        wifi.send("incorrectPasswordAlertDismissed")
    steps = json.loads(path.read_text())["steps"]
    advances = [step["advance"] for step in steps if "advance" in step]
    assert advances and 1.0 <= sum(advances) < 5, advances
    joined = next(step for step in steps
                  if "advance" in step and step["state"]["destination"]["connect"]["incorrectPasswordAlertIsPresented"])
    assert joined["state"]["destination"]["connect"]["isConnecting"] is False
    result = scenario.run(path, lib)
    assert result.passed, result.report()


def test_a_changed_library_behaviour_is_caught_by_the_replay(lib: fusionkit.Library, tmp_path: Path, fusion: Path) -> None:
    path = tmp_path / "counter.scenario.json"
    with lib.create("counter", record=path) as counter:
        counter.send("increase")
        counter.send("increase")
    recorded = json.loads(path.read_text())
    recorded["steps"][1]["state"]["value"] = 3  # as if the library had counted differently
    path.write_text(json.dumps(recorded))
    result = scenario.run(path, lib)
    assert not result.passed
    assert result.failures == ['step 2 (send "increase"): value: expected 3, got 2']
    replay = subprocess.run([fusion, "replay", lib.path, path], capture_output=True, text=True)
    assert replay.returncode == 1
    assert "value: expected 3, got 2" in replay.stdout
