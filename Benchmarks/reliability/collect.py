#!/usr/bin/env python3
"""Gathers what a run of scripts/test-reliability measured into one JSON file (the raw
results Benchmarks/report renders into docs/reliability.md): each step's seconds, each
fuzz target's final libFuzzer statistics, the committed corpus, the soak's report, and,
under .ci/run, how long scripts/test took before it.

    Benchmarks/reliability/collect.py --fuzz-dir .build-fuzz --steps FILE --soak FILE \\
        --fuzz-seconds N --out .build-fuzz/reliability.json

scripts/test-reliability runs it at its end; to update docs/reliability.md with a run's
figures, copy its reliability.json to Benchmarks/results/ and run Benchmarks/report/render.py.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))

import results  # noqa: E402

TARGETS = ("send", "create", "respond", "json_parser", "manifest")


def fuzz_statistics(log: str) -> dict[str, Any]:
    """What libFuzzer's log says at the end of a run (-print_final_stats=1)."""
    def number(pattern: str) -> int | None:
        found = re.findall(pattern, log, re.M)
        return int(found[-1]) if found else None

    done = re.findall(r"^#\d+\s+DONE\s+cov: (\d+).*?corp: (\d+)/", log, re.M)
    return {
        "executions": number(r"^stat::number_of_executed_units:\s+(\d+)"),
        "perSecond": number(r"^stat::average_exec_per_sec:\s+(\d+)"),
        "peakRssMb": number(r"^stat::peak_rss_mb:\s+(\d+)"),
        "instrumentedEdges": number(r"^INFO: Loaded \d+ modules?\s+\((\d+) inline 8-bit counters\)"),
        "edges": int(done[-1][0]) if done else None,
        "corpusAfter": int(done[-1][1]) if done else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fuzz-dir", type=Path, required=True)
    parser.add_argument("--steps", type=Path, required=True,
                        help="lines of: the second the step began at<TAB>its name (the last is \"done\")")
    parser.add_argument("--soak", type=Path, required=True, help="what the full soak printed")
    parser.add_argument("--fuzz-seconds", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    corpus = [path for path in (ROOT / "Tests" / "fuzz" / "corpus").rglob("*") if path.is_file()]
    steps = []
    for line in args.steps.read_text().splitlines():
        seconds, name = line.split("\t", 1)
        steps.append({"step": name, "startedAt": int(seconds)})
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                             text=True).stdout.strip()
    raw: dict[str, Any] = {
        "benchmark": "reliability",
        "measured": results.measured_now(),
        "commit": (commit.stdout.strip() or "unknown") + (" with uncommitted changes" if changed else ""),
        "cores": os.cpu_count(),
        "fuzzSeconds": args.fuzz_seconds,
        "committedCorpus": {"files": len(corpus), "bytes": sum(path.stat().st_size for path in corpus)},
        "fuzz": [{"target": target, **fuzz_statistics((args.fuzz_dir / f"{target}.log").read_text(errors="replace"))}
                 for target in TARGETS],
        "soak": args.soak.read_text().splitlines(),
        "steps": steps,
    }
    if os.environ.get("CI_TEST_SECONDS"):  # set by .ci/run: scripts/test's own time before this
        raw["ciTestSeconds"] = int(os.environ["CI_TEST_SECONDS"])
    results.keep(args.out, raw)  # with its provenance: the commit, the command, the machine
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
