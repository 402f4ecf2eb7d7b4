#!/usr/bin/env python3
"""The native library's figures as it is and as it was before issue 37 (one feature on
every platform) changed how features are written, measured side by side in one run: the
C one-call round trip, the Python round trip and the heap per instance of the Counter.

The library before is built from BASE_COMMIT (the last commit before that work), in a git
worktree under .build/baseline, release, once; the library now is --library. Each figure
is measured in fresh processes (Benchmarks/baseline/native_probe.c for C, the fusionkit
package for Python), the two libraries alternating within each round and their order
swapped from one round to the next; a round's ratio is now / before, a run's figure the
median of its rounds' ratios, and the target holds when no run's figure is above 1.05.

    Benchmarks/baseline/run.py --library .build/release/libFusionExamples.so [--runs 3]
        [--rounds 7] [--calls 2000000] [--instances 1000] [--results FILE]
    Benchmarks/baseline/run.py --library LIB --before LIB   # another library as "before"
                                                             # (the smoke run: LIB itself)

The samples go to --results (Benchmarks/results/baseline.json), from which
Benchmarks/report/baseline.py renders the block of docs/performance.md.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))

import results  # noqa: E402

#: The last commit before issue 37's first change (be30346, @JSONCoded).
BASE_COMMIT = "12fcef3"
PROBE_SOURCE = ROOT / "Benchmarks/baseline/native_probe.c"
#: The Python round trip as the package's users make it, in a fresh interpreter.
PYTHON_PROBE = """
import sys, time
sys.path.insert(0, sys.argv[3])
import fusionkit
library = fusionkit.load(sys.argv[1])
counter = library.create("counter")
calls = int(sys.argv[2])
increase = b'"increase"'
for _ in range(calls // 10 + 1):
    counter.send_and_read_json(increase)
started = time.perf_counter_ns()
for _ in range(calls):
    counter.send_and_read_json(increase)
print((time.perf_counter_ns() - started) / calls)
"""


def build_before(commit: str) -> Path:
    """The library at `commit`, release: a worktree under .build/baseline, built once."""
    folder = ROOT / ".build" / "baseline" / commit
    if not (folder / "Package.swift").exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=True)
        subprocess.run(["git", "worktree", "add", "--detach", "--force", str(folder), commit], cwd=ROOT, check=True,
                       capture_output=True)
    subprocess.run(["swift", "build", "-c", "release", "--product", "FusionExamples"], cwd=folder, check=True)
    bin_path = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=folder, check=True,
                              capture_output=True, text=True).stdout.strip()
    return Path(bin_path) / "libFusionExamples.so"


def measure(command: list[str]) -> float:
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return float(done.stdout.strip())


def one_run(args: argparse.Namespace, probe: Path, libraries: dict[str, Path]) -> dict[str, Any]:
    names = ("before", "now")
    figures: dict[str, dict[str, list[float]]] = {name: {"cOneCallNs": [], "pythonRoundTripNs": []} for name in names}
    for index in range(args.rounds):
        for name in names if index % 2 == 0 else tuple(reversed(names)):
            library = str(libraries[name])
            figures[name]["cOneCallNs"].append(measure([str(probe), library, "roundtrip", str(args.calls)]))
            figures[name]["pythonRoundTripNs"].append(
                measure([sys.executable, "-c", PYTHON_PROBE, library, str(args.calls // 5), str(ROOT / "bindings/python")]))
    heap = {name: measure([str(probe), str(libraries[name]), "heap", str(args.instances)]) for name in names}
    return {"rounds": figures, "heapPerInstanceBytes": heap}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, required=True, help="the library now (release)")
    parser.add_argument("--before", type=Path, help=f"the library before (default: built from {BASE_COMMIT})")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2_000_000, help="C calls per measurement (Python: a fifth)")
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--results", type=Path)
    args = parser.parse_args()
    before = args.before or build_before(BASE_COMMIT)
    probe = ROOT / ".build" / "bench" / "native_probe"
    probe.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{ROOT / 'include'}", str(PROBE_SOURCE), "-ldl",
                    "-o", str(probe)], check=True)
    libraries = {"before": before.resolve(), "now": args.library.resolve()}
    runs = [one_run(args, probe, libraries) for _ in range(args.runs)]
    raw: dict[str, Any] = {
        "benchmark": "baseline",
        "measured": results.measured_now(),
        "machine": {"cpu": results.cpu_model(), "cores": os.cpu_count() or 1},
        "before": {"commit": BASE_COMMIT if args.before is None else None, "library": str(args.before or "built")},
        "calls": args.calls,
        "instances": args.instances,
        "runs": runs,
    }
    if args.results:
        results.keep(args.results, raw)


if __name__ == "__main__":
    main()
