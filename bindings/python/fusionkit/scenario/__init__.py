"""Scenarios: a feature's Input/State spec as a file (`*.scenario.json`), run through the
C ABI exactly as docs/scenarios.md says, with the same verdict as `fusion test`.

    import fusionkit.scenario

    result = fusionkit.scenario.run("examples/scenarios/counter-count.scenario.json")
    print(result.passed, result.failures)
    print(result.report())          # the PASS/FAIL line, then the failing step and its differences

    @pytest.mark.parametrize("path", fusionkit.scenario.params("examples/scenarios"))
    def test_scenario(path: Path) -> None:
        result = fusionkit.scenario.run(path)
        assert result.passed, result.report()

`load(path)` reads and checks a file (ScenarioError names the key and the step that are
wrong); `run(path or Scenario, library=None)` runs it on a fresh instance and returns a
`ScenarioResult`; `collect(*paths)` lists scenario files (folders are searched for
`*.scenario.json`); `params(*paths)` gives them as `pytest.param`s.

`python3 -m fusionkit.scenario [LIB.so] FILE|DIR...` runs scenarios as `fusion test` does.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence

from ._comparison import (
    ABSENT,
    changes,
    exact_differences,
    expect_differences,
    format_path,
    is_named,
    json_equal,
    named_paths,
    show,
)
from ._files import collect, params, scenario_id
from ._model import (
    CREATE_LABEL,
    DEFAULT_OPTIONS,
    END_LABEL,
    LOAD_LABEL,
    SUFFIX,
    RequestAnswer,
    Scenario,
    ScenarioError,
    ScenarioNotFoundError,
    Step,
    load,
    parse,
)
from ._model_types import JSON
from ._runner import ScenarioResult, run

__all__ = ["Scenario", "Step", "RequestAnswer", "ScenarioResult", "ScenarioError", "load", "parse", "run", "collect",
           "params", "scenario_id", "main", "SUFFIX", "ScenarioNotFoundError", "DEFAULT_OPTIONS", "CREATE_LABEL", "END_LABEL", "LOAD_LABEL",
           "JSON", "ABSENT", "show", "format_path", "json_equal", "exact_differences", "expect_differences", "changes",
           "named_paths", "is_named"]


def main(argv: Sequence[str] | None = None) -> int:
    """`python3 -m fusionkit.scenario [LIB.so] FILE|DIR...`: a line per scenario, the
    failures, then "N passed, N failed"; 0 when all passed, 1 otherwise (2: usage)."""
    args = list(sys.argv[1:] if argv is None else argv)
    library: str | None = None
    if args and (args[0].endswith(".so") or args[0].endswith(".dylib") or args[0].endswith(".dll")):
        library = args.pop(0)
    if not args:
        print("usage: python3 -m fusionkit.scenario [LIBRARY] FILE|DIR...", file=sys.stderr)
        return 2
    try:
        files = collect(*args)
    except FileNotFoundError as error:
        print(error, file=sys.stderr)
        return 2
    passed = failed = 0
    for file in files:
        result = run(file, library)
        print(result.report())
        if result.passed:
            passed += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1
