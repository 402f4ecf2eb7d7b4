#!/usr/bin/env python3
"""Sandboxed plugins measured: the example library built to WebAssembly and run in WasmKit
(FusionSandbox) beside the same library native, in the same runs.

Each run starts `sandbox-bench` afresh (Benchmarks/sandbox-bench): the Counter's and the
Wi-Fi screen's round trip (an input sent and the state read back through FusionHost, as
every host calls a library) for both, interleaved round by round; the memory of many
Counter instances of each; the module's load time. Then the web bridge under load
(Benchmarks/web-load's loader, 1,000 sessions at 2,000 inputs/s on loopback) serving the
module, and serving the native library, in turn.

    Benchmarks/sandbox/run.py --bench .build/release/sandbox-bench --fusion .build/release/fusion
        --loader .build/bench/web_load --library .build/release/libFusionExamples.so
        --module .build/wasm/FusionExamples.wasm [--runs 3] [--rounds 21] [--per-round 2000]
        [--bridge-runs 3] [--sessions 1000] [--inputs-per-session 20] [--results FILE]

The samples go to --results (Benchmarks/results/sandbox-bench.json), from which
Benchmarks/report/sandbox_bench.py renders the block of docs/performance.md.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))
sys.path.insert(0, str(ROOT / "Benchmarks" / "web-load"))

import results  # noqa: E402
from serve_load import run_once  # noqa: E402

#: The bridge's load: ms between one session's inputs (sessions and inputs per session
#: are arguments: the smoke run takes fewer, as a debug WasmKit starts a session slowly).
INTERVAL_MS = 500


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--bench", "--fusion", "--loader", "--library", "--module"):
        parser.add_argument(name, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--per-round", type=int, default=2000)
    parser.add_argument("--instances", type=int, default=200)
    parser.add_argument("--bridge-runs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--inputs-per-session", type=int, default=20)
    parser.add_argument("--results", type=Path)
    args = parser.parse_args()
    runs: list[dict[str, Any]] = []
    for _ in range(args.runs):
        out = subprocess.run([args.bench, "--library", args.library, "--module", args.module, "--rounds", str(args.rounds),
                              "--per-round", str(args.per_round), "--instances", str(args.instances)],
                             capture_output=True, text=True, timeout=1800)
        if out.returncode != 0:
            raise SystemExit(f"sandbox-bench failed ({out.returncode}): {out.stderr}")
        runs.append(json.loads(out.stdout))
    bridge: list[dict[str, Any]] = []
    for _ in range(args.bridge_runs):
        pair = {}
        for label, served in (("sandbox", args.module), ("native", args.library)):
            measured, _ = run_once(args.fusion, args.loader, served, args.sessions, INTERVAL_MS, args.inputs_per_session,
                                   loader_library=args.library)
            pair[label] = measured
            print(json.dumps({label: {k: v for k, v in measured.items() if not isinstance(v, (list, dict))}}), file=sys.stderr)
        bridge.append(pair)
    module = Path(args.module).read_bytes()
    raw: dict[str, Any] = {
        "benchmark": "sandbox-bench",
        "measured": results.measured_now(),
        "machine": {"cpu": results.cpu_model(), "cores": os.cpu_count() or 1},
        "module": {"name": Path(args.module).name, "bytes": len(module)},
        "perRound": args.per_round,
        "instances": args.instances,
        "bridgeLoad": {"sessions": args.sessions, "intervalMs": INTERVAL_MS, "inputsPerSession": args.inputs_per_session},
        "runs": runs,
        "bridge": bridge,
    }
    if args.results:
        results.keep(args.results, raw)


if __name__ == "__main__":
    main()
