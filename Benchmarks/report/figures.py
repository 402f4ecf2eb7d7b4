"""How the reports write numbers and take medians: one place, so that every block of
the documents says "1.23 µs" and "18.3×" the same way."""
from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def paired(over: Sequence[float], under: Sequence[float]) -> float:
    """The median over the rounds of each round's `over / under`: both sides of a ratio
    measured in the same round, so that the machine's speed at that moment cancels out."""
    if len(over) != len(under):
        raise ValueError(f"paired samples differ in number: {len(over)} and {len(under)}")
    return median(a / b for a, b in zip(over, under, strict=True))


def sig(value: float, digits: int = 3) -> str:
    """`value` with `digits` significant digits (never fewer than its integer part):
    0.105 → "0.105", 18.27 → "18.3", 477.4 → "477", 12952.6 → "12,953"."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


def times(ratio: float) -> str:
    return f"{sig(ratio)}×"


def nanoseconds(value: float) -> str:
    """A time given in nanoseconds, in the unit that reads best."""
    if value >= 1e6:
        return f"{sig(value / 1e6)} ms"
    if value >= 1e3:
        return f"{sig(value / 1e3)} µs"
    return f"{sig(value)} ns"


def count(value: float) -> str:
    """A whole number with thousands separators: 6704256 → "6,704,256"."""
    return f"{round(value):,}"


def listing(items: Iterable[str]) -> str:
    return ", ".join(items)


def column(run: Mapping[str, Any], name: str) -> list[float]:
    """One workload's samples in a run of interleaved rounds (`run["rounds"]`, one dict per round)."""
    return [sample[name] for sample in run["rounds"]]
