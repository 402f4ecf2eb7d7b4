"""Type hints: `mypy --strict` passes over the package, the examples, the benchmark and
these tests, and the hints are real (a wrong call through the package is caught)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = ROOT / "bindings" / "python"


def mypy(tmp_path: Path, *targets: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--python-version", "3.11", "--cache-dir", str(tmp_path / "cache"),
         *map(str, targets)],
        capture_output=True, text=True, cwd=cwd,
        env={"MYPYPATH": f"{PACKAGE_DIR}:{ROOT / 'Benchmarks' / 'report'}", "PATH": "/usr/bin:/bin"},
        timeout=600)


def test_mypy_strict_passes(tmp_path: Path) -> None:
    targets = [PACKAGE_DIR / "fusionkit", PACKAGE_DIR / "bench.py", PACKAGE_DIR / "build_wheel.py",
               ROOT / "examples/python", *sorted((ROOT / "Benchmarks" / "report").glob("*.py")),
               ROOT / "Benchmarks/journal/cost.py", ROOT / "Benchmarks/reliability/collect.py"]
    result = mypy(tmp_path, *targets)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_mypy_strict_passes_over_the_benchmark_runners(tmp_path: Path) -> None:
    # One at a time: both are a script named run.py.
    for runner in ("Benchmarks/web-load/run.py", "Benchmarks/web-load/interleave.py", "Benchmarks/time-travel/run.py"):
        result = mypy(tmp_path, ROOT / runner)
        assert result.returncode == 0, runner + result.stdout + result.stderr


def test_mypy_strict_passes_over_the_tests(tmp_path: Path) -> None:
    result = mypy(tmp_path, ".", cwd=ROOT / "Tests/python")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_hints_catch_misuse(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        "import fusionkit\n"
        "lib = fusionkit.load()\n"
        "counter = lib.create(5)\n"
        "counter.send(3)\n"
        "version: str = counter.version\n"
        "counter.advance_clock(nanoseconds='1')\n"
        "lib.create('wifi', clock='lunar')\n")
    result = mypy(tmp_path, wrong)
    assert result.returncode == 1
    for line in (3, 4, 5, 6, 7):
        assert f"wrong.py:{line}: error" in result.stdout, result.stdout
