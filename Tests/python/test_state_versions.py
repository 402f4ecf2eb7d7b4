"""Saved states carry their feature's state version (issue 13.7): Instance.save() and
Library.restore() against the example library, whose features are at version 1 but for
Wi-Fi, at 2 (its alerts' words; older saves: test_saved_states.py).
The migration from an older version is tested against the Chores plugin, whose tally
counter is at version 2 (Tests/plugins/test_state_versions.py)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import fusionkit
import pytest
from fusionkit import InvalidArgumentError, InvalidStateError


def test_the_manifest_gives_each_feature_its_state_version(lib: fusionkit.Library) -> None:
    manifest = lib.manifest
    versions = {spec.name: spec.state_version for spec in manifest.features}
    assert versions == {"counter": 1, "answer": 1, "home": 1, "wifi": 2, "profile": 1}
    assert {entry["name"]: entry["stateVersion"] for entry in manifest.raw["features"]} == versions


def test_save_writes_the_document_fusion_reads_and_restore_reads_it_back(lib: fusionkit.Library, tmp_path: Path) -> None:
    with lib.create("counter") as counter:
        counter.send("increase")
        counter.send("increase")
        path = tmp_path / "counter.json"
        document = counter.save(path)
    assert document == {"feature": "counter", "stateVersion": 1, "version": 2,
                        "state": {"value": 2, "isReset": False, "alert": None}}
    assert json.loads(path.read_text()) == document
    assert not list(tmp_path.glob("*.tmp")), "the temporary file is renamed into place"
    with lib.restore(path) as again:
        assert again.state == {"value": 2, "isReset": False, "alert": None}
        again.send("increase")
        assert again.state["value"] == 3
    with lib.restore(document, history=10) as from_dict:
        assert from_dict.history().entries[-1].version == 0


def test_a_state_from_a_newer_version_is_refused_naming_both(lib: fusionkit.Library) -> None:
    with pytest.raises(InvalidStateError) as caught:
        lib.restore({"feature": "counter", "stateVersion": 3, "state": {"value": 1, "isReset": False}})
    assert 'state version 3 of feature "counter", newer than this library\'s version 1' in caught.value.message


def test_a_field_the_state_does_not_have_is_refused_not_dropped(lib: fusionkit.Library) -> None:
    with pytest.raises(InvalidStateError) as caught:
        lib.create("counter", state={"value": 1, "isReset": False, "total": 9})
    assert "$.total" in caught.value.message and "does not have" in caught.value.message


def test_bad_saved_documents_say_what_is_wrong(lib: fusionkit.Library, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a saved state"):
        lib.restore({"feature": "counter"})
    with pytest.raises(ValueError, match='names no "feature"'):
        lib.restore({"state": {}})
    with pytest.raises(ValueError, match='"stateVersion" that is not a whole number from 1'):
        lib.restore({"feature": "counter", "stateVersion": "2", "state": {}})
    with pytest.raises(KeyError, match="no feature 'nope'"):
        lib.restore({"feature": "nope", "state": {}})
    with pytest.raises(InvalidArgumentError, match='no "state"'):
        lib.create("counter", state_version=1)


def test_a_saved_file_is_read_as_strictly_as_fusion_reads_it(lib: fusionkit.Library, tmp_path: Path,
                                                             fusion: Path) -> None:
    """A key twice, NaN: refused, as `fusion --state` refuses them (outside probe: json.load
    took the last of two "feature"s, so one file was a Wi-Fi to fusion and a Counter here)."""
    for name, text in [("feature twice", '{"feature":"wifi","feature":"counter","stateVersion":1,'
                                         '"state":{"value":1,"isReset":false,"alert":null}}'),
                       ("a key twice in the state", '{"feature":"counter","stateVersion":1,'
                                                    '"state":{"value":1,"value":2,"isReset":false,"alert":null}}'),
                       ("NaN", '{"feature":"counter","stateVersion":1,"state":{"value":NaN,"isReset":false,"alert":null}}')]:
        path = tmp_path / "saved.json"
        path.write_text(text)
        with pytest.raises(InvalidStateError, match="is not JSON as the library reads it"):
            lib.restore(path)
        shell = subprocess.run([str(fusion), "send", "counter", "--state", str(path)], capture_output=True, text=True,
                               timeout=60)
        assert shell.returncode != 0, (name, shell.stdout)
