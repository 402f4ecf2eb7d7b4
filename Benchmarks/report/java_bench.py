"""The java-bench block of docs/performance.md, from Benchmarks/results/java-bench.json
(Benchmarks/java/run.py: bindings/java/bench.sh in several JVMs): the Java package's
round trip next to the bare JNA call doing the same work and to a plain-Java Counter and
Wi-Fi screen written with the same JSON library, each target decided over every run."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from figures import median, paired, sig, times
from verdicts import judge

DOCUMENT, BLOCK, RESULTS = "docs/performance.md", "java-bench", "java-bench.json"

ROWS = (
    ("package: `instance.sendAndReadJson(\"\\\"increase\\\"\")`, JSON in and out", "package"),
    ("the floor: the bare JNA call doing the same work (`fk_send_and_read` into the same buffer, "
     "the text decoded)", "floor"),
    ("plain Java Counter with Jackson: parse the input and the state, apply, write the state", "plain"),
    ("Wi-Fi, 1,000 networks: package, `sendAndReadJson` (a network's detail, then back)", "wifi-package"),
    ("Wi-Fi, 1,000 networks: plain Java with Jackson, the same two inputs", "wifi-plain"),
)

#: (what is compared, over, under, whether a run's ratio meets it, the target as said)
TARGETS: tuple[tuple[str, str, str, Callable[[float], bool], str], ...] = (
    ("The package's Counter round trip against the bare JNA call (the floor)", "package", "floor",
     lambda r: r <= 2, "at most 2× the floor"),
    ("The Wi-Fi state of 1,000 networks: plain Java against the package", "wifi-plain", "wifi-package",
     lambda r: r > 1, "the package faster than plain Java (above 1×)"),
)


def us(value: float) -> str:
    return f"{sig(value)} µs"


def render(raw: dict[str, Any]) -> str:
    runs: list[dict[str, Any]] = raw["runs"]
    samples = [run["samplesMicroseconds"] for run in runs]
    last = samples[-1]
    first = runs[0]
    machine = raw["machine"]
    lines = [
        f"Measured {raw['measured']} on {machine['cpu']}, {machine['cores']} cores, Java {machine['java']}, "
        f"release library: `Benchmarks/java/run.py`, {len(runs)} runs, each a fresh JVM of {first['rounds']} "
        f"interleaved rounds ({first['perRound']:,} Counter round trips or {first['wifiPerRound']:,} Wi-Fi round "
        "trips per workload and round, after a warm-up); the table is the last run's. Times are medians over the "
        "rounds; ratios are medians of the ratios within each round.",
        "",
        "| Java round trip | median | the package is |",
        "|---|---|---|",
    ]
    for label, key in ROWS:
        base = "wifi-package" if key.startswith("wifi") else "package"
        relation = "—" if key == base else _relation(paired(last[key], last[base]))
        lines.append(f"| {label} | {us(median(last[key]))} | {relation} |")
    lines.append("")
    for name, over, under, good, target in TARGETS:
        per_run = [paired(run[over], run[under]) for run in samples]
        lines.append(f"- {name}: {', '.join(times(r) for r in per_run)} (run by run); target {target} "
                     f"in every run: {judge(per_run, good)}.")
    return "\n".join(lines)


def _relation(other_over_package: float) -> str:
    if other_over_package >= 1:
        return f"{times(other_over_package)} faster"
    return f"{times(1 / other_over_package)} slower"
