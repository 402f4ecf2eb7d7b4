"""The smoke run's regression guard (Benchmarks/report/regression.py) on made-up results:
a same-run ratio worse than the committed one by more than its band fails with both
numbers; within the band, or better, passes; results that do not mean the same thing
(another Python, a debug program) are not compared, and say why."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))

import regression  # noqa: E402


def python_results(package_over_ctypes: float, python: str = "3.11.2") -> dict[str, Any]:
    run = {"plain": [10e-6] * 3, "package": [package_over_ctypes * 1e-6] * 3, "ctypes": [1e-6] * 3,
           "package-dict": [2e-6] * 3}
    return {"machine": {"python": python}, "runs": [run]}


def heap_results(heap: float) -> dict[str, Any]:
    return {"comparisons": [], "memory": [{"abiHeapPerInstance": heap}]}


def folders(tmp_path: Path, committed: dict[str, Any], smoke: dict[str, Any]) -> tuple[Path, Path]:
    for name, files in (("committed", committed), ("smoke", smoke)):
        (tmp_path / name).mkdir()
        for file, raw in files.items():
            (tmp_path / name / file).write_text(json.dumps(raw))
    return tmp_path / "committed", tmp_path / "smoke"


def outcome(outcomes: list[regression.Outcome], name: str) -> regression.Outcome:
    return next(o for o in outcomes if o.figure.name == name)


BARE = "Python: package round trip / bare ctypes call"
HEAP = "C ABI: heap per Counter instance (bytes)"


def test_a_ratio_worse_than_its_band_fails_with_both_numbers(tmp_path: Path) -> None:
    committed, smoke = folders(tmp_path, {"python-bench.json": python_results(1.2)},
                               {"python-bench.json": python_results(2.4)})
    found = outcome(regression.compare(committed, smoke, "debug"), BARE)
    assert found.failed and "smoke 2.40, committed 1.20 (at most 1.50 allowed" in str(found)
    done = subprocess.run([sys.executable, str(ROOT / "Benchmarks/report/regression.py"), "--committed",
                           str(committed), "--smoke", str(smoke)], capture_output=True, text=True)
    assert done.returncode == 1 and "WORSE" in done.stdout


def test_within_the_band_or_better_passes(tmp_path: Path) -> None:
    committed, smoke = folders(tmp_path, {"python-bench.json": python_results(1.2), "fusion-bench.json": heap_results(1000)},
                               {"python-bench.json": python_results(1.45), "fusion-bench.json": heap_results(700)})
    outcomes = regression.compare(committed, smoke, "debug")
    assert not outcome(outcomes, BARE).failed and not outcome(outcomes, HEAP).failed
    assert outcome(outcomes, BARE).skipped is None and outcome(outcomes, HEAP).skipped is None


def test_a_round_slowed_by_other_work_does_not_fail(tmp_path: Path) -> None:
    """Rounds are compared by their fastest: a burst of other work on the machine slows a
    round, never speeds one up; a regression slows every round."""
    bursty = python_results(1.2)
    bursty["runs"][0]["package"] = [1.2e-6, 6.0e-6, 1.3e-6]
    committed, smoke = folders(tmp_path, {"python-bench.json": python_results(1.2)}, {"python-bench.json": bursty})
    assert not outcome(regression.compare(committed, smoke, "debug"), BARE).failed
    slower = python_results(1.2)
    slower["runs"][0]["package"] = [1.6e-6, 6.0e-6, 1.7e-6]
    (smoke / "python-bench.json").write_text(json.dumps(slower))
    assert outcome(regression.compare(committed, smoke, "debug"), BARE).failed


def test_heap_per_instance_over_its_band_fails(tmp_path: Path) -> None:
    committed, smoke = folders(tmp_path, {"fusion-bench.json": heap_results(1000)},
                               {"fusion-bench.json": heap_results(1300)})
    assert outcome(regression.compare(committed, smoke, "debug"), HEAP).failed


def test_results_that_mean_different_things_are_not_compared(tmp_path: Path) -> None:
    committed, smoke = folders(tmp_path, {"python-bench.json": python_results(1.2, python="3.12.1")},
                               {"python-bench.json": python_results(9.0)})
    found = outcome(regression.compare(committed, smoke, "debug"), BARE)
    assert not found.failed and found.skipped == "measured on Python 3.12.1, the smoke run on 3.11.2"
    patch = outcome(regression.compare(committed, smoke, "debug"), "C: patch / whole state at 1,000 networks")
    assert patch.skipped is not None and not patch.failed


def test_a_tail_ratio_has_the_wider_band(tmp_path: Path) -> None:
    def web(p99: float) -> dict[str, Any]:
        runs = [{"webP99Ms": p99, "abiP99Ms": 0.01}]
        return {"loads": [{"sessions": 50, "intervalMs": 100, "runs": runs}]}
    committed, smoke = folders(tmp_path, {"web-load-guard.json": web(1.0)}, {"web-load.json": web(1.9)})
    name = "Web: bridge p99 / C ABI p99"
    assert not outcome(regression.compare(committed, smoke, "release"), name).failed
    (smoke / "web-load.json").write_text(json.dumps(web(2.1)))
    assert outcome(regression.compare(committed, smoke, "release"), name).failed


def test_the_web_p99_is_each_sides_least_disturbed_run(tmp_path: Path) -> None:
    # One run the host disturbed (as a debug bridge's p99 went 1.26, 3.72, 4.80 ms in one
    # smoke run) does not fail the guard; every run slower does.
    def web(*p99s: float) -> dict[str, Any]:
        runs = [{"webP99Ms": p99, "abiP99Ms": 0.01} for p99 in p99s]
        return {"loads": [{"sessions": 50, "intervalMs": 100, "runs": runs}]}
    name = "Web: bridge p99 / C ABI p99"
    committed, smoke = folders(tmp_path, {"web-load-guard.json": web(1.4, 2.8, 1.5)}, {"web-load.json": web(1.3, 4.8, 3.7)})
    assert not outcome(regression.compare(committed, smoke, "release"), name).failed
    (smoke / "web-load.json").write_text(json.dumps(web(3.0, 4.8, 3.7)))
    assert outcome(regression.compare(committed, smoke, "release"), name).failed


def test_the_c_ratios_follow_fusion_bench_s_build_and_the_web_p99_the_bridge_s(tmp_path: Path) -> None:
    """The smoke run builds fusion-bench in release and keeps the tests' debug `fusion`:
    the patch ratios are then compared (and a patch gone bad fails); the web p99 only
    against a reference measured on the same build (web-load-guard.json)."""
    def patch(ratio: float) -> dict[str, Any]:
        return {"comparisons": [], "patch": [{"networks": 1000, "patchNanos": [ratio * 100.0], "wholeNanos": [100.0]}]}

    def web(p99: float, build: str) -> dict[str, Any]:
        return {"fusionBuild": build,
                "loads": [{"sessions": 50, "intervalMs": 100, "runs": [{"webP99Ms": p99, "abiP99Ms": 0.01}]}]}

    committed, smoke = folders(tmp_path, {"fusion-bench.json": patch(0.064), "web-load-guard.json": web(1.0, "release")},
                               {"fusion-bench.json": patch(1.0), "web-load.json": web(9.0, "debug")})
    outcomes = regression.compare(committed, smoke, "debug", bench_build="release")
    found = outcome(outcomes, "C: patch / whole state at 1,000 networks")
    assert found.skipped is None and found.failed and "band 2×" in str(found)
    assert not outcome(outcomes, "C: patch / whole state at 1,000 networks").figure.worse(0.064, 0.1)
    bridge = outcome(outcomes, "Web: bridge p99 / C ABI p99")
    assert not bridge.failed and bridge.skipped == "the smoke run's program is a debug build (the committed, release)"
    both_debug = outcome(regression.compare(committed, smoke, "debug"), "C: patch / whole state at 1,000 networks")
    assert both_debug.skipped is not None and not both_debug.failed
    # Against a reference measured on the debug build, as the full run makes it: compared.
    (committed / "web-load-guard.json").write_text(json.dumps(web(1.0, "debug")))
    bridge = outcome(regression.compare(committed, smoke, "debug", bench_build="release"), "Web: bridge p99 / C ABI p99")
    assert bridge.skipped is None and bridge.failed and "smoke 900, committed 100" in str(bridge)
