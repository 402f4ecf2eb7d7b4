"""A library built before later changes to FusionKit still loads and is driven by
today's hosts: the ABI only grows. The library is the example library as built from
the commit before fk_state_into and fk_send_and_read were added to the header."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import fusionkit
import pytest
from conftest import ROOT, library_file_name, swift_build

# The last commit whose header lacked fk_state_into and fk_send_and_read.
OLD_COMMIT = "88cb6ea"
ADDED_SINCE = {"fk_state_into", "fk_send_and_read"}


@pytest.fixture(scope="module")
def old_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    known = subprocess.run(["git", "cat-file", "-e", f"{OLD_COMMIT}^{{commit}}"], cwd=ROOT, capture_output=True)
    if known.returncode != 0:
        pytest.fail(f"commit {OLD_COMMIT} is not in this clone's history: clone without --depth to run this test")
    checkout = tmp_path_factory.mktemp("old") / "FusionKit"
    subprocess.run(["git", "worktree", "add", "--detach", str(checkout), OLD_COMMIT], cwd=ROOT, check=True, capture_output=True)
    try:
        library = swift_build(checkout, "--product", "FusionExamples") / library_file_name("FusionExamples")
        kept = tmp_path_factory.mktemp("lib") / library.name
        shutil.copy(library, kept)
        return kept
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(checkout)], cwd=ROOT, capture_output=True)


def test_python_drives_a_library_that_predates_optional_functions(old_library: Path) -> None:
    old = fusionkit.load(old_library)
    assert ADDED_SINCE.isdisjoint(old.optional_functions)
    assert "fk_create_with_options" in old.optional_functions
    # Without fk_manifest_summary and fk_feature_manifest, both come from the whole manifest.
    assert {"fk_manifest_summary", "fk_feature_manifest"}.isdisjoint(old.optional_functions)
    assert old.features == ("counter", "answer", "home", "wifi", "profile")
    assert old.feature("counter") == old.manifest.feature("counter")
    with old.create("counter") as counter:
        counter.send("increase")
        assert counter.state["value"] == 1
        # Without fk_send_and_read the package makes the round trip in two calls.
        assert counter.send_and_read("increase")["value"] == 2
        assert counter.send_and_read_json(b'"increase"')[1] == 3


def test_fusion_drives_it_and_says_what_it_predates(fusion: Path, old_library: Path, chores_library: Path) -> None:
    inspect = subprocess.run([str(fusion), "inspect", str(old_library)], capture_output=True, text=True)
    assert inspect.returncode == 0, inspect.stderr
    # In header order: the manifest summary and feature entries came later still.
    assert "predates: fk_manifest_summary, fk_feature_manifest, fk_state_into, fk_send_and_read" in inspect.stdout
    sent = subprocess.run([str(fusion), "send", "--json", str(old_library), "counter", "increase", "increase"],
                          capture_output=True, text=True)
    assert sent.returncode == 0, sent.stderr
    assert json.loads(sent.stdout)["state"]["value"] == 2
    # Beside a library built today, in one process.
    both = subprocess.run([str(fusion), "send", str(chores_library), str(old_library), "todo", "draftChanged", "text=x", "addTapped"],
                          capture_output=True, text=True)
    assert both.returncode == 0, both.stderr


def test_a_library_from_before_state_versions_takes_version_1_state_files_only(fusion: Path, old_library: Path, tmp_path: Path) -> None:
    path = tmp_path / "counter.json"
    path.write_text(json.dumps({"feature": "counter", "stateVersion": 1, "state": {"value": 4, "isReset": False}}))
    sent = subprocess.run([str(fusion), "send", "--json", str(old_library), "counter", "increase", "--state", str(path)],
                          capture_output=True, text=True)
    assert sent.returncode == 0, sent.stderr
    assert json.loads(sent.stdout)["state"]["value"] == 5
    path.write_text(json.dumps({"feature": "counter", "stateVersion": 2, "state": {"value": 4, "isReset": False}}))
    refused = subprocess.run([str(fusion), "send", str(old_library), "counter", "increase", "--state", str(path)],
                             capture_output=True, text=True)
    assert refused.returncode != 0
    assert "saved at state version 2" in refused.stderr and "older than state versions" in refused.stderr
    assert fusionkit.load(old_library).manifest.feature("counter").state_version == 1
