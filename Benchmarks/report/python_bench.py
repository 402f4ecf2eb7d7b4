"""The python-bench block of docs/performance.md, from Benchmarks/results/python-bench.json
(bindings/python/bench.py): the package's Counter round trip next to plain Python and to
the bare ctypes call it makes, each target decided over every run."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from figures import listing, median, paired, sig, times
from verdicts import judge

DOCUMENT, BLOCK, RESULTS = "docs/performance.md", "python-bench", "python-bench.json"

#: (the ratio's name, its over and under, whether it is met, how the target is said)
TARGETS: tuple[tuple[str, str, str, Callable[[float], bool], str], ...] = (
    ("plain / package", "plain", "package", lambda r: r >= 5, "at least 5×"),
    ("package / bare ctypes", "package", "ctypes", lambda r: r <= 1.35, "at most 1.35×"),
    ("plain / dict", "plain", "package-dict", lambda r: r >= 2.5, "at least 2.5×"),
)

ROWS = (
    ("package, JSON in and out: `send_and_read_json(b'\"increase\"')` (one call)", "package"),
    ("package, the state as a dict: `send_and_read(\"increase\")`", "package-dict"),
    ("package, two calls: `send(\"increase\")` then `.state` (a dict)", "two-calls"),
    ("bare ctypes: `fk_send_and_read_call` as the package calls it, with `.value`, without the method around it",
     "ctypes"),
    ("the least a method can do: the same call in a Python method returning `.value` and the version "
     "(no buffer pool, no checks)", "method"),
    ("the floor: one ctypes call of the same kind (`fk_version`: two prepared arguments, the GIL kept, no restype)",
     "call"),
    ("one ctypes call through `argtypes`, releasing the GIL (`lib.c.fk_version`), for comparison", "call-argtypes"),
    ("the state's JSON text to a dict (json's C scanner, as `.state` does)", "parse"),
    ("the same round trip from C (`fk_send_and_read`), no Python", "c"),
    ("plain Python Counter: `json.loads`, apply, `json.dumps` (baseline)", "plain"),
)


def us(seconds: float) -> str:
    return f"{sig(seconds * 1e6)} µs"


def _thinnest(runs: list[dict[str, list[float]]], every: str) -> list[str]:
    """What the thinnest method returning the same costs over the bare call: the least any
    pure-ctypes package can reach, beside the target."""
    if not all("method" in run for run in runs):
        return []
    floor = [paired(run["method"], run["ctypes"]) for run in runs]
    under = sum(1 for r in floor if r <= 1.35)
    return [f"- The thinnest Python method that returns what `send_and_read_json` returns (the same call, `.value` "
            f"and the version; no buffer pool, no checks) already costs {listing(times(r) for r in floor)} the bare "
            f"call ({'every run' if len(runs) > 1 else 'this run'}); at most 1.35× {every}: "
            f"{'met' if under == len(floor) else f'not reached (in {under} of {len(floor)} runs)'}."]


def render(raw: dict[str, Any]) -> str:
    runs: list[dict[str, list[float]]] = raw["runs"]
    last = runs[-1]
    med = {name: median(values) for name, values in last.items()}
    ratios = [[paired(run[over], run[under]) for _, over, under, _, _ in TARGETS] for run in runs]
    every = "in every run" if len(runs) > 1 else "in this run"

    def said(index: int) -> str:
        name, _, _, good, target = TARGETS[index]
        per_run = ", ".join(times(r[index]) for r in ratios)
        return f"per run: {per_run}; target {target} {every}: {judge((r[index] for r in ratios), good)}"

    machine = raw["machine"]
    runs_said = (f"{len(runs)} consecutive runs, each of {raw['rounds']} interleaved rounds of "
                 f"{raw['perRound']:,} round trips per workload; the tables are the last run's")
    lines = [
        f"Measured {raw['measured']} on {machine['cpu']}, {machine['cores']} cores, Python {machine['python']}, "
        f"{raw['library']} library; {runs_said}. Times are medians over the rounds; ratios are medians of the "
        "ratios within each round.",
        "",
        "| Counter round trip from Python | median | plain Python is | floor calls |",
        "|---|---|---|---|",
    ]
    for label, name in ROWS:
        if name in med:
            lines.append(f"| {label} | {us(med[name])} | {times(paired(last['plain'], last[name]))} that "
                         f"| {sig(paired(last[name], last['call']))} |")
    faster, over_bare, dict_ratio = ratios[-1]
    lines += [
        "",
        f"**The package's round trip, JSON in and JSON out, is {times(faster)} faster than the plain Python Counter** "
        f"({us(med['package'])} against {us(med['plain'])}); {said(0)}.",
        "",
        f"- Against the bare ctypes call: the package's round trip costs {times(over_bare)} "
        f"`fk_send_and_read_call` with `.value`, without the method around it ({us(med['ctypes'])}); {said(1)}.",
        *_thinnest(runs, every),
        f"- The state as a dict: `send_and_read` is {times(dict_ratio)} faster than plain Python "
        f"({us(med['package-dict'])}); {said(2)}.",
    ]
    if "c" in med:
        # Where the round trip goes, by subtraction of medians of the same run: the library's
        # own work (timed from C), the crossing (the bare ctypes call and `.value` less that),
        # and the package's Python around the call (the method less the bare call).
        native = med["c"]
        crossing = max(med["ctypes"] - native, 0.0)
        python = max(med["package"] - med["ctypes"], 0.0)
        total = med["package"]
        lines += ["", "| where the package's round trip goes | time | share |", "|---|---|---|"]
        parts = (("the library's work: fk_send_and_read, timed from C", native),
                 ("ctypes: one call into C and `.value` (arguments, result, the text as bytes)", crossing),
                 ("the package's Python (the method, the buffer pool, the version, the checks)", python))
        for label, part in parts:
            lines.append(f"| {label} | {us(part)} | {part / total:.0%} |")
        largest = max(parts, key=lambda item: item[1])[0].split(":")[0].split(" (")[0]
        lines += ["", f"- The largest part of the round trip: {largest}."]
    return "\n".join(lines)
