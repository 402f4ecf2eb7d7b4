"""The one rule by which every renderer decides whether a target is met.

A target is met when it holds in every repetition of its measurement: no median over
repetitions, no best of them, so one bad repetition on a noisy machine shows. The
repetitions are what the results keep:
- a benchmark run several times (Python, Java, the web bridge, the cluster, group commit,
  the memory of fresh processes) is judged in every run; a run's figure is what that run
  reports (for Python and Java, the median of its rounds' paired ratios);
- fusion-bench, run once, keeps each round (the C round trips, the large state, the
  patches, throughput, start), and is judged in every round: its worst round decides.
A verdict says in how many it held when it did not: "NOT met (held in 5 of 7 rounds)"."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")

RULE = ("a target is met when it holds in every run, and, for fusion-bench (one run of interleaved rounds), "
        "in every round")


def judged(held: Sequence[bool], repetitions: str = "runs") -> str:
    """The verdict from whether the target held in each repetition ("runs" or "rounds")."""
    if held and all(held):
        return "met"
    return f"NOT met (held in {sum(held)} of {len(held)} {repetitions})"


def judge(figures: Iterable[T], holds: Callable[[T], bool], repetitions: str = "runs") -> str:
    """The verdict on each repetition's figure."""
    return judged([holds(figure) for figure in figures], repetitions)


def per_round(over: Sequence[float], under: Sequence[float]) -> list[float]:
    """Each round's `over / under`, both sides measured in that round."""
    if len(over) != len(under):
        raise ValueError(f"paired samples differ in number: {len(over)} and {len(under)}")
    return [a / b for a, b in zip(over, under, strict=True)]
