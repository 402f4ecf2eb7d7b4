"""The clock-records block of docs/reliability.md, from Benchmarks/results/clock-records.json
(Benchmarks/journal/clock_records.py): a long live-scan session's journal with a clock move
per 10 ms step and with a move only when a scan is due."""
from __future__ import annotations

from typing import Any

from figures import count, sig, times

DOCUMENT, BLOCK, RESULTS = "docs/reliability.md", "clock-records", "clock-records.json"


def _span(values: list[float], write: Any) -> str:
    low, high = write(min(values)), write(max(values))
    return low if low == high else f"{low}–{high}"


def _kib(value: float) -> str:
    return f"{sig(value / 1024)} KiB"


def _seconds(value: float) -> str:
    return f"{sig(value * 1000)} ms" if value < 1 else f"{sig(value)} s"


def render(raw: dict[str, Any]) -> str:
    every, due = raw["runs"]["everyStep"], raw["runs"]["whenDue"]
    machine = raw["machine"]
    minutes = raw["minutes"]

    def row(name: str, runs: list[dict[str, Any]]) -> str:
        return (f"| {name} | {_span([r['records'] for r in runs], count)} | {_span([r['bytes'] for r in runs], _kib)} "
                f"| {_span([r['writeSeconds'] for r in runs], _seconds)} | {_span([r['replaySeconds'] for r in runs], _seconds)} |")

    size = [e["bytes"] / d["bytes"] for e, d in zip(every, due, strict=True)]
    replay = [e["replaySeconds"] / d["replaySeconds"] for e, d in zip(every, due, strict=True)]
    same = all(e["version"] == d["version"] for e, d in zip(every, due, strict=True))
    return "\n".join([
        f"Measured {raw['measured']} by `Benchmarks/journal/clock_records.py` (Python {machine['python']}, "
        f"{machine['cores']} cores, journals on {machine['filesystem']}): the Wi-Fi page with its live scan for "
        f"{minutes:g} simulated minutes ({count(minutes * 60e9 / raw['stepNanoseconds'])} steps of the real-time "
        f"clock), {len(every)} runs of each, alternating. Replay is resuming the journal into a new instance, which "
        "reaches the state and version it was written with"
        + (", the same in both runs of a pair." if same else "; the pairs of runs ended at different versions."),
        "",
        "| clock moves journaled | records | journal | writing it | replaying it |",
        "|---|---|---|---|---|",
        row("every step (a library without `fk_next_wake`)", every),
        row("when a sleep is due (`fk_next_wake`)", due),
        "",
        f"Journaling the clock only when a scan is due made the journal {_span(size, times)} smaller and its replay "
        f"{_span(replay, times)} faster. It still grows by a record per scan: without checkpoints a journal is bounded "
        "by the session's length, not by its state.",
    ])
