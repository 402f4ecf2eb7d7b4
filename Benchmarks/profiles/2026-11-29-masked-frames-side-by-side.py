#!/usr/bin/env python3
"""Two builds of `fusion serve` side by side at the web-load benchmark's two loads (1,000
sessions at 2,000 and at 10,000 inputs per second), alternating within each round
(Benchmarks/profiles/2026-11-29-masked-frames-side-by-side.md).

    python3 Benchmarks/profiles/2026-11-29-masked-frames-side-by-side.py ROUNDS BEFORE_FUSION AFTER_FUSION

Prints one JSON line per round and load: each build's web p50 and p99 in ms, and its idle
bytes per session."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "web-load"))
from run import LOADS  # noqa: E402
from serve_load import run_once  # noqa: E402

rounds = int(sys.argv[1])
binaries = {"before": sys.argv[2], "after": sys.argv[3]}
lib = str(ROOT / ".build/x86_64-unknown-linux-gnu/release/libFusionExamples.so")
loader = str(ROOT / ".build/bench/web_load")
for r in range(rounds):
    for sessions, interval, inputs in LOADS:
        row: dict = {"round": r + 1, "inputsPerSecond": sessions * 1000 // interval}
        for name in (["before", "after"] if r % 2 == 0 else ["after", "before"]):
            result, _ = run_once(binaries[name], loader, lib, sessions, interval, inputs)
            row[name] = (result["webP50Ms"], result["webP99Ms"], result["idleSessionBytes"])
        print(json.dumps(row), flush=True)
