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
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.machine())
    raw = {"benchmark": "time-travel", "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "machine": {"cpu": cpu, "cores": os.cpu_count()}, "rounds": args.rounds, "runs": runs}
    sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))
    import time_travel  # the block's renderer: the same text from this run as from the kept file
    print(time_travel.render(raw))
    if args.results:
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(json.dumps(raw, indent=1) + "\n")
        print(f"wrote {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
