#!/usr/bin/env python3
"""Runs the web bridge's load benchmark and keeps what it measured.

For each load (sessions x input interval) it starts a fresh `fusion serve` (release
build), runs Benchmarks/web-load/web_load.c against it on loopback, stops it, and does
this --runs times: a claim in the document holds for every run, not the best one.
Every run's figures go to --results (Benchmarks/results/web-load.json), from which
Benchmarks/report renders the block of docs/performance.md, prose included.

    Benchmarks/web-load/run.py --fusion .build/release/fusion --loader .build/bench/web_load \\
        --library .build/release/libFusionExamples.so [--runs 3] [--results FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))

import results  # noqa: E402
import web_load  # noqa: E402
from serve_load import run_once  # noqa: E402

LOADS = [  # (sessions, interval between one session's inputs in ms, inputs per session)
    (1000, 500, 20),   # 2,000 inputs per second in all
    (1000, 100, 50),   # 10,000 inputs per second in all
]
#: The smoke run's one load (CI), and the regression guard's reference measured by the full run:
#: 500 inputs per second for four seconds. The smoke run's bridge is a debug build, which
#: spends most of a millisecond of CPU on an input: at 2,000 a second it kept both cores
#: busy, and its p99 went from 5 to 20 ms with a host a little slower or busier than the
#: reference's (the queue, not the code). At a quarter of a core, a p99 measures the code.
SMOKE_LOAD = (100, 200, 20)


def load_run(args: argparse.Namespace, sessions: int, interval: int, inputs: int, wait: str) -> dict[str, Any]:
    """One run of one load, the loader waiting as `wait` says; printed as it is measured."""
    result, _ = run_once(args.fusion, args.loader, args.library, sessions, interval, inputs, wait=wait)
    print(json.dumps(result), file=sys.stderr)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fusion", required=True)
    parser.add_argument("--loader", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--loads", default="all", help="'all', or 'smoke': one small load (for CI)")
    parser.add_argument("--polling-runs", type=int, default=1,
                        help="runs per load with the loader polling instead of sleeping (the setup before "
                             "2026-11-27), for the comparison of where an input's time goes; 0: none")
    parser.add_argument("--results", type=Path, help="keep every run's figures in this JSON file")
    args = parser.parse_args()
    loads = LOADS if args.loads == "all" else [SMOKE_LOAD]
    measured: list[dict[str, Any]] = []
    for sessions, interval, inputs in loads:
        # The loader sleeps until its next send and wakes for answers, as clients do: its
        # latencies include its own wake-ups. Polling instead (every run before 2026-11-27)
        # keeps one of the two cores busy, and the bridge's threads then wait for the other:
        # that, not the bridge's work, made the p99 (docs/performance.md, "The web bridge's
        # tail"). A few polling runs are kept beside the judged ones, to show it.
        runs, polling = ([load_run(args, sessions, interval, inputs, wait) for _run in range(count)]
                         for count, wait in ((args.runs, "sleep"), (args.polling_runs, "spin")))
        measured.append({"sessions": sessions, "intervalMs": interval, "inputsPerSession": inputs, "runs": runs,
                         "pollingRuns": polling})
    raw: dict[str, Any] = {
        "benchmark": "web-load",
        "measured": results.measured_now(),
        "machine": {"cores": os.cpu_count()},
        # How `fusion` was built (SwiftPM's folder: debug or release): the regression guard
        # compares only like with like.
        "fusionBuild": Path(args.fusion).resolve().parent.name,
        "runsPerLoad": args.runs,
        # How the loader waits between sends in the judged runs (web_load.c --wait).
        "loaderWait": "sleep",
        "loads": measured,
        # Every run of every load created one Counter per session and left them idle first.
        "idleSessions": loads[0][0],
        "idleSessionBytes": [r["idleSessionBytes"] for load in measured for r in load["runs"]],
    }
    print(web_load.render(raw))  # the block, from this run as from the kept file
    if args.results:
        results.keep(args.results, raw)


if __name__ == "__main__":
    main()
