#!/usr/bin/env python3
"""Benchmark (not a test): what group commit does for a bridge keeping crash journals.
`fusion serve --journal DIR` at 1,000 sessions, each sending its inputs as fast as the
oks come back (Benchmarks/web-load/web_load.c with no interval), with a sync per
record (`--journal-sync each`, as before group commit) and with shared syncs
(`--journal-sync group`), in alternating runs of the same build; every run's inputs per
second, latencies and (with group commit) records per sync go to
Benchmarks/results/group-commit.json, from which Benchmarks/report renders the block of
docs/reliability.md.

    Benchmarks/journal/group_commit.py --fusion .build/release/fusion --loader .build/bench/web_load \\
        --library .build/release/libFusionExamples.so [--runs 3] [--sessions 1000] [--inputs 20] [--results FILE]
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))
sys.path.insert(0, str(ROOT / "Benchmarks" / "web-load"))

import group_commit  # noqa: E402
import results  # noqa: E402
from serve_load import run_once  # noqa: E402

MODES = ("each", "group")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fusion", required=True)
    parser.add_argument("--loader", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--inputs", type=int, default=20, help="inputs per session")
    parser.add_argument("--results", type=Path, help="keep every run's figures in this JSON file")
    args = parser.parse_args()
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory(prefix="fusion-group-commit-") as scratch:
        kind = results.filesystem(Path(scratch).resolve())
        for run in range(args.runs):
            for mode in MODES:
                journals = Path(scratch) / f"{mode}-{run}"
                measured, err = run_once(
                    args.fusion, args.loader, args.library, args.sessions, 0, args.inputs,
                    ("--journal", str(journals), "--journal-sync", mode, "--max-messages-per-second", "100000"))
                counted = re.search(r"Journals: (\d+) records put on the disk by (\d+) syncs", err)
                if mode == "group":
                    if counted is None:
                        sys.exit(f"fusion serve --journal-sync group did not count its syncs: {err}")
                    measured["records"], measured["syncs"] = int(counted.group(1)), int(counted.group(2))
                print(mode, {k: measured[k] for k in ("inputsPerSecond", "webP50Ms", "webP99Ms", "errors")},
                      file=sys.stderr)
                runs[mode].append(measured)
    raw: dict[str, Any] = {
        "benchmark": "group-commit",
        "measured": results.measured_now(),
        "machine": {"cores": os.cpu_count(), "cpu": results.cpu_model(), "filesystem": kind},
        "sessions": args.sessions,
        "inputsPerSession": args.inputs,
        "runs": runs,
    }
    print(group_commit.render(raw))
    if args.results:
        results.keep(args.results, raw)


if __name__ == "__main__":
    main()
