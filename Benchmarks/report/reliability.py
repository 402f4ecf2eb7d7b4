"""The blocks of docs/reliability.md made from one run of scripts/test-reliability
(Benchmarks/results/reliability.json, gathered by Benchmarks/reliability/collect.py):
the fuzzing statistics, the soak's report, and what the run cost."""
from __future__ import annotations

from typing import Any

from figures import count

RESULTS = "reliability.json"


def _minutes(seconds: int) -> str:
    return f"{seconds // 60} min {seconds % 60} s"


def fuzzing(raw: dict[str, Any]) -> str:
    corpus = raw["committedCorpus"]
    lines = [
        f"Measured {raw['measured']} by `scripts/test-reliability` at {raw['commit']} ({raw['fuzzSeconds']} s per "
        f"target, {raw['cores']} cores), each target starting from the committed corpus ({count(corpus['files'])} "
        f"files, {corpus['bytes'] / 1e6:.1f} MB). \"Edges reached\" are the instrumented edges the run covered, "
        "\"instrumented\" all those in the code the target links, most of which a target cannot reach (the JSON "
        "parser target never runs a feature).",
        "",
        "| target | executions | per second | edges reached | instrumented | corpus after | peak RSS |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]

    def cell(value: int | None, unit: str = "") -> str:
        return "(not in the log)" if value is None else f"{count(value)}{unit}"

    for target in raw["fuzz"]:
        lines.append(f"| {target['target']} | {cell(target['executions'])} | {cell(target['perSecond'])} "
                     f"| {cell(target['edges'])} | {cell(target['instrumentedEdges'])} | {cell(target['corpusAfter'])} "
                     f"| {cell(target['peakRssMb'], ' MB')} |")
    total = sum(t["executions"] or 0 for t in raw["fuzz"])
    lines += ["", f"- {count(total)} executions in all, and nothing found: a crash or a broken promise would have "
              "failed the run (and it passed)."]
    return "\n".join(lines)


def soak(raw: dict[str, Any]) -> str:
    return "\n".join([f"What the full soak printed in that run ({raw['measured']}, at {raw['commit']}):", "",
                      "<!-- output of a run: Tests/abi/c/soak.c at full size; checked by Tests/abi/test_c_abi.py -->",
                      "```text", *raw["soak"], "```"])


def cost(raw: dict[str, Any]) -> str:
    steps = raw["steps"]
    reliability = steps[-1]["startedAt"]
    lines = []
    if "ciTestSeconds" in raw:
        test = raw["ciTestSeconds"]
        lines += [f"`.ci/run` at {raw['commit']} ({raw['measured']}): its tests took **{_minutes(test + reliability)}**, "
                  f"`scripts/test` {_minutes(test)} and `scripts/test-reliability` {_minutes(reliability)} "
                  f"({raw['fuzzSeconds']} s per fuzz target); the `scripts/demo` before them is not timed.", ""]
    else:
        lines += [f"`scripts/test-reliability` at {raw['commit']} ({raw['measured']}): {_minutes(reliability)} "
                  f"({raw['fuzzSeconds']} s per fuzz target).", ""]
    lines += ["| step (that run) | seconds |", "| --- | ---: |"]
    for step, following in zip(steps, steps[1:], strict=False):
        lines.append(f"| {step['step']} | {following['startedAt'] - step['startedAt']} |")
    return "\n".join(lines)


BLOCKS = [
    ("docs/reliability.md", "reliability-fuzz", RESULTS, fuzzing),
    ("docs/reliability.md", "reliability-soak", RESULTS, soak),
    ("docs/reliability.md", "reliability-cost", RESULTS, cost),
]
