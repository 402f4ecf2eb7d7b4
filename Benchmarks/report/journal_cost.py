"""The journal-cost block of docs/reliability.md, from Benchmarks/results/journal-cost.json
(Benchmarks/journal/cost.py)."""
from __future__ import annotations

from typing import Any

from figures import nanoseconds, times

DOCUMENT, BLOCK, RESULTS = "docs/reliability.md", "journal-cost", "journal-cost.json"


def _span(values: list[float]) -> str:
    low, high = nanoseconds(min(values) * 1e9), nanoseconds(max(values) * 1e9)
    return low if low == high else f"{low}–{high}"


def render(raw: dict[str, Any]) -> str:
    journaled, plain = raw["journaledSeconds"], raw["plainSeconds"]
    ratios = [j / p for j, p in zip(journaled, plain, strict=True)]
    machine = raw["machine"]
    return (f"Measured {raw['measured']} by `Benchmarks/journal/cost.py` (Python {machine['python']}, the Counter "
            f"on a manual clock, {raw['inputs']} inputs, {len(journaled)} rounds with and without a journal, on "
            f"{machine['filesystem']}): {_span(journaled)} per journaled input against {_span(plain)} without a "
            f"journal, {times(min(ratios))} to {times(max(ratios))} as much.")
