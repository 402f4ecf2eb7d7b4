"""A plugin raises its state version and migrates old saves (issue 13.7): Chores 1.1.0's
tally counter is at state version 2 (`history` became `undoSteps`). A state saved by
Chores 1.0.0 (the JSON it wrote, `{"count":…,"step":…,"history":[…],"canUndo":…}`)
restores through Python and through `fusion --state`, and is refused, naming the field,
when passed off as a current one."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import fusionkit
import pytest
from fusionkit import InvalidStateError

SAVED_BY_1_0_0 = {"feature": "counter", "stateVersion": 1, "version": 3,
                  "state": {"count": 6, "step": 3, "history": [3, 3], "canUndo": True}}
MIGRATED = {"count": 6, "step": 3, "undoSteps": [3, 3], "canUndo": True}


def test_the_manifest_says_which_version_each_feature_is_at(chores_library: Path) -> None:
    manifest = fusionkit.load(chores_library).manifest
    assert manifest.feature("counter").state_version == 2
    assert manifest.feature("todo").state_version == 1


def test_python_restores_a_1_0_0_save_migrated_and_saves_it_at_version_2(chores_library: Path, tmp_path: Path) -> None:
    chores = fusionkit.load(chores_library)
    with chores.restore(SAVED_BY_1_0_0) as tally:
        assert tally.state == MIGRATED
        tally.send("undoTapped")
        assert tally.state["count"] == 3
        saved = tally.save(tmp_path / "tally.json")
    assert saved["stateVersion"] == 2 and saved["state"]["undoSteps"] == [3]
    with chores.restore(tmp_path / "tally.json") as again:
        assert again.state == saved["state"]


def test_an_old_save_passed_off_as_current_is_refused_naming_the_field(chores_library: Path) -> None:
    chores = fusionkit.load(chores_library)
    with pytest.raises(InvalidStateError) as caught:
        chores.restore({**SAVED_BY_1_0_0, "stateVersion": 2})
    assert 'missing field "undoSteps"' in caught.value.message and '"stateVersion"' in caught.value.message
    # With no version said at all, the state is taken as the current shape: refused too.
    with pytest.raises(InvalidStateError, match='missing field "undoSteps"'):
        chores.create("counter", state=SAVED_BY_1_0_0["state"])


def run(fusion: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(fusion), *args], capture_output=True, text=True)


def test_fusion_send_migrates_a_state_file_and_rewrites_it_at_version_2(fusion: Path, chores_library: Path, tmp_path: Path) -> None:
    path = tmp_path / "tally.json"
    path.write_text(json.dumps(SAVED_BY_1_0_0))
    sent = run(fusion, "send", "--json", str(chores_library), "counter", "tapped", "--state", str(path))
    assert sent.returncode == 0, sent.stderr
    assert json.loads(sent.stdout)["state"] == {"count": 9, "step": 3, "undoSteps": [3, 3, 3], "canUndo": True}
    rewritten = json.loads(path.read_text())
    assert rewritten["stateVersion"] == 2 and rewritten["state"]["undoSteps"] == [3, 3, 3]
    # A file from before state versions has no "stateVersion": it is version 1.
    legacy = {key: value for key, value in SAVED_BY_1_0_0.items() if key != "stateVersion"}
    path.write_text(json.dumps(legacy))
    sent = run(fusion, "send", "--json", str(chores_library), "counter", "undoTapped", "--state", str(path))
    assert sent.returncode == 0, sent.stderr
    assert json.loads(sent.stdout)["state"]["count"] == 3


def test_fusion_refuses_a_state_file_from_a_newer_version(fusion: Path, chores_library: Path, tmp_path: Path) -> None:
    path = tmp_path / "tally.json"
    path.write_text(json.dumps({**SAVED_BY_1_0_0, "stateVersion": 3, "state": MIGRATED}))
    sent = run(fusion, "send", str(chores_library), "counter", "tapped", "--state", str(path))
    assert sent.returncode != 0
    assert f"state file {path}" in sent.stderr
    assert 'state version 3 of feature "counter", newer than this library\'s version 2' in sent.stderr
    assert json.loads(path.read_text())["stateVersion"] == 3, "a refused file is left as it was"
