#!/usr/bin/env python3
"""Runs Benchmarks/time-travel/time_travel_bench.c (built) several times and keeps every
sample of every run in one JSON file (Benchmarks/results/time-travel.json), from which
Benchmarks/report renders the table of docs/scenarios.md.

    Benchmarks/time-travel/run.py --bench .build/bench/time_travel [--runs 3] [--rounds 15] [--results FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))

import results  # noqa: E402
import time_travel  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, required=True, help="time_travel_bench.c, built against the library")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--results", type=Path, help="keep every run's samples in this JSON file")
    args = parser.parse_args()
    runs = []
    for number in range(args.runs):
        out = subprocess.run([str(args.bench), str(args.rounds)], check=True, capture_output=True, text=True).stdout
        runs.append(json.loads(out))
        print(f"run {number + 1} of {args.runs} measured", file=sys.stderr)
    raw = {"benchmark": "time-travel", "measured": results.measured_now(),
           "machine": {"cpu": results.cpu_model(), "cores": os.cpu_count()}, "rounds": args.rounds, "runs": runs}
    print(time_travel.render(raw))  # the block, from this run as from the kept file
    if args.results:
        results.keep(args.results, raw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
