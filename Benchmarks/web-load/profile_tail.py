#!/usr/bin/env python3
"""The profile behind docs/performance.md, "The web bridge's tail": the 2,000-per-second
load against a fresh `fusion serve`, once with the loader polling and once sleeping,
each with `perf sched record -a` for a few seconds in the middle of the load, and the
longest waits for a CPU of every thread (`perf sched latency --sort max`). Needs perf and
the rights to record scheduler events (root, or kernel.perf_event_paranoid <= 1).

    Benchmarks/web-load/profile_tail.py --fusion .build/release/fusion --loader .build/bench/web_load \\
        --library .build/release/libFusionExamples.so --out Benchmarks/profiles/web-bridge-tail.md
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import provenance  # noqa: E402
from serve_load import run_once  # noqa: E402

SESSIONS, INTERVAL_MS, INPUTS = 1000, 500, 20  # 2,000 inputs per second for ten seconds


def profiled(args: argparse.Namespace, wait: str, scratch: Path) -> tuple[dict[str, Any], str]:
    """One load with the loader waiting as `wait` says, and perf's latency table."""
    data = scratch / f"{wait}.data"
    measured: dict[str, Any] = {}

    def load() -> None:
        measured.update(run_once(args.fusion, args.loader, args.library, SESSIONS, INTERVAL_MS, INPUTS, wait=wait)[0])

    loading = threading.Thread(target=load)
    loading.start()
    # The sessions connect in about a second; the load lasts ten.
    threading.Event().wait(3)
    subprocess.run(["perf", "sched", "record", "-a", "-o", str(data), "sleep", "4"], check=True,
                   capture_output=True)
    loading.join()
    table = subprocess.run(["perf", "sched", "latency", "-i", str(data), "--sort", "max"], check=True,
                           capture_output=True, text=True).stdout
    rows = [line for line in table.splitlines() if line.strip() and "|" in line][:12]
    return measured, "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fusion", required=True)
    parser.add_argument("--loader", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    found = provenance.commit()
    commit = f"commit {found['commit'][:12]}" + (" (with uncommitted changes)" if found["dirty"] else "")
    parts = ["# The web bridge's tail: where the slow inputs waited\n",
             f"Recorded by `Benchmarks/web-load/profile_tail.py` on {commit}. A dated record, not a "
             "measured block: run the script again to see today's.\n",
             f"The load: {SESSIONS:,} sessions, an input every {INTERVAL_MS} ms each (2,000 per second), "
             "a fresh `fusion serve` (release build) per run; `perf sched record -a` for four seconds in the "
             "middle of the load, then `perf sched latency --sort max`: each thread's time on a CPU, its "
             "switches, and its average and longest wait for a CPU while ready to run.\n"]
    with tempfile.TemporaryDirectory() as scratch:
        for wait, title in (("spin", "The loader polling (every run before 2026-11-27)"),
                            ("sleep", "The loader sleeping until its next send (the runs since)")):
            measured, table = profiled(args, wait, Path(scratch))
            parts += [f"## {title}\n",
                      f"web p50 {measured['webP50Ms']:.3f} ms, web p99 {measured['webP99Ms']:.3f} ms "
                      f"(this run, with perf recording).\n", "```", table, "```\n"]
    args.out.write_text("\n".join(parts))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
