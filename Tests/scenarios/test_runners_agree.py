"""The three scenario runners agree: `fusion test`, the Python package
(fusionkit.scenario) and `swift test` (Tests/ScenarioTests) give every scenario of the
repository the same verdict. Each is held to the same expectation: every file of
examples/scenarios and Tests/scenarios/passing passes and every file of
Tests/scenarios/failing fails. This test
runs the first two side by side, file by file; Tests/ScenarioTests holds the third to
the same list (scripts/test runs it with swift test). The files of
Tests/scenarios/malformed are not scenarios at all: both runners fail each at load
(`fusion test`: "cannot read the scenario"), and the Java runner is held to the same
(Tests/java, ScenarioTest)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
import fusionkit  # noqa: E402
import fusionkit.scenario  # noqa: E402

# The examples, and files of forms every runner must take (whole numbers written 3.0,
# inputs the library refuses, every option the library has).
PASSING = fusionkit.scenario.collect(ROOT / "examples" / "scenarios", ROOT / "Tests" / "scenarios" / "passing")
FAILING = fusionkit.scenario.collect(ROOT / "Tests" / "scenarios" / "failing")
MALFORMED = fusionkit.scenario.collect(ROOT / "Tests" / "scenarios" / "malformed")


def test_there_are_scenarios_of_both_kinds() -> None:
    assert len(PASSING) >= 15 and len(FAILING) >= 5 and len(MALFORMED) >= 10
    features = {fusionkit.scenario.load(path).feature for path in PASSING}
    assert {"counter", "answer", "home", "wifi", "profile"} <= features


@pytest.mark.parametrize("path, should_pass", [(p, True) for p in PASSING] + [(p, False) for p in FAILING],
                         ids=lambda value: value.name if isinstance(value, Path) else None)
def test_fusion_test_and_python_give_the_same_verdict(bin_dir: Path, path: Path, should_pass: bool) -> None:
    library = fusionkit.load(bin_dir / "libFusionExamples.so")
    python = fusionkit.scenario.run(path, library=library)
    shell = subprocess.run([str(bin_dir / "fusion"), "test", str(path)], capture_output=True, text=True, timeout=60)
    assert shell.returncode in (0, 1), shell.stderr
    shell_passed = shell.returncode == 0
    assert shell.stdout.splitlines()[-1] == ("1 passed, 0 failed" if shell_passed else "0 passed, 1 failed")
    assert (python.passed, shell_passed) == (should_pass, should_pass), (python.failures, shell.stdout)


@pytest.mark.parametrize("path", MALFORMED, ids=lambda path: path.name)
def test_a_malformed_file_fails_at_load_in_both(bin_dir: Path, path: Path) -> None:
    library = fusionkit.load(bin_dir / "libFusionExamples.so")
    python = fusionkit.scenario.run(path, library=library)
    shell = subprocess.run([str(bin_dir / "fusion"), "test", str(path)], capture_output=True, timeout=60)
    assert shell.returncode == 1, shell.stderr
    lines = shell.stdout.decode("utf-8").splitlines()
    assert lines[-1] == "0 passed, 1 failed"
    assert lines[1].startswith("  cannot read the scenario: "), lines
    assert (python.passed, python.step) == (False, "load"), python.report()


def test_fusion_test_runs_folders_and_says_how_many(bin_dir: Path) -> None:
    result = subprocess.run([str(bin_dir / "fusion"), "test", str(ROOT / "examples" / "scenarios"),
                             str(ROOT / "Tests" / "scenarios" / "passing"), str(ROOT / "Tests" / "scenarios" / "failing")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == f"{len(PASSING)} passed, {len(FAILING)} failed"
    assert "step 3 (send \"joinButtonTapped\"):" in result.stdout
    assert "destination.connect.isConnecting: expected false, got true" in result.stdout
    missing = subprocess.run([str(bin_dir / "fusion"), "test", "nowhere"], capture_output=True, text=True)
    assert missing.returncode == 64 and "no such file or folder" in missing.stderr
