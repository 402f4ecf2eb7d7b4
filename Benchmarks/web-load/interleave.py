#!/usr/bin/env python3
"""Side by side (not a measured block): two or more `fusion` builds under the web load,
interleaved, each run on a fresh bridge, so that a change is judged against the build
before it on the same machine at the same time. Prints one JSON line per run.

A build is a path to a `fusion` executable, optionally `@N` for N of NIO's event loops
(NIO_SINGLETON_GROUP_LOOP_COUNT):

    Benchmarks/web-load/interleave.py --rounds 4 /tmp/fusion-before .build/release/fusion \\
        .build/release/fusion@2 [--load 500] [--library …] [--loader .build/bench/web_load]

What was measured this way for a change is kept, dated, in Benchmarks/profiles/.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import LOADS  # noqa: E402
from serve_load import run_once  # noqa: E402

SHOWN = ("webP50Ms", "webP99Ms", "inputsPerSecond", "serverCpuMs", "serverWaitedMs", "loaderWaitedMs",
         "idleSessionBytes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="+", help="fusion executables, each optionally @LOOPS")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--load", type=int, choices=[interval for _, interval, _ in LOADS],
                        help="one load only, by its interval in ms (default: every load of run.py)")
    parser.add_argument("--library", default=str(ROOT / ".build/release/libFusionExamples.so"))
    parser.add_argument("--loader", default=str(ROOT / ".build/bench/web_load"))
    args = parser.parse_args()
    loads = [load for load in LOADS if args.load in (None, load[1])]
    for round_number in range(args.rounds):
        # Every other round in reverse, so that no build always runs right after another.
        order = args.builds if round_number % 2 == 0 else args.builds[::-1]
        for sessions, interval, inputs in loads:
            for build in order:
                fusion, _, loops = build.partition("@")
                if loops:
                    os.environ["NIO_SINGLETON_GROUP_LOOP_COUNT"] = loops
                else:
                    os.environ.pop("NIO_SINGLETON_GROUP_LOOP_COUNT", None)
                measured, _ = run_once(fusion, args.loader, args.library, sessions, interval, inputs)
                shown = {key: measured[key] for key in SHOWN}
                print(json.dumps({"round": round_number + 1, "inputsPerSecondOffered": sessions * 1000 // interval,
                                  "build": build, **shown}), flush=True)


if __name__ == "__main__":
    main()
