"""The baseline block of docs/performance.md, from Benchmarks/results/baseline.json
(Benchmarks/baseline/run.py): the native library now beside the library before issue
37's changes, built from its last commit before them, in the same run: the C one-call
round trip, the Python round trip and the heap per Counter instance. Each target decided
over every run."""
from __future__ import annotations

from typing import Any

from figures import median, paired, sig, times
from verdicts import judge

DOCUMENT, BLOCK, RESULTS = "docs/performance.md", "baseline", "baseline.json"

#: Now at most this many times before.
MOST = 1.05
ROWS = (
    ("C one-call round trip (`fk_send_and_read`)", "cOneCallNs", "ns"),
    ("Python round trip (`send_and_read_json`)", "pythonRoundTripNs", "ns"),
)


def render(raw: dict[str, Any]) -> str:
    runs: list[dict[str, Any]] = raw["runs"]
    last = runs[-1]
    machine, before = raw["machine"], raw["before"]
    origin = f"built from commit {before['commit']}" if before.get("commit") else f"`{before['library']}`"
    lines = [
        f"Measured {raw['measured']} on {machine['cpu']}, {machine['cores']} cores, release builds: "
        f"`Benchmarks/baseline/run.py`, {len(runs)} run{'s' if len(runs) > 1 else ''} of "
        f"{len(last['rounds']['now']['cOneCallNs'])} rounds, the library before ({origin}) and now alternating in "
        f"fresh processes; {raw['calls']:,} C calls or {raw['calls'] // 5:,} Python calls per measurement, the heap "
        f"of {raw['instances']:,} instances. The table is the last run's: medians over the rounds, and the median of "
        "the rounds' ratios.",
        "",
        "| the Counter | before | now | now / before |",
        "|---|---|---|---|",
    ]
    for label, key, unit in ROWS:
        now, then = last["rounds"]["now"][key], last["rounds"]["before"][key]
        lines.append(f"| {label} | {sig(median(then))} {unit} | {sig(median(now))} {unit} | {times(paired(now, then))} |")
    heap = last["heapPerInstanceBytes"]
    lines.append(f"| heap per instance | {sig(heap['before'])} B | {sig(heap['now'])} B | "
                 f"{times(heap['now'] / heap['before'])} |")
    lines.append("")
    for label, key, _ in ROWS:
        per_run = [paired(run["rounds"]["now"][key], run["rounds"]["before"][key]) for run in runs]
        lines.append(f"- {label.split(' (')[0]}, now / before: {', '.join(times(r) for r in per_run)} (run by run); "
                     f"target at most {times(MOST)} in every run: {judge(per_run, lambda r: r <= MOST)}.")
    per_run = [run["heapPerInstanceBytes"]["now"] / run["heapPerInstanceBytes"]["before"] for run in runs]
    lines.append(f"- Heap per instance, now / before: {', '.join(times(r) for r in per_run)} (run by run); "
                 f"target at most {times(MOST)} in every run: {judge(per_run, lambda r: r <= MOST)}.")
    return "\n".join(lines)
