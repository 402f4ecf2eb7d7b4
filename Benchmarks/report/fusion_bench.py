"""The fusion-bench block of docs/performance.md, from Benchmarks/results/fusion-bench.json:
the C round trips, the large state, patches, throughput, memory and start, each with
its target and its verdict, judged by the one rule of verdicts.py: this benchmark runs
once, so a target must hold in every round (and for memory, in every fresh process)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from figures import count, listing, median, nanoseconds, paired, sig, times
from verdicts import judge, judged, per_round

DOCUMENT, BLOCK, RESULTS = "docs/performance.md", "fusion-bench", "fusion-bench.json"

#: What fk_state_patch may cost against the whole state, by the state's networks: never
#: more than the state at 10, a fifth at 100, a tenth from 1,000 (issue 40).
PATCH_TARGETS = {10: 1.0, 100: 0.2, 1000: 0.1, 10000: 0.1}
SCALING_TARGET = 1.6          # two threads on two instances, over one thread
HEAP_TARGET = 900             # heap bytes per instance through the C ABI (issue 40)
RESIDENT_TARGET = 1000        # resident bytes per instance through the C ABI
ABI_COST_TARGET = 1.2         # the three-call round trip over the in-process Store
ONE_CALL_TARGET_NS = 127      # the one-call round trip: not slower than its median when issue 40 was filed
START_TARGET = 2.0            # dlopen, the ABI check and the whole manifest, over libswiftCore's load


def _counter_target(subject_ns: float, ratio: float) -> tuple[str, bool]:
    return "≤ 1 µs and ≥ 8× faster", subject_ns <= 1000 and ratio >= 8


def _one_call_target(subject_ns: float, ratio: float) -> tuple[str, bool]:
    return f"≤ {ONE_CALL_TARGET_NS} ns and ≥ 8× faster", subject_ns <= ONE_CALL_TARGET_NS and ratio >= 8


def _large_target(_: float, ratio: float) -> tuple[str, bool]:
    return "≥ 15× faster", ratio >= 15


def _abi_cost_target(_: float, ratio: float) -> tuple[str, bool]:
    # `ratio` is the Store's time over the ABI's: at most 1.2× slower is at least 1/1.2.
    return f"≤ {ABI_COST_TARGET:g}× slower", ratio >= 1 / ABI_COST_TARGET


# Each comparison's target, by its key: (what it says, whether it is met) from one
# round's subject time and its ratio; None for a reference row.
TARGETS: dict[str, Callable[[float, float], tuple[str, bool]] | None] = {
    "counter": _counter_target,
    "counter-one-call": _one_call_target,
    "large": _large_target,
    "abi-cost": _abi_cost_target,
}


def _slices(raw: dict[str, Any]) -> str:
    """How a round's sample of each side was taken (results from before slices: one sample)."""
    slices = raw.get("slices", 1)
    if slices <= 1:
        return ""
    return (f" In a round, each side's time is the median of {slices} slices of its work, interleaved with the other "
            "side's: an interruption by the scheduler, which only ever adds time, lands in one slice and cannot decide "
            "a round.")


def render(raw: dict[str, Any]) -> str:
    machine = raw["machine"]
    lines = [
        f"Measured {machine['measured']} on {machine['cpu']}, {machine['cores']} cores, {machine['memory']}, "
        f"{machine['swift']}, {raw.get('build', 'release')} build. Times are medians of {raw['rounds']} interleaved rounds; a ratio is "
        "the median of the ratios within each round; a target is met only if it holds in every round." + _slices(raw),
        "",
    ]
    lines += _comparisons(raw["comparisons"])
    if raw.get("patch"):
        lines += _patches(raw["patch"])
    if raw.get("throughput"):
        lines += _throughput(raw["throughput"])
    if raw.get("memory"):
        lines += _memory(raw["memory"])
    if raw.get("start"):
        lines += _start(raw["start"], raw["rounds"])
    return "\n".join(lines).rstrip("\n")


def _comparisons(comparisons: list[dict[str, Any]]) -> list[str]:
    lines = ["| workload | subject | median | baseline (same run) | median | subject is | target | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    for c in comparisons:
        subject, baseline = median(c["subjectNanos"]), median(c["baselineNanos"])
        ratio = paired(c["baselineNanos"], c["subjectNanos"])
        relation = f"{times(ratio)} faster" if ratio >= 1 else f"{times(1 / ratio)} slower"
        target_of = TARGETS[c["key"]]
        target, met = "(reference)", "—"
        if target_of is not None:
            rounds = zip(c["subjectNanos"], per_round(c["baselineNanos"], c["subjectNanos"]), strict=True)
            held = [target_of(s, r)[1] for s, r in rounds]
            target, met = target_of(subject, ratio)[0], judged(held, "rounds")
        lines.append(f"| {c['name']} | {c['subject']} | {nanoseconds(subject)} | {c['baseline']} | "
                     f"{nanoseconds(baseline)} | {relation} | {target} | {met} |")
    return lines


def _at_most(limit: float) -> Callable[[float], bool]:
    return lambda value: value <= limit


def _patches(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["", "One network's connectivity changes; the whole new state as JSON (baseline) next to what "
             "`fk_state_patch` answers for the old state's version (`StatePatch.json`: the JSON Patch as text, or the "
             "whole state where that costs less). Targets: never more than the whole state at 10 networks, a fifth of it "
             "at 100, a tenth from 1,000. A round times each side over 100,000 networks' worth of calls (and at least "
             "30 calls), so that even the patch's share of a round lasts milliseconds.", "",
             "| networks | whole state | its size | patch | its size | patch / whole (median, worst round) | target | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    met: list[str] = []
    missed: list[str] = []
    for row in rows:
        target = PATCH_TARGETS.get(row["networks"], 0.1)
        fractions = per_round(row["patchNanos"], row["wholeNanos"])
        fraction = paired(row["patchNanos"], row["wholeNanos"])
        said_row = judge(fractions, _at_most(target), "rounds")
        (met if said_row == "met" else missed).append(count(row["networks"]))
        lines.append(f"| {count(row['networks'])} | {nanoseconds(median(row['wholeNanos']))} | {count(row['wholeBytes'])} B "
                     f"| {nanoseconds(median(row['patchNanos']))} | {count(row['patchBytes'])} B | {sig(fraction)}, "
                     f"{sig(max(fractions))} | ≤ {sig(target, 2)} | {said_row} |")
    said = []
    if met:
        said.append(f"met at {listing(met)} networks")
    if missed:
        said.append(f"NOT met at {listing(missed)} networks")
    lines += ["", f"- Each size's target in every round: {'; '.join(said)}.", "",
              "![Whole state and patch cost by number of networks](patch-scaling.svg)"]
    return lines


def _throughput(t: dict[str, Any]) -> list[str]:
    scaling = paired(t["twoThreads"], t["oneThread"])
    control = paired(t["controlTwo"], t["controlOne"])
    shared = paired(t["sharedInstance"], t["oneThread"])
    rounds = t["rounds"]
    each_round = listing(f"{times(a / b)} (control {times(c / d)})" for a, b, c, d in
                        zip(t["twoThreads"], t["oneThread"], t["controlTwo"], t["controlOne"], strict=True))
    lost = t["lostInputs"]
    return [
        "", f"| throughput (fk_send \"increase\"), and a pure-CPU control in the same rounds ({rounds} rounds) "
        "| per second (median) | two threads / one (median of the rounds) |", "|---|---|---|",
        f"| one thread, one instance (baseline) | {count(median(t['oneThread']))} inputs | |",
        f"| two threads, one instance each | {count(median(t['twoThreads']))} inputs | {times(scaling)} |",
        f"| two threads, one shared instance | {count(median(t['sharedInstance']))} inputs | {times(shared)} |",
        f"| control: pure CPU work (SplitMix64 steps), one thread | {count(median(t['controlOne']))} steps | |",
        f"| control: the same on two threads | {count(median(t['controlTwo']))} steps | {times(control)} |",
        "",
        f"- Two threads on two instances: {times(scaling)} the one-thread rate (the median of {rounds} rounds' "
        f"ratios), the pure-CPU control {times(control)} in the same rounds; target at least {SCALING_TARGET:g}× in "
        f"every round: {judge(per_round(t['twoThreads'], t['oneThread']), lambda r: r >= SCALING_TARGET, 'rounds')}. "
        f"Per round: {each_round}." + (
            f" A round's rate of each shape but the shared instance is the median of {t['slices']} runs, the shapes "
            "interleaved." if t.get("slices", 1) > 1 else ""),
        f"- Two threads on one instance: {'no input lost' if lost == 0 else f'{count(lost)} inputs LOST'} (its version "
        f"went up by exactly the inputs sent), at {times(shared)} the one-thread rate (the instance's inputs are "
        "applied one at a time).",
    ]


def _memory(runs: list[dict[str, Any]]) -> list[str]:
    heap = [r["abiHeapPerInstance"] for r in runs]
    resident = [r["abiResidentPerInstance"] for r in runs]
    n = runs[0]["count"]

    def bytes_(values: list[float]) -> str:
        return listing(f"{count(v)} B" for v in values)

    return [
        "", f"| {count(n)} Counter instances alive, each run in a fresh process ({len(runs)} runs) "
        "| resident memory per instance (median) | heap (malloc) per instance (median) |", "|---|---|---|",
        f"| created through the C ABI (fk_create, one input each) | {count(median(resident))} B | {count(median(heap))} B |",
        f"| baseline: bare Swift `Store<Counter>` | {count(median(r['storeResidentPerInstance'] for r in runs))} B "
        f"| {count(median(r['storeHeapPerInstance'] for r in runs))} B |",
        "",
        f"- Per instance through the C ABI, in every run: heap at most {count(HEAP_TARGET)} B "
        f"{judge(heap, lambda v: v <= HEAP_TARGET)}: {bytes_(heap)}; resident memory at most "
        f"{count(RESIDENT_TARGET)} B {judge(resident, lambda v: v <= RESIDENT_TARGET)}: {bytes_(resident)}.",
        *_memory_parts(runs),
    ]


#: An instance's parts as fusion-bench names them (MemoryWorkload.Part), in the order made.
MEMORY_PARTS = (
    ("environment", "environment: the random source and the host-request table, each with its lock"),
    ("store", "`Store`: state, version, effect and request bookkeeping, its lock (no effect executor on the "
              "system clock, no change notifier before a first subscriber)"),
    ("instance", "instance object (`JSONStore`) and the closures the ABI calls"),
    ("tableSlot", "`fk_create`'s instance table: a slot and its share of the table"),
)


def _memory_parts(runs: list[dict[str, Any]]) -> list[str]:
    if not all("parts" in r for r in runs):
        return []
    rows = [f"| {label} | {count(median(r['parts'][key] for r in runs))} B |" for key, label in MEMORY_PARTS]
    return ["", "| where an instance's heap goes (each part measured alone, after the runs above) | heap per instance "
            "(median) |", "|---|---|", *rows,
            f"| total through the C ABI | {count(median(r['abiHeapPerInstance'] for r in runs))} B |"]


def _start(samples: dict[str, list[float]], rounds: int) -> list[str]:
    runtime = samples["runtime"]

    def row(label: str, mode: str) -> str:
        ratio = "1×" if mode == "runtime" else times(paired(samples[mode], runtime))
        return f"| {label} | {nanoseconds(median(samples[mode]))} | {ratio} |"

    whole = paired(samples["manifest"], runtime)
    held = judge(per_round(samples["manifest"], runtime), lambda r: r <= START_TARGET, "rounds")
    return [
        "", f"| start, in a fresh process ({rounds} rounds) | median | libswiftCore's time × (median of the rounds) |",
        "|---|---|---|",
        row("baseline: dlopen libswiftCore.so alone", "runtime"),
        row("a host's load: dlopen libFusionExamples.so, check the ABI version, read the manifest summary", "library"),
        row("the same, then the first Counter: its manifest entry, create, one input, destroy", "counter"),
        row("dlopen, check the ABI version, read the whole manifest (every feature described)", "manifest"),
        "",
        f"- Start, as the target was set: dlopen, the ABI check and the whole manifest (every feature described) "
        f"cost {times(whole)} loading libswiftCore alone; target at most {START_TARGET:g}× in every round: {held}. "
        f"Beside it, without a target: a host's load reading the manifest summary only costs "
        f"{times(paired(samples['library'], runtime))}, and the first Counter round trip after that "
        f"{times(paired(samples['counter'], runtime))}.",
    ]
