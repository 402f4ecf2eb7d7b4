#!/usr/bin/env python3
"""Benchmark (not a test): what a crash journal costs per input. A Counter on a manual
clock, driven from Python, the same inputs with and without a journal (each journaled
input is appended and flushed with fdatasync before it is applied), in alternating
rounds, every sample kept in Benchmarks/results/journal-cost.json; Benchmarks/report
renders the block of docs/reliability.md from it.

    python3 Benchmarks/journal/cost.py [--library LIB] [--inputs 200] [--rounds 3] [--results FILE]
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))

import fusionkit  # noqa: E402
import results  # noqa: E402


def per_input(lib: fusionkit.Library, inputs: int, journal: Path | None) -> float:
    """Seconds per input over `inputs` increases (with a journal at `journal`, if given)."""
    with lib.create("counter", clock="manual", journal=journal) as counter:
        start = time.perf_counter()
        for _ in range(inputs):
            counter.send("increase")
        return (time.perf_counter() - start) / inputs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", type=Path, default=ROOT / ".build" / "release" / "libFusionExamples.so")
    parser.add_argument("--inputs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--results", type=Path, default=ROOT / "Benchmarks" / "results" / "journal-cost.json")
    args = parser.parse_args(argv)
    lib = fusionkit.load(args.library)
    journaled, plain = [], []
    with tempfile.TemporaryDirectory() as folder:
        for round_number in range(args.rounds):
            journal = Path(folder) / f"{round_number}.journal"
            journaled.append(per_input(lib, args.inputs, journal))
            plain.append(per_input(lib, args.inputs, None))
            os.unlink(journal)
        kind = results.filesystem(Path(folder).resolve())
    raw = {
        "benchmark": "journal-cost",
        "measured": results.measured_now(),
        "machine": {"cpu": results.cpu_model(), "cores": os.cpu_count(), "python": platform.python_version(),
                    "filesystem": kind},
        "inputs": args.inputs, "journaledSeconds": journaled, "plainSeconds": plain,
    }
    results.keep(args.results, raw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
