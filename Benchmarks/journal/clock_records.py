#!/usr/bin/env python3
"""Benchmark (not a test): what a long session on the real-time clock leaves in its
journal, and how long resuming it takes. The Wi-Fi page with its live scan (an effect
that sleeps two seconds, scans, and sleeps again, for as long as the page is open) for
--minutes of simulated time, journaled by the Python package: the clock moved in 10 ms
steps by the very function the journal's real-time thread calls every 10 ms (`_tick`),
on a session whose clock no thread moves, so that the minutes pass in seconds. Three
ways, in turn: as a library that can neither tell when its clock next wakes an effect
nor take checkpoints (every step journaled), as one that can tell but takes none (a move
journaled only when a scan is due), and as the example library does (when due, and every
100 records the journal replaced by a checkpoint); the journal's size at the end and at
its largest (looked at every simulated second), the time to write it and to resume
(replay) it. Every run goes to Benchmarks/results/clock-records.json, from which
Benchmarks/report renders the block of docs/reliability.md.

    python3 Benchmarks/journal/clock_records.py [--library LIB] [--minutes 10] [--runs 3] [--results FILE]
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))

import clock_records  # noqa: E402
import fusionkit  # noqa: E402
import results  # noqa: E402
from fusionkit.journal import JournaledInstance  # noqa: E402

STEP_NS = 10_000_000  # the real-time thread's step


#: The modes: (whether the clock is journaled only when due, whether checkpoints are written).
MODES = {"everyStep": (False, False), "whenDue": (True, False), "checkpoints": (True, True)}


def one_run(lib: fusionkit.Library, path: Path, minutes: float, mode: str) -> dict[str, Any]:
    knows_next_wake, checkpoints = MODES[mode]
    steps = round(minutes * 60e9 / STEP_NS)
    largest = 0
    started = time.perf_counter()
    with lib.create("wifi", journal=path, clock="manual", seed=1) as wifi:
        assert isinstance(wifi, JournaledInstance)
        wifi._knows_next_wake = knows_next_wake  # as a library without fk_next_wake would be
        wifi._can_checkpoint = wifi._can_checkpoint and checkpoints  # as one without fk_checkpoint
        wifi.send("screenAppeared")
        with wifi._drive_lock:
            for step in range(steps):
                wifi._tick(STEP_NS)
                if step % 100 == 0:
                    largest = max(largest, os.fstat(wifi._file.fileno()).st_size)
        wifi.send("screenDisappeared")
        final = wifi.snapshot()
    written = time.perf_counter() - started
    lines = path.read_bytes().splitlines()
    started = time.perf_counter()
    with lib.create("wifi", journal=path) as again:
        replayed = time.perf_counter() - started
        if again.snapshot() != final:
            sys.exit("the journal did not resume to the state it was written with")
    return {"bytes": path.stat().st_size, "largestBytes": max(largest, path.stat().st_size), "records": len(lines) - 1,
            "version": final[1], "writeSeconds": written, "replaySeconds": replayed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, default=ROOT / ".build" / "release" / "libFusionExamples.so")
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--results", type=Path, default=ROOT / "Benchmarks" / "results" / "clock-records.json")
    args = parser.parse_args()
    lib = fusionkit.load(args.library)
    if not {"fk_next_wake", "fk_checkpoint", "fk_restart_effects"} <= set(lib.optional_functions):
        sys.exit(f"{args.library} has no fk_next_wake or checkpoints: build the library of this checkout")
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as folder:
        kind = results.filesystem(Path(folder).resolve())
        for number in range(args.runs):
            for mode in MODES:
                path = Path(folder) / f"{mode}-{number}.journal"
                runs[mode].append(one_run(lib, path, args.minutes, mode))
                print(mode, runs[mode][-1], file=sys.stderr)
                path.unlink()
    raw = {
        "benchmark": "clock-records",
        "measured": results.measured_now(),
        "machine": {"cpu": results.cpu_model(), "cores": os.cpu_count(), "python": platform.python_version(),
                    "filesystem": kind},
        "minutes": args.minutes, "stepNanoseconds": STEP_NS, "checkpointEvery": JournaledInstance.checkpoint_every,
        "runs": runs,
    }
    print(clock_records.render(raw))
    results.keep(args.results, raw)


if __name__ == "__main__":
    main()
