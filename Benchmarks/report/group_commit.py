"""The group-commit block of docs/reliability.md, from Benchmarks/results/group-commit.json
(Benchmarks/journal/group_commit.py): the bridge's journals with a sync per record and
with shared syncs, run by run, and the prose from the same numbers."""
from __future__ import annotations

from typing import Any

from figures import count, sig, times

DOCUMENT, BLOCK, RESULTS = "docs/reliability.md", "group-commit", "group-commit.json"


def _span(values: list[float], write: Any) -> str:
    low, high = write(min(values)), write(max(values))
    return low if low == high else f"{low}–{high}"


def _ms(value: float) -> str:
    return f"{sig(value)} ms"


def _in_runs(held: list[bool]) -> str:
    return "in every run" if all(held) else f"in {sum(held)} of {len(held)} runs"


def render(raw: dict[str, Any]) -> str:
    each, group = raw["runs"]["each"], raw["runs"]["group"]
    machine = raw["machine"]
    throughput = [g["inputsPerSecond"] / e["inputsPerSecond"] for e, g in zip(each, group, strict=True)]
    p99 = [g["webP99Ms"] / e["webP99Ms"] for e, g in zip(each, group, strict=True)]
    p50 = [g["webP50Ms"] / e["webP50Ms"] for e, g in zip(each, group, strict=True)]
    per_sync = [g["records"] / g["syncs"] for g in group]
    errors = sum(r["errors"] for r in each + group)

    def row(name: str, runs: list[dict[str, Any]]) -> str:
        return (f"| {name} | {_span([r['inputsPerSecond'] for r in runs], count)} "
                f"| {_span([r['webP50Ms'] for r in runs], _ms)} | {_span([r['webP99Ms'] for r in runs], _ms)} |")

    faster = [r > 1 for r in throughput]
    lower = [r < 1 for r in p99]
    lines = [
        f"Measured {raw['measured']} by `Benchmarks/journal/group_commit.py` ({machine['cores']} cores, journals on "
        f"{machine['filesystem']}): `fusion serve --journal` with {count(raw['sessions'])} sessions, each sending "
        f"{raw['inputsPerSession']} inputs as fast as their oks come back, loader and bridge on the same machine; "
        f"{len(each)} runs of each mode, alternating. Latency is from writing an input to reading its patch.",
        "",
        "| journal syncs | inputs per second | p50 | p99 |",
        "|---|---|---|---|",
        row("one per record (`--journal-sync each`)", each),
        row("shared (`--journal-sync group`)", group),
        f"| group ÷ each, run by run | {_span(throughput, times)} | {_span(p50, times)} | {_span(p99, times)} |",
        "",
        f"Group commit put {_span(per_sync, sig)} records on the disk per sync. It raised the inputs per second "
        f"{_in_runs(faster)}, and lowered the p99 latency {_in_runs(lower)}. "
        + ("No input was refused." if errors == 0 else f"{count(errors)} inputs were refused."),
    ]
    return "\n".join(lines)
