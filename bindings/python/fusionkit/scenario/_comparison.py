"""How a scenario compares states (docs/rules/scenario-comparison.md): JSON equality,
the differences an exact `state` and a partial `expect` report, and the changes an
exhaustive scenario must name. Swift's FusionScenario.StateComparison follows the same
rule; both are held to the vectors in Tests/vectors/scenario-comparison."""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from ._model_types import JSON


def _is_integer(value: JSON) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: JSON) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


#: A place in the state: object keys and array indices.
Path_ = tuple[str | int, ...]


class _Absent:
    """A field that is not there: shown as `absent` (never a JSON value)."""

    def __repr__(self) -> str:
        return "absent"


ABSENT: Final = _Absent()


def show(value: JSON) -> str:
    """A value as failure lines write it: compact JSON, UTF-8 as it is; `absent` for a
    field that is not there."""
    if value is ABSENT:
        return "absent"
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def format_path(path: Sequence[str | int]) -> str:
    """`foundNetworks[2].connectivity`: dotted keys, `[i]` for array elements."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text or "(the state)"


def json_equal(a: JSON, b: JSON) -> bool:
    """Equality of JSON values: numbers by value (1 equals 1.0), booleans only equal
    booleans, objects whatever their key order, arrays in order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(value, b[key]) for key, value in a.items())
    return False


def _difference(path: Path_, expected: JSON, actual: JSON) -> str:
    return f"{format_path(path)}: expected {show(expected)}, got {show(actual)}"


def exact_differences(expected: JSON, actual: JSON, path: Path_ = ()) -> list[str]:
    """Each difference of `actual` from `expected`, both wholly: objects key by key
    (missing and extra keys included), arrays of the same length element by element,
    anything else as one line."""
    if json_equal(expected, actual):
        return []
    if isinstance(expected, dict) and isinstance(actual, dict):
        lines: list[str] = []
        for key, value in expected.items():
            lines += (exact_differences(value, actual[key], (*path, key)) if key in actual
                      else [_difference((*path, key), value, ABSENT)])
        lines += [_difference((*path, key), ABSENT, value) for key, value in actual.items() if key not in expected]
        return lines
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [line for index, (x, y) in enumerate(zip(expected, actual, strict=True))
                for line in exact_differences(x, y, (*path, index))]
    return [_difference(path, expected, actual)]


def expect_differences(expected: JSON, actual: JSON, path: Path_ = ()) -> list[str]:
    """`expect`: objects field by field, only the fields named, recursively; anything
    else (arrays included) must be equal, as `exact_differences` compares."""
    if not isinstance(expected, dict):
        return exact_differences(expected, actual, path)
    if not isinstance(actual, dict):
        return [_difference(path, expected, actual)]
    lines: list[str] = []
    for key, value in expected.items():
        lines += (expect_differences(value, actual[key], (*path, key)) if key in actual
                  else [_difference((*path, key), value, ABSENT)])
    return lines


def changes(before: JSON, after: JSON, path: Path_ = ()) -> list[tuple[Path_, JSON, JSON]]:
    """What a step changed, for exhaustive mode: descending into objects only, each changed
    array, string, number, boolean or null, and each field that appeared or went away, is
    one change (path, before, after); ABSENT stands for a field that is not there."""
    if isinstance(before, dict) and isinstance(after, dict):
        found: list[tuple[Path_, JSON, JSON]] = []
        for key, value in before.items():
            found += changes(value, after[key], (*path, key)) if key in after else [((*path, key), value, ABSENT)]
        found += [((*path, key), ABSENT, value) for key, value in after.items() if key not in before]
        return found
    return [] if json_equal(before, after) else [(path, before, after)]


def named_paths(expect: Mapping[str, JSON], path: Path_ = ()) -> list[Path_]:
    """Every path an `expect` names: each key, at every depth of its objects."""
    found: list[Path_] = []
    for key, value in expect.items():
        found.append((*path, key))
        if isinstance(value, dict):
            found += named_paths(value, (*path, key))
    return found


def is_named(change: Path_, named: Iterable[Path_]) -> bool:
    """A change is named by its own path, a path above it, or a path below it."""
    return any(change[:len(name)] == name or name[:len(change)] == change for name in named)


# -- running -----------------------------------------------------------------------
