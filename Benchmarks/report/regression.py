#!/usr/bin/env python3
"""The smoke run's regression guard: the same-run ratios it measured, against the
committed results (Benchmarks/results), each allowed to be worse by at most its band.

    python3 Benchmarks/report/regression.py --smoke DIR [--committed DIR] [--build debug|release]
                                            [--bench-build debug|release]

Only ratios measured within one run are compared (a subject next to its baseline, both
timed in the same rounds), never absolute times. A round-based ratio is compared as the
ratio of each side's fastest round over all runs: other work on the machine only ever
adds time, and it comes in bursts that hit one side of a round and not the other (in
smoke runs beside other builds, the package's round trip over the bare ctypes call
went from 1.8× to 5.9× between rounds of one run, while the fastest rounds' ratio
stayed within 1.81-1.95× over four runs). The bands, stated here and in
docs/performance.md's introduction:
- a ratio of typical figures (fastest rounds, or medians of runs) may be worse by at
  most 25% (MEDIAN_BAND);
- a ratio of tail figures (a p99, each side's lowest of its runs) by at most 2×
  (TAIL_BAND);
- patch / whole by at most 2× (PATCH_BAND): a patch (small allocations, a walk of the
  old and new states) and the whole state (one stream of bytes) speed up differently
  when the machine does: between two sessions on the same machine, every C time fell by
  40% and the Counter ratio held at 18.8-19.1× against 18.9×, while patch / whole at
  1,000 networks went from 0.064 to 0.082-0.100. A patch that lost its point (the whole
  state, or a walk of every element) is 10× worse or more, far outside the band.
Better is never a failure. A figure is compared only where both measurements mean the
same thing; otherwise it is listed as not compared, with the reason:
- a program built in debug times debug code on one side of its ratio, so the C round
  trips and patch/whole are compared only when the smoke run's fusion-bench is a release
  build (--bench-build; scripts/bench --smoke builds it so, which is cheap after the
  release library), and the bridge's p99 only when its `fusion` is (--build; the smoke
  run's is the debug build the tests made: a release build of the bridge's packages
  would double CI's build time), so the full run measures the smoke run's load on that
  debug build too, as the guard's reference (web-load-guard.json, not rendered); the
  library both load is the release build either way;
- the Python ratios weigh the interpreter's speed against C's: compared only when both
  ran on the same Python (major.minor) version;
- the web p99 depends on the load: compared only at the same sessions and rate.
Exit status 1 if any compared figure is worse than its band allows, printing both numbers."""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from figures import median, sig  # noqa: E402

ROOT = HERE.parents[1]
#: How much worse than committed a ratio of medians may be in the smoke run.
MEDIAN_BAND = 1.25
#: How much worse a ratio of tail figures (p99) may be.
TAIL_BAND = 2.0
#: How much worse patch / whole may be (see the module's docstring for why not 25%).
PATCH_BAND = 2.0

Raw = dict[str, Any]


@dataclass(frozen=True)
class Figure:
    name: str
    results: str
    value: Callable[[Raw], float | None]
    higher_is_better: bool
    band: float
    #: Why the two results cannot be compared (None: they can), given (committed, smoke,
    #: how the smoke run built the figure's program).
    incomparable: Callable[[Raw, Raw, str], str | None]
    #: The program that measured it: "fusion-bench", or "fusion" (the bridge, for web-load).
    program: str = "fusion-bench"
    #: The committed file compared with the smoke run's `results`, when not the same name.
    reference: str | None = None

    def limit(self, committed: float) -> float:
        return committed / self.band if self.higher_is_better else committed * self.band

    def worse(self, committed: float, smoke: float) -> bool:
        return smoke < self.limit(committed) if self.higher_is_better else smoke > self.limit(committed)


def _release_only(_: Raw, __: Raw, build: str) -> str | None:
    return None if build == "release" else f"the smoke run's program is a {build} build (the committed, release)"


def _same_python(committed: Raw, smoke: Raw, _: str) -> str | None:
    a, b = committed["machine"].get("python", "?"), smoke["machine"].get("python", "?")
    return None if a.split(".")[:2] == b.split(".")[:2] else f"measured on Python {a}, the smoke run on {b}"


def fastest(over: list[float], under: list[float]) -> float:
    """The ratio of the two sides' fastest rounds."""
    return min(over) / min(under)


def _same_web_load(committed: Raw, smoke: Raw, build: str) -> str | None:
    def loads(raw: Raw) -> set[tuple[int, int, int]]:
        return {(load["sessions"], load["intervalMs"], load.get("inputsPerSession", 0)) for load in raw["loads"]}
    if not loads(committed) & loads(smoke):
        return "the smoke run's load differs from every committed load"
    measured_on = committed.get("fusionBuild", "release")
    if build != measured_on:
        return f"the smoke run's program is a {build} build (the committed, {measured_on})"
    return None


def _python_ratio(over: str, under: str) -> Callable[[Raw], float]:
    return lambda raw: fastest([x for run in raw["runs"] for x in run[over]],
                               [x for run in raw["runs"] for x in run[under]])


def _comparison(key: str) -> Callable[[Raw], float | None]:
    def value(raw: Raw) -> float | None:
        found = [c for c in raw["comparisons"] if c["key"] == key]
        return fastest(found[0]["baselineNanos"], found[0]["subjectNanos"]) if found else None
    return value


def _patch(networks: int) -> Callable[[Raw], float | None]:
    def value(raw: Raw) -> float | None:
        found = [p for p in raw.get("patch", []) if p["networks"] == networks]
        return fastest(found[0]["patchNanos"], found[0]["wholeNanos"]) if found else None
    return value


def _heap(raw: Raw) -> float | None:
    return median(r["abiHeapPerInstance"] for r in raw["memory"]) if raw.get("memory") else None


def _web_over_abi(raw: Raw) -> float | None:
    # The smallest load both runs have is compared: the smoke run's one load. Each side's
    # least disturbed run, as for rounds: one debug bridge's p99 went 1.26, 3.72 and 4.80 ms
    # in three runs of one smoke load, and the committed reference's 1.36 to 2.81 ms.
    load = min(raw["loads"], key=lambda load: load["sessions"])
    runs = load["runs"]
    return float(min(r["webP99Ms"] for r in runs)) / float(min(r["abiP99Ms"] for r in runs))


#: Committed results that only this guard reads (no document renders them).
REFERENCES = frozenset({"web-load-guard.json"})

FIGURES: tuple[Figure, ...] = (
    Figure("C: Counter round trip, Foundation baseline / C ABI", "fusion-bench.json", _comparison("counter"), True,
           MEDIAN_BAND, _release_only),
    Figure("C: Wi-Fi state of 1,000 networks, Foundation baseline / C ABI", "fusion-bench.json",
           _comparison("large"), True, MEDIAN_BAND, _release_only),
    *(Figure(f"C: patch / whole state at {n:,} networks", "fusion-bench.json", _patch(n), False, PATCH_BAND,
             _release_only) for n in (10, 100, 1000, 10000)),
    Figure("C ABI: heap per Counter instance (bytes)", "fusion-bench.json", _heap, False, MEDIAN_BAND,
           lambda _, __, ___: None),
    Figure("Python: plain Python / package round trip", "python-bench.json", _python_ratio("plain", "package"),
           True, MEDIAN_BAND, _same_python),
    Figure("Python: package round trip / bare ctypes call", "python-bench.json",
           _python_ratio("package", "ctypes"), False, MEDIAN_BAND, _same_python),
    Figure("Python: plain Python / send_and_read (dict)", "python-bench.json",
           _python_ratio("plain", "package-dict"), True, MEDIAN_BAND, _same_python),
    Figure("Web: bridge p99 / C ABI p99", "web-load.json", _web_over_abi, False, TAIL_BAND, _same_web_load, "fusion",
           "web-load-guard.json"),
)


@dataclass(frozen=True)
class Outcome:
    figure: Figure
    committed: float | None
    smoke: float | None
    skipped: str | None

    @property
    def failed(self) -> bool:
        return (self.skipped is None and self.committed is not None and self.smoke is not None
                and self.figure.worse(self.committed, self.smoke))

    def __str__(self) -> str:
        f = self.figure
        if self.skipped:
            return f"not compared  {f.name}: {self.skipped}"
        assert self.committed is not None and self.smoke is not None
        way = "at least" if f.higher_is_better else "at most"
        said = (f"{f.name}: smoke {sig(self.smoke)}, committed {sig(self.committed)} "
                f"({way} {sig(f.limit(self.committed))} allowed, band {f.band:g}×)")
        return f"{'WORSE' if self.failed else 'ok':<12}  {said}"


def compare(committed: Path, smoke: Path, build: str, figures: tuple[Figure, ...] = FIGURES,
            bench_build: str | None = None) -> list[Outcome]:
    """`build`: how the smoke run built `fusion`; `bench_build`: fusion-bench (default: the same)."""
    builds = {"fusion": build, "fusion-bench": bench_build or build}
    outcomes = []
    for figure in figures:
        paths = committed / (figure.reference or figure.results), smoke / figure.results
        if not all(path.is_file() for path in paths):
            missing = " and ".join(str(path) for path in paths if not path.is_file())
            outcomes.append(Outcome(figure, None, None, f"no results at {missing}"))
            continue
        old, new = (json.loads(path.read_text()) for path in paths)
        reason = figure.incomparable(old, new, builds[figure.program])
        a, b = (None, None) if reason else (figure.value(old), figure.value(new))
        if reason is None and (a is None or b is None):
            reason = "not in " + ("the committed results" if a is None else "the smoke run's results")
        outcomes.append(Outcome(figure, a, b, reason))
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", type=Path, required=True, help="the smoke run's results folder")
    parser.add_argument("--committed", type=Path, default=ROOT / "Benchmarks" / "results")
    parser.add_argument("--build", choices=("debug", "release"), default="debug",
                        help="how the smoke run built fusion (and fusion-bench, unless --bench-build says)")
    parser.add_argument("--bench-build", choices=("debug", "release"), help="how the smoke run built fusion-bench")
    args = parser.parse_args(argv)
    outcomes = compare(args.committed, args.smoke, args.build, bench_build=args.bench_build)
    for outcome in outcomes:
        print(outcome)
    failed = [o for o in outcomes if o.failed]
    if failed:
        print(f"\n{len(failed)} figure(s) worse than the committed results by more than their band", file=sys.stderr)
        return 1
    print(f"regression guard: {sum(o.skipped is None for o in outcomes)} figure(s) compared, none worse than its band")
    return 0


if __name__ == "__main__":
    sys.exit(main())
