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
    every, due, checkpointed = raw["runs"]["everyStep"], raw["runs"]["whenDue"], raw["runs"]["checkpoints"]
    machine = raw["machine"]
    minutes = raw["minutes"]

    def row(name: str, runs: list[dict[str, Any]]) -> str:
        return (f"| {name} | {_span([r['records'] for r in runs], count)} | {_span([r['bytes'] for r in runs], _kib)} "
                f"| {_span([r['largestBytes'] for r in runs], _kib)} "
                f"| {_span([r['writeSeconds'] for r in runs], _seconds)} | {_span([r['replaySeconds'] for r in runs], _seconds)} |")

    def ratio(key: str, over: list[dict[str, Any]], under: list[dict[str, Any]]) -> str:
        return _span([o[key] / u[key] for o, u in zip(over, under, strict=True)], times)

    return "\n".join([
        f"Measured {raw['measured']} by `Benchmarks/journal/clock_records.py` (Python {machine['python']}, "
        f"{machine['cores']} cores, journals on {machine['filesystem']}): the Wi-Fi page with its live scan for "
        f"{minutes:g} simulated minutes ({count(minutes * 60e9 / raw['stepNanoseconds'])} steps of the real-time "
        f"clock), {len(every)} runs of each way, in turn. Replay is resuming the journal into a new instance; each "
        "reached the state and version its journal was written with (the benchmark stops otherwise).",
        "",
        "| clock moves journaled | records at the end | journal at the end | at its largest | writing it | replaying it |",
        "|---|---|---|---|---|---|",
        row("every step (a library without `fk_next_wake`)", every),
        row("when a sleep is due (`fk_next_wake`)", due),
        row(f"when due, and a checkpoint every {count(raw['checkpointEvery'])} records", checkpointed),
        "",
        f"Journaling the clock only when a scan is due made the journal {ratio('bytes', every, due)} smaller and its "
        f"replay {ratio('replaySeconds', every, due)} faster; it still grows by a record per scan. With checkpoints "
        f"as well it stays within the state and {count(raw['checkpointEvery'])} records: at its largest it was "
        f"{ratio('largestBytes', due, checkpointed)} smaller than the journal without them at the end, and its replay "
        f"{ratio('replaySeconds', due, checkpointed)} faster. Against every step, the journal with both is "
        f"{ratio('bytes', every, checkpointed)} smaller at the end, and replays "
        f"{ratio('replaySeconds', every, checkpointed)} faster.",
    ])
