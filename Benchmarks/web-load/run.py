#!/usr/bin/env python3
"""Runs the web bridge's load benchmark and writes its section of docs/performance.md.

For each load (sessions x input interval) it starts a fresh `fusion serve` (release
build), runs Benchmarks/web-load/web_load.c against it on loopback, stops it, and does
this --runs times: a claim in the document holds for every run, not the best one.
The prose under the table is written from the same numbers, so it cannot go stale.

    Benchmarks/web-load/run.py --fusion .build/release/fusion --loader .build/bench/web_load \\
        --library .build/release/libFusionExamples.so [--write docs/performance.md]
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BEGIN, END = "<!-- web-load:begin -->", "<!-- web-load:end -->"
P99_TARGET_MS = 5.0
IDLE_TARGET_BYTES = 64 * 1024

LOADS = [  # (sessions, interval between one session's inputs in ms, inputs per session)
    (1000, 500, 20),   # 2,000 inputs per second in all
    (1000, 100, 50),   # 10,000 inputs per second in all
]


def run_once(args: argparse.Namespace, sessions: int, interval: int, inputs: int) -> dict:
    server = subprocess.Popen(
        [args.fusion, "serve", args.library, "--port", "0", "--max-sessions", str(sessions * 2),
         "--static", str(ROOT / "examples/web")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        port = int(re.search(r":(\d+)/", line).group(1))
        result = subprocess.run(
            [args.loader, "--port", str(port), "--server-pid", str(server.pid), "--library", args.library,
             "--sessions", str(sessions), "--inputs", str(inputs), "--interval-ms", str(interval), "--seconds", "120"],
            capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            sys.exit(f"web_load failed ({result.returncode}): {result.stderr}{result.stdout}")
        return json.loads(result.stdout)
    finally:
        server.terminate()
        server.wait(timeout=30)


def ms(value: float) -> str:
    return f"{value * 1000:.0f} µs" if value < 1 else f"{value:.2f} ms"


def render(results: dict[tuple[int, int, int], list[dict]], runs: int) -> str:
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    lines = [
        f"Measured {when}: `Benchmarks/web-load/run.py`, release build, {runs} runs per load, each on a fresh",
        "`fusion serve`; the loader (`web_load.c`, epoll, one WebSocket per session) runs on the same 2 cores.",
        "Latency is from writing an input to reading its patch. The C ABI column is the same inputs in the same run,",
        "in-process: `fk_send` then `fk_state_patch`, the library work the bridge does per input.",
        "",
        "| sessions | inputs per second (all sessions) | web p50 (median of runs) | web p99 (worst run) | C ABI p50 | C ABI p99 | web p99 / C ABI p99 |",
        "|---|---|---|---|---|---|---|",
    ]
    worst_p99 = {}
    for (sessions, interval, _inputs), items in results.items():
        rate = statistics.median(r["inputsPerSecond"] for r in items)
        p50 = statistics.median(r["webP50Ms"] for r in items)
        p99 = max(r["webP99Ms"] for r in items)
        abi50 = statistics.median(r["abiP50Ms"] for r in items)
        abi99 = statistics.median(r["abiP99Ms"] for r in items)
        worst_p99[(sessions, interval)] = (p99, [r["webP99Ms"] for r in items])
        lines.append(f"| {sessions:,} | {rate:,.0f} | {ms(p50)} | {ms(p99)} | {ms(abi50)} | {ms(abi99)} | {p99 / abi99:,.0f}× |")
    idle = [r["idleSessionBytes"] for items in results.values() for r in items]
    lines += [
        "",
        "| idle sessions | memory per session (server's resident memory, second half of the sessions) | target |",
        "|---|---|---|",
        f"| 1,000, each with one Counter | {statistics.median(idle) / 1024:.1f} KiB (median of {len(idle)} runs; at most {max(idle) / 1024:.1f} KiB) | under 64 KiB |",
        "",
    ]
    for (sessions, interval), (p99, all_p99) in worst_p99.items():
        verdict = "met in every run" if p99 < P99_TARGET_MS else "NOT met in every run"
        per_second = sessions * 1000 // interval
        lines.append(f"- {sessions:,} sessions at {per_second:,} inputs per second: the p99 target (under 5 ms) is "
                     f"{verdict}; p99 per run: {', '.join(ms(v) for v in all_p99)}.")
    verdict = "met in every run" if max(idle) < IDLE_TARGET_BYTES else "NOT met in every run"
    lines.append(f"- Memory per idle session: the target (under 64 KiB) is {verdict}.")
    lines.append("- Almost all of a web round trip is the trip itself (two WebSocket frames on loopback, "
                 "the bridge's tasks, the loader's own turn on the same cores), not the library: compare the C ABI column.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fusion", required=True)
    parser.add_argument("--loader", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write", metavar="DOC", help="rewrite the web-load section of this Markdown file")
    args = parser.parse_args()
    results: dict[tuple[int, int, int], list[dict]] = {}
    for load in LOADS:
        for _run in range(args.runs):
            result = run_once(args, *load)
            print(json.dumps(result), file=sys.stderr)
            results.setdefault(load, []).append(result)
    section = render(results, args.runs)
    print(section)
    if args.write:
        path = Path(args.write)
        text = path.read_text()
        if BEGIN in text:
            head, rest = text.split(BEGIN, 1)
            text = head + BEGIN + "\n" + section + "\n" + END + rest.split(END, 1)[1]
        else:
            text = text.rstrip("\n") + "\n\n## The web bridge under load\n\n" + BEGIN + "\n" + section + "\n" + END + "\n"
        path.write_text(text)


if __name__ == "__main__":
    main()
