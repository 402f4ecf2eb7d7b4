#!/usr/bin/env python3
"""Runs the Java round-trip benchmark (bindings/java/bench.sh, one JVM per run) several
times and keeps every sample.

Each run is a fresh JVM: the JIT's choices differ from one process to the next, and a
target holds only if it holds in every run. The runs' samples go to --results
(Benchmarks/results/java-bench.json), from which Benchmarks/report/java_bench.py renders
the Java block of docs/performance.md.

    Benchmarks/java/run.py --library .build/release/libFusionExamples.so [--runs 3]
        [--rounds 21] [--per-round 20000] [--results FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))

import results  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--per-round", type=int, default=20_000)
    parser.add_argument("--results", type=Path, help="keep every run's samples in this JSON file")
    args = parser.parse_args()
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        for index in range(args.runs):
            samples = Path(scratch) / f"run-{index}.json"
            subprocess.run([str(ROOT / "bindings/java/bench.sh"), args.library, str(args.rounds),
                            str(args.per_round), str(samples)], check=True)
            runs.append(json.loads(samples.read_text()))
    raw: dict[str, Any] = {
        "benchmark": "java-bench",
        "measured": results.measured_now(),
        "machine": {"cpu": results.cpu_model(), "cores": os.cpu_count() or 1, "java": runs[0]["java"]},
        "runs": runs,
    }
    if args.results:
        results.keep(args.results, raw)


if __name__ == "__main__":
    main()
