#!/usr/bin/env python3
"""Sets the web load's slow inputs beside the moments this machine's CPUs stopped running
(the hypervisor had them), for docs/performance.md, "The web bridge's tail". Not a
measured block: it writes a dated record to Benchmarks/profiles/.

Each run is a fresh `fusion serve` under one of run.py's loads, with web_load.c --trace:
every input's send time and latency, and what a thread pinned to each CPU saw waking every
2 ms: how late it woke, and how much of that it spent ready on the run queue. Late with no
wait on the run queue means the CPU did not run at all (no thread of this machine held it):
a stall of the CPU. An input met a stall when the time from its send to its answer overlaps
one. A near-idle load first (ten sessions, an input a second each) shows what the machine
does by itself.

    Benchmarks/web-load/stall_trace.py --fusion .build/release/fusion --loader .build/bench/web_load \\
        --library .build/release/libFusionExamples.so --runs 3 --out Benchmarks/profiles/DATE-stalls.md
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import LOADS  # noqa: E402
from serve_load import run_once  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: A watcher this late, beyond its wait on the run queue, saw its CPU stop.
STALL_MS = 1.0
SLOW_MS = {2000: 1.0, 10000: 5.0}  # issue 40's p99 targets


@dataclass
class Stall:
    cpu: int
    start: float
    end: float

    @property
    def length(self) -> float:
        return self.end - self.start


def read_trace(path: Path) -> tuple[list[tuple[float, float]], list[Stall], float]:
    """The inputs (send, latency), the stalls, and the time the watchers covered."""
    inputs, stalls, last = [], [], 0.0
    previous: dict[int, float] = {}  # each CPU's watcher's last wake
    for line in path.read_text().splitlines():
        kind, *fields = line.split()
        if kind == "input":
            inputs.append((float(fields[0]), float(fields[1])))
        elif kind == "clock":
            cpu, due, woke, queued = int(fields[0]), float(fields[1]), float(fields[2]), float(fields[3])
            last = max(last, woke)
            # A watcher that woke late runs the wakes it missed at once: those were due
            # before it woke the last time, and are late by that, not by a stall.
            since = max(due, previous.get(cpu, due))
            previous[cpu] = woke
            if woke - since - queued > STALL_MS:
                stalls.append(Stall(cpu, since, woke - queued))
    return inputs, stalls, last


def both_cpus(stalls: list[Stall]) -> int:
    """Stalls of one CPU that overlap a stall of another: the whole machine stopped."""
    return sum(1 for a in stalls if any(b.cpu != a.cpu and b.start < a.end and a.start < b.end for b in stalls))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[int(p * (len(ordered) - 1) + 0.5)] if ordered else 0.0


@dataclass
class Found:
    inputs: int
    stalls: int
    stalled_ms: float
    longest_ms: float
    whole_machine: int
    inputs_met: float
    slow: int
    slow_met: float
    p99: float
    p99_clear: float


def analyse(inputs: list[tuple[float, float]], stalls: list[Stall], slow_ms: float) -> Found:
    met = [any(s.start < sent + latency and sent < s.end for s in stalls) for sent, latency in inputs]
    slow = [i for i, (_, latency) in enumerate(inputs) if latency > slow_ms]
    clear = [latency for (_, latency), near in zip(inputs, met, strict=True) if not near]
    return Found(
        inputs=len(inputs), stalls=len(stalls), stalled_ms=sum(s.length for s in stalls),
        longest_ms=max((s.length for s in stalls), default=0.0), whole_machine=both_cpus(stalls),
        inputs_met=sum(met) / max(1, len(inputs)), slow=len(slow), slow_met=sum(met[i] for i in slow) / max(1, len(slow)),
        p99=percentile([latency for _, latency in inputs], 0.99), p99_clear=percentile(clear, 0.99))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fusion", required=True)
    parser.add_argument("--loader", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        # A near-idle load first (10 sessions, one input a second each): the stalls the
        # machine shows with next to nothing running.
        for sessions, interval, inputs, judged in [(10, 1000, 10, False), *((*load, True) for load in LOADS)]:
            per_second = sessions * 1000 // interval
            for run in range(args.runs if judged else 1):
                trace = Path(folder) / f"trace-{per_second}-{run}.txt"
                measured, _ = run_once(args.fusion, args.loader, args.library, sessions, interval, inputs,
                                       loader_trace=str(trace))
                loaded, stalls, span = read_trace(trace)
                found = analyse(loaded, stalls, SLOW_MS.get(per_second, 5.0))
                print(per_second, run + 1, found, file=sys.stderr)
                rows.append((sessions, per_second, run + 1, measured, found, span))
    lines = [
        "# The web bridge's tail beside the moments the machine stopped",
        "",
        f"Recorded by `Benchmarks/web-load/stall_trace.py` on commit {commit}, "
        f"{datetime.now(UTC).strftime('%Y-%m-%d')}. A dated record, not a measured block: run the script "
        "again to see today's.",
        "",
        "Each run: a fresh `fusion serve` (release build), the loader sleeping between sends as in the judged "
        "runs, and tracing (`web_load.c --trace`): every input's send and latency, and a thread pinned to each "
        "CPU that wakes every 2 ms and notes how late it woke and how much of that it waited on the run queue. "
        f"Late by more than {STALL_MS:g} ms beyond its run-queue wait, its CPU did not run at all: no thread of "
        "this machine held it, the hypervisor did (a stall). An input met a stall when the time from its send to "
        "its answer overlaps one. Slow: over the issue's p99 target at that rate (1 ms at 2,000 inputs per second, "
        "5 ms at 10,000). The first row is a near-idle load (10 sessions, an input a second each): the stalls "
        "the machine has by itself.",
        "",
        "| sessions | inputs per second | run | web p99 | stalls | stalled (ms, CPUs summed) | longest | stalls while "
        "the other CPU stalled too | inputs that met a stall | slow inputs | slow inputs that met a stall "
        "| p99 of the inputs that met none |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for sessions, per_second, run, measured, found, _span in rows:
        lines.append(
            f"| {sessions:,} | {per_second:,} | {run} | {measured['webP99Ms']:.2f} ms | {found.stalls} "
            f"| {found.stalled_ms:.0f} | {found.longest_ms:.1f} ms | {found.whole_machine} | {found.inputs_met:.1%} "
            f"| {found.slow:,} | {found.slow_met:.0%} | {found.p99_clear:.2f} ms |")
    args.out.write_text("\n".join(lines) + "\n")
    print(args.out)


if __name__ == "__main__":
    main()
