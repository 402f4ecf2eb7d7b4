#!/usr/bin/env python3
"""Benchmark (not a test): a Counter round trip from Python through the fusionkit
package, next to the same Counter written in plain Python with `json`, in one process.

Each round times every workload once, in a rotating order, within a fraction of a second.
A ratio is taken within each round, and its median over the rounds is the run's ratio:
a shared machine slows down in spells longer than a round, and a spell then slows both
sides of a ratio alike, where a ratio of two medians would compare samples taken at
different times (and swing with the spells). The ratios to read, with their targets
(the report lists each run's ratios, and a target is met only when it holds in every
run: one good run on a noisy machine proves nothing):
  - plain Python round trip / package round trip (both JSON text in, JSON text out): at least 3;
  - package round trip / one bare ctypes call (fk_version): at most 1.3 (the package's floor);
  - plain Python round trip / the dict round trip (send_and_read): at least 2.

    python3 bindings/python/bench.py                # the release library (.build/release)
    python3 bindings/python/bench.py --profile      # also: where the package's time goes (cProfile)
    python3 bindings/python/bench.py --write        # also: rewrite the measured block of docs/performance.md
    python3 bindings/python/bench.py --runs 5       # five consecutive runs (what scripts/bench writes)

Workloads, per round trip:
  package      counter.send_and_read_json(b'"increase"')   (JSON in, JSON out: one call, fk_send_and_read_call)
  plain        json.loads('"increase"'), apply, json.dumps(state)   (the baseline: no native code)
  package-dict counter.send_and_read("increase")             (the same, the state as a dict)
  two-calls    counter.send("increase"); counter.state     (fk_send, then fk_state_into: a dict)
  ctypes       fk_send_and_read_call as the package calls it, prepared arguments, no method around it
  call         one fk_version call through ctypes (next to no native work: mostly ctypes' own cost)
  parse        the Counter's state text to a dict, as `.state` does it (json's C scanner)
  c            fk_send_and_read from a C program (needs cc): the library's work alone
"""
from __future__ import annotations

import argparse
import cProfile
import ctypes
import datetime
import io
import json
import os
import platform
import pstats
import re
import shutil
import statistics
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

import fusionkit  # noqa: E402
from fusionkit._native import NUL_TERMINATED, Call, holding_the_gil  # noqa: E402

DOCS = ROOT / "docs" / "performance.md"
BEGIN = "<!-- python-bench:begin -->"
END = "<!-- python-bench:end -->"


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

    def one_call(n: int) -> None:
        for _ in range(n):
            c.fk_version(handle, version_ref)

    state_text = counter.state_json()[0]
    scan: Callable[[str, int], tuple[Any, int]] = getattr(json.JSONDecoder(), "scan_once")  # as `.state` does  # noqa: B009 (typeshed lacks it)

    def parse(n: int) -> None:
        for _ in range(n):
            scan(state_text.decode("utf-8"), 0)

    return {"package": package, "plain": plain_python, "package-dict": package_dict, "two-calls": two_calls,
            "ctypes": bare_ctypes, "call": one_call, "parse": parse}


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


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.2f} µs"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


#: The three targets of the issue, each a ratio of one run's medians: (what, test, how it is said).
TARGETS: tuple[tuple[str, Callable[[float], bool], str], ...] = (
    ("plain / package", lambda ratio: ratio >= 3, "at least 3×"),
    ("package / call", lambda ratio: ratio <= 1.3, "at most 1.3×"),
    ("plain / package-dict", lambda ratio: ratio >= 2, "at least 2×"),
)


def paired(samples: dict[str, list[float]], over: str, under: str) -> float:
    """The median over the rounds of each round's `over` / `under`: both sides of each
    ratio measured within one round, so the machine's speed at the time cancels out."""
    return statistics.median(a / b for a, b in zip(samples[over], samples[under], strict=True))


def verdicts(samples: dict[str, list[float]]) -> tuple[float, float, float]:
    """The three ratios the targets are about, each the median of its per-round ratios:
    plain / package (at least 3), package / one ctypes call (at most 1.3), plain / dict
    path (at least 2)."""
    return (paired(samples, "plain", "package"), paired(samples, "package", "call"),
            paired(samples, "plain", "package-dict"))


def report(lib: fusionkit.Library, runs: list[dict[str, list[float]]], rounds: int) -> str:
    """The block for docs/performance.md: the last run's tables, and the targets decided
    from every run (met only when the ratio holds in each), each run's ratio listed."""
    median = {name: statistics.median(values) for name, values in runs[-1].items()}
    ratios = [verdicts(run) for run in runs]
    met = [all(good(r[index]) for r in ratios) for index, (_, good, _) in enumerate(TARGETS)]

    def per_run(index: int) -> str:
        return ", ".join(f"{r[index]:.2f}×" for r in ratios)

    def verdict(index: int) -> str:
        every = "in every run" if len(runs) > 1 else "in this run"
        return f"target {TARGETS[index][2]} {every}: {'met' if met[index] else 'NOT met'}"

    build = "release" if "/release/" in str(lib.path) or "_lib" in str(lib.path) else "debug"
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    rows = [
        ("package, JSON in and out: `send_and_read_json(b'\"increase\"')` (one call)", "package"),
        ("package, the state as a dict: `send_and_read(\"increase\")`", "package-dict"),
        ("package, two calls: `send(\"increase\")` then `.state` (a dict)", "two-calls"),
        ("bare ctypes: `fk_send_and_read_call` as the package calls it, without the method around it", "ctypes"),
        ("one ctypes call (`fk_version`)", "call"),
        ("the state's JSON text to a dict (json's C scanner, as `.state` does)", "parse"),
        ("the same round trip from C (`fk_send_and_read`), no Python", "c"),
        ("plain Python Counter: `json.loads`, apply, `json.dumps` (baseline)", "plain"),
    ]
    runs_said = (f"{len(runs)} consecutive runs, each of {rounds} interleaved rounds; the tables are the last "
                 f"run's" if len(runs) > 1 else f"{rounds} interleaved rounds")
    last = runs[-1]
    lines = [
        f"Measured {stamp} on {machine()}, {build} library; {runs_said}. Times are medians over the rounds; "
        f"ratios are medians of the ratios within each round.",
        "",
        "| Counter round trip from Python | median | plain Python is | `fk_version` calls |",
        "|---|---|---|---|",
    ]
    for label, name in rows:
        if name not in median:
            continue
        lines.append(f"| {label} | {us(median[name])} | {paired(last, 'plain', name):.2f}× that "
                     f"| {paired(last, name, 'call'):.2f} |")
    faster, floor, dict_ratio = ratios[-1]
    lines += ["",
              f"**The package's round trip, JSON in and JSON out, is {faster:.2f}× faster than the plain Python "
              f"Counter** ({us(median['package'])} against {us(median['plain'])}); per run: {per_run(0)}; "
              f"{verdict(0)}.",
              "",
              f"- Against its floor: the package's round trip costs {floor:.2f}× one bare ctypes call "
              f"(`fk_version`, {us(median['call'])}); per run: {per_run(1)}; {verdict(1)}.",
              f"- The state as a dict: `send_and_read` is {dict_ratio:.2f}× faster than plain Python "
              f"({us(median['package-dict'])}); per run: {per_run(2)}; {verdict(2)}."]
    if "c" in median:
        # Where the package's round trip goes, by subtraction of the medians above: the
        # library's own work (timed from C), ctypes (one call: the two arguments, the
        # result, reading the text back), and the package's Python around them.
        native = median["c"]
        crossings = max(median["ctypes"] - native, 0.0)
        python = max(median["package"] - median["ctypes"], 0.0)
        total = median["package"]
        lines += ["", "| where the package's round trip goes | time | share |", "|---|---|---|"]
        for label, part in (("the library's work: fk_send_and_read, timed from C", native),
                            ("ctypes: one call into C (arguments, result, reading the text)", crossings),
                            ("the package's Python (the method, the buffer pool, the version, the checks)", python)):
            lines.append(f"| {label} | {us(part)} | {part / total:.0%} |")
    return "\n".join(lines)


def write_docs(block: str) -> None:
    """Replaces only the block between this tool's markers (appending it the first time);
    the fusion-bench block and everything else stay as they are."""
    text = DOCS.read_text()
    new_block = f"{BEGIN}\n{block}\n{END}"
    if BEGIN in text and END in text:
        text = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END), lambda _: new_block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + new_block + "\n"
    DOCS.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", type=Path, default=ROOT / ".build" / "release" / "libFusionExamples.so",
                        help="the library to drive (default: the release build)")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--per-round", type=int, default=20_000, help="round trips per workload per round")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the package round trip")
    parser.add_argument("--write", action="store_true", help="rewrite the measured block of docs/performance.md")
    parser.add_argument("--runs", type=int, default=1,
                        help="consecutive runs (each a full measurement); the targets must hold in every one, "
                             "and the block written says so, run by run")
    args = parser.parse_args(argv)
    if not args.library.is_file():
        print(f"no library at {args.library}; build it with `swift build -c release --product FusionExamples`",
              file=sys.stderr)
        return 1
    lib = fusionkit.load(args.library)
    runs = []
    for number in range(args.runs):
        runs.append(measure(lib, args.rounds, args.per_round))
        if args.runs > 1:
            faster, floor, dict_ratio = verdicts(runs[-1])
            print(f"run {number + 1}: plain / package {faster:.2f}×, package / call {floor:.2f}×, "
                  f"plain / dict {dict_ratio:.2f}×", file=sys.stderr)
    block = report(lib, runs, args.rounds)
    print(block)
    if args.profile:
        print()
        print(profile(lib, 50_000))
    if args.write:
        write_docs(block)
        print(f"\nwrote {DOCS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
