#!/usr/bin/env python3
"""Memory per idle session, one build against another, alternating: 1,000 sessions each
with one Counter and a single input, on a fresh `fusion serve` per run (the web-load
benchmark's own measurement, `serve_load.run_once`, without the load after it).

    python3 Benchmarks/profiles/2026-11-29-idle-session-memory-spread.py ROUNDS RUNS FUSION...

Prints each build's KiB per idle session, sorted, every round."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "web-load"))

from serve_load import run_once  # noqa: E402

LOADER = ROOT / ".build" / "bench" / "web_load"
LIBRARY = ROOT / ".build" / "release" / "libFusionExamples.so"


def main() -> None:
    rounds, runs, builds = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    for round_number in range(1, rounds + 1):
        for fusion in builds:
            kib = sorted(round(run_once(fusion, str(LOADER), str(LIBRARY), 1000, 500, 1)[0]["idleSessionBytes"] / 1024, 1)
                         for _ in range(runs))
            print(f"round {round_number} {fusion}: {kib}", flush=True)


if __name__ == "__main__":
    main()
