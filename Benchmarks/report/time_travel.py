"""The time-travel block of docs/scenarios.md, from Benchmarks/results/time-travel.json
(Benchmarks/time-travel/time_travel_bench.c, run several times): going back with kept
snapshots (fk_goto) next to deterministic replay, measured in the same rounds."""
from __future__ import annotations

from typing import Any

from figures import count, median, nanoseconds, paired, sig, times

DOCUMENT, BLOCK, RESULTS = "docs/scenarios.md", "time-travel", "time-travel.json"


def _span(values: list[float], show: Any) -> str:
    low, high = show(min(values)), show(max(values))
    return low if low == high else f"{low}–{high}"


def _kilobytes(value: float) -> str:
    return f"{count(value)} B" if value < 10_000 else f"{sig(value / 1000, 2)} KB"


def render(raw: dict[str, Any]) -> str:
    runs: list[list[dict[str, Any]]] = raw["runs"]
    lines = [
        f"Measured {raw['measured']} on {raw['machine']['cpu']}, {raw['machine']['cores']} cores, release build: "
        f"{len(runs)} runs of `time_travel_bench.c`, each taking the median of {raw['rounds']} rounds; a range is "
        "the lowest to the highest run, a ratio the median of the ratios within each round.",
        "",
        "| state | versions | back by | snapshot (`fk_goto`) | replay | replay / snapshot | heap per kept version |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    ratios_back_a_little: list[float] = []
    replay_wins: list[str] = []
    for index, first in enumerate(runs[0]):
        rows = [run[index] for run in runs]
        snapshot = [median(r["snapshotSeconds"]) * 1e9 for r in rows]
        replay = [median(r["replaySeconds"]) * 1e9 for r in rows]
        ratio = [paired(r["replaySeconds"], r["snapshotSeconds"]) for r in rows]
        back = count(first["backBy"]) + (" (to the start)" if first["backBy"] == first["versions"] else "")
        if first["backBy"] < first["versions"] // 2:
            ratios_back_a_little += ratio
        if median(ratio) < 1:
            replay_wins.append(f"{first['state']}, back by {back}")
        lines.append(f"| {first['state']} | {count(first['versions'])} | {back} | {_span(snapshot, nanoseconds)} "
                     f"| {_span(replay, nanoseconds)} | {_span(ratio, times)} "
                     f"| {_kilobytes(median(r['heapPerVersion'] for r in rows))} |")
    lines += ["", f"- Going back one version: snapshots are {times(min(ratios_back_a_little))} to "
              f"{times(max(ratios_back_a_little))} faster than replay in these runs.",
              f"- Replay is faster (in the median run) {'nowhere' if not replay_wins else 'for: ' + '; '.join(replay_wins)}."]
    return "\n".join(lines)
