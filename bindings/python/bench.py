#!/usr/bin/env python3
"""Benchmark (not a test): a Counter round trip from Python through the fusionkit
package, next to the same Counter written in plain Python with `json`, and next to the
bare ctypes call it makes, in one process.

Each round times every workload once, in a rotating order, within a fraction of a second.
Every sample is kept (Benchmarks/results/python-bench.json with --results); the block of
docs/performance.md is rendered from them by Benchmarks/report, which takes each ratio
within each round and its median over the rounds (a shared machine slows down in spells
longer than a round, which then slow both sides of a ratio alike), and decides each
target over every run: one good run on a noisy machine proves nothing.
  - plain Python round trip / package round trip (both JSON text in, JSON text out): at least 5;
  - package round trip / the bare ctypes call (`fk_send_and_read_call` as the package
    calls it, and `.value`, with no method around it): at most 1.35;
  - plain Python round trip / the dict round trip (send_and_read): at least 2.5.

    python3 bindings/python/bench.py                    # the release library (.build/release)
    python3 bindings/python/bench.py --profile          # also: where the package's time goes (cProfile)
    python3 bindings/python/bench.py --runs 5 --results Benchmarks/results/python-bench.json
                                                        # five runs, kept (what scripts/bench does)

Workloads, per round trip:
  package       counter.send_and_read_json(b'"increase"')   (JSON in, JSON out: one call, fk_send_and_read_call)
  plain         json.loads('"increase"'), apply, json.dumps(state)   (the baseline: no native code)
  package-dict  counter.send_and_read("increase")             (the same, the state as a dict)
  two-calls     counter.send("increase"); counter.state     (fk_send, then fk_state_into: a dict)
  ctypes        fk_send_and_read_call as the package calls it, and `.value`, no method around it
  method        the same in the thinnest Python method returning what send_and_read_json does
                (the text and the version; no buffer pool, no checks): what no pure-ctypes package beats
  call          the floor: fk_version as the package would call it (GIL kept, no restype, two prepared arguments)
  call-argtypes fk_version through lib.c (argtypes, the GIL released): what a plain ctypes call costs
  parse         the Counter's state text to a dict, as `.state` does it (json's C scanner)
  c             fk_send_and_read from a C program (needs cc): the library's work alone
"""
from __future__ import annotations

import argparse
import cProfile
import ctypes
import io
import json
import os
import platform
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))

import fusionkit  # noqa: E402
import results  # noqa: E402
from fusionkit._native import NUL_TERMINATED, Call, holding_the_gil  # noqa: E402


class PlainCounter:
    """The Counter of Sources/FusionExamples/Counter, in plain Python: the baseline."""

    def __init__(self) -> None:
        self.state: dict[str, Any] = {"value": 0, "isReset": False, "alert": None}

    def send(self, input_json: str) -> str:
        input = json.loads(input_json)
        name = input if isinstance(input, str) else next(iter(input))
        state = self.state
        if name == "increase":
            state["value"] += 1
            state["isReset"] = False
        elif name == "decrease":
            state["value"] -= 1
            state["isReset"] = False
        elif name == "reset":
            state["value"] = 0
            state["isReset"] = True
        elif name == "show":
            state["alert"] = f"The value is {state['value']}."
        elif name == "alertDismissed":
            state["alert"] = None
        else:
            raise ValueError(f"unknown input {name!r}")
        return json.dumps(state)


def workloads(lib: fusionkit.Library, counter: fusionkit.Instance) -> dict[str, Callable[[int], None]]:
    plain = PlainCounter()
    c = lib.c
    handle = counter.handle
    version = ctypes.c_uint64()
    version_ref = ctypes.byref(version)
    increase = b'"increase"'
    memory = ctypes.create_string_buffer(1024)
    call = Call(ctypes.addressof(memory), 1024, 0, 0, handle, NUL_TERMINATED)
    call_ref = ctypes.byref(call)
    # As the package calls it: no argtypes, the GIL kept (see fusionkit._native.holding_the_gil).
    send_and_read_call = holding_the_gil(c, "fk_send_and_read_call")

    def package(n: int) -> None:
        for _ in range(n):
            counter.send_and_read_json(increase)

    def plain_python(n: int) -> None:
        for _ in range(n):
            plain.send('"increase"')

    def package_dict(n: int) -> None:
        for _ in range(n):
            counter.send_and_read("increase")

    def two_calls(n: int) -> None:
        for _ in range(n):
            counter.send("increase")
            counter.state

    def bare_ctypes(n: int) -> None:
        for _ in range(n):
            send_and_read_call(call_ref, increase)
            memory.value

    # The least a method returning what send_and_read_json returns can do: the bare call
    # in a Python method, `.value` and the version, as a tuple; no pool, no checks.
    class ThinnestMethod:
        __slots__ = ("call", "ref", "memory", "version")

        def __init__(self) -> None:
            self.call, self.ref, self.memory = send_and_read_call, call_ref, memory
            self.version = ctypes.c_uint64.from_buffer(call, Call.version.offset)

        def send_and_read_json(self, text: bytes) -> tuple[bytes, int]:
            self.call(self.ref, text)
            return self.memory.value, self.version.value

    thinnest = ThinnestMethod()

    def thinnest_method(n: int) -> None:
        for _ in range(n):
            thinnest.send_and_read_json(increase)

    # The floor: the same kind of call as the package's (see holding_the_gil), two prepared arguments.
    floor_version = holding_the_gil(c, "fk_version")
    handle_argument = ctypes.c_uint64(handle)

    def one_call(n: int) -> None:
        for _ in range(n):
            floor_version(handle_argument, version_ref)

    def argtypes_call(n: int) -> None:
        for _ in range(n):
            c.fk_version(handle, version_ref)

    state_text = counter.state_json()[0]
    scan: Callable[[str, int], tuple[Any, int]] = getattr(json.JSONDecoder(), "scan_once")  # as `.state` does  # noqa: B009 (typeshed lacks it)

    def parse(n: int) -> None:
        for _ in range(n):
            scan(state_text.decode("utf-8"), 0)

    return {"package": package, "plain": plain_python, "package-dict": package_dict, "two-calls": two_calls,
            "ctypes": bare_ctypes, "method": thinnest_method, "call": one_call, "call-argtypes": argtypes_call,
            "parse": parse}


# The same round trip from C, timed inside the program: what the library's work costs with
# no Python at all, measured in the same run as the rest.
C_LOOP = r"""
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "fusionkit.h"
static long long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    fk_instance c;
    char data[1024];
    fk_buffer buffer = { data, sizeof data, 0, 0 };
    if (fk_abi_version() != FK_ABI_VERSION || fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &c) != FK_OK) return 1;
    for (int i = 0; i < n; i++) fk_send_and_read(c, "\"increase\"", 10, &buffer);
    long long start = now();
    for (int i = 0; i < n; i++) fk_send_and_read(c, "\"increase\"", 10, &buffer);
    printf("%.3f\n", (double)(now() - start) / n);
    return fk_destroy(c);
}
"""


def c_loop(lib: fusionkit.Library, folder: Path) -> Callable[[int], float] | None:
    """Builds the C round trip against `lib`; None without a C compiler."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        return None
    source = folder / "roundtrip.c"
    source.write_text(C_LOOP)
    exe = folder / "roundtrip"
    subprocess.run([cc, "-O2", "-std=c11", f"-I{ROOT / 'include'}", str(source), str(lib.path),
                    f"-Wl,-rpath,{lib.path.parent}", "-o", str(exe)], check=True)

    def run(n: int) -> float:
        out = subprocess.run([str(exe), str(n)], check=True, capture_output=True, text=True).stdout
        return float(out) / 1e9  # seconds per round trip

    return run


def measure(lib: fusionkit.Library, rounds: int, per_round: int) -> dict[str, list[float]]:
    """Seconds per operation, one sample per round per workload."""
    samples: dict[str, list[float]] = {}
    with lib.create("counter") as counter, tempfile.TemporaryDirectory() as folder:
        work = workloads(lib, counter)
        names = list(work)
        in_c = c_loop(lib, Path(folder))
        if in_c is not None:
            names.append("c")
        for name in work:  # warm up
            work[name](per_round // 10 + 1)
        for round_number in range(rounds):
            shift = round_number % len(names)
            for name in names[shift:] + names[:shift]:
                if name == "c" and in_c is not None:
                    samples.setdefault(name, []).append(in_c(per_round))
                    continue
                start = time.perf_counter_ns()
                work[name](per_round)
                samples.setdefault(name, []).append((time.perf_counter_ns() - start) / per_round / 1e9)
    return samples


def profile(lib: fusionkit.Library, iterations: int) -> str:
    """cProfile of the package round trip: the functions by their own time."""
    with lib.create("counter") as counter:
        work = workloads(lib, counter)["package"]
        profiler = cProfile.Profile()
        profiler.runcall(work, iterations)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(12)
    return out.getvalue()


def raw_results(lib: fusionkit.Library, runs: list[dict[str, list[float]]], rounds: int, per_round: int) -> dict[str, Any]:
    """Every sample of every run, as Benchmarks/results keeps them."""
    return {
        "benchmark": "python-bench",
        "measured": results.measured_now(),
        "machine": {"cpu": results.cpu_model(), "cores": os.cpu_count() or 1, "python": platform.python_version()},
        "library": "release" if "/release/" in str(lib.path) or "_lib" in str(lib.path) else "debug",
        "rounds": rounds, "perRound": per_round, "runs": runs,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", type=Path, default=ROOT / ".build" / "release" / "libFusionExamples.so",
                        help="the library to drive (default: the release build)")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--per-round", type=int, default=20_000, help="round trips per workload per round")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the package round trip")
    parser.add_argument("--results", type=Path, help="keep every sample in this JSON file (Benchmarks/results)")
    parser.add_argument("--runs", type=int, default=1,
                        help="consecutive runs (each a full measurement); the targets must hold in every one")
    args = parser.parse_args(argv)
    if not args.library.is_file():
        print(f"no library at {args.library}; build it with `swift build -c release --product FusionExamples`",
              file=sys.stderr)
        return 1
    lib = fusionkit.load(args.library)
    runs = []
    for number in range(args.runs):
        runs.append(measure(lib, args.rounds, args.per_round))
        print(f"run {number + 1} of {args.runs} measured", file=sys.stderr)
    raw = raw_results(lib, runs, args.rounds, args.per_round)
    import python_bench  # the renderer of the block: the same text from this run as from the kept file
    print(python_bench.render(raw))
    if args.profile:
        print()
        print(profile(lib, 50_000))
    if args.results:
        results.keep(args.results, raw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
