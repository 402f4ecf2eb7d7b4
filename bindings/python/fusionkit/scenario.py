"""Scenarios: a feature's Input/State spec as a file (`*.scenario.json`), run through the
C ABI exactly as docs/scenarios.md says, with the same verdict as `fusion test`.

    import fusionkit.scenario

    result = fusionkit.scenario.run("examples/scenarios/counter.scenario.json")
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

import json
import math
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from .errors import FusionError
from .library import HostEvent, Instance, Library
from .library import load as load_library

__all__ = ["Scenario", "Step", "RequestAnswer", "ScenarioResult", "ScenarioError", "load", "parse", "run", "collect",
           "params", "scenario_id", "main", "SUFFIX"]

#: Any value JSON can carry, as the json module reads it.
JSON = Any

#: What a scenario file's name ends with.
SUFFIX: Final = ".scenario.json"

#: The options every scenario starts from; the file's own options are merged over them.
DEFAULT_OPTIONS: Final[Mapping[str, JSON]] = {"clock": "manual"}

_TOP_KEYS: Final = ("$schema", "name", "note", "recorded", "feature", "options", "exhaustive", "nothingPending", "steps")
_OPTION_KEYS: Final = ("state", "seed", "clock", "requests", "settings", "history")
_ACTION_KEYS: Final = ("send", "advance", "respond", "fail", "goto")
_CHECK_KEYS: Final = ("expect", "state", "error", "requests", "note")
_STATUS_NAME: Final = re.compile(r"FK_ERR_[A-Z_]+")
_U64_LIMIT: Final = 1 << 64

#: The place of a failure that belongs to no step.
CREATE_LABEL: Final = "create"
END_LABEL: Final = "at the end"
LOAD_LABEL: Final = "load"


class ScenarioError(ValueError):
    """A file that is not a valid scenario. The message names the file, the step (when
    the problem is in one) and the key: `counter.scenario.json: step 3: "advance" must
    be a number of seconds (0 or more), not "1"`."""


# -- the file ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RequestAnswer:
    """A `respond` or `fail` step: the oldest open host request of `kind` (whose payload
    equals `payload`, when `match_payload`) is answered with `value`: the result for
    `respond`, the message for `fail`."""
    kind: str
    value: JSON
    payload: JSON = None
    match_payload: bool = False

    def matches(self, event: HostEvent) -> bool:
        return event.kind == self.kind and (not self.match_payload or json_equal(self.payload, event.payload))


@dataclass(frozen=True, slots=True)
class Step:
    """One step: at most one thing to do (`action`), then the checks it names."""
    number: int
    action: Literal["send", "advance", "respond", "fail", "goto"] | None = None
    #: The input for "send", the seconds for "advance", a RequestAnswer for "respond"/"fail".
    argument: JSON = None
    expect: dict[str, JSON] | None = None
    state: dict[str, JSON] | None = None
    error: str | None = None
    requests: tuple[str, ...] | None = None
    note: str | None = None

    @property
    def label(self) -> str:
        """How failures name the step: `step 4 (send "joinButtonTapped")`, `step 2 (advance 1)`,
        `step 5 (respond fetchPet)`, `step 6 (fail fetchFamily)`, `step 3 (check)`."""
        if self.action is None:
            what = "check"
        elif self.action in ("respond", "fail"):
            assert isinstance(self.argument, RequestAnswer)
            what = f"{self.action} {self.argument.kind}"
        elif self.action == "advance" and float(self.argument).is_integer() and abs(self.argument) < 1e15:
            what = f"advance {int(self.argument)}"  # 1.0 reads "advance 1", as the file's author meant
        else:
            what = f"{self.action} {show(self.argument)}"
        return f"step {self.number} ({what})"


@dataclass(frozen=True, slots=True)
class Scenario:
    """A scenario file, checked. `options` are the file's own; `creation_options` are
    what the instance is created with (the manual clock unless the file says otherwise)."""
    name: str
    feature: str
    steps: tuple[Step, ...]
    options: dict[str, JSON] = field(default_factory=dict)
    exhaustive: bool = False
    nothing_pending: bool = True
    note: str | None = None
    path: Path | None = None

    @property
    def library_name(self) -> str | None:
        """"Chores" for the feature "Chores/counter"; None when not qualified."""
        library, slash, _ = self.feature.partition("/")
        return library if slash else None

    @property
    def feature_name(self) -> str:
        """The feature's name in its library: "counter" for "Chores/counter"."""
        _, slash, name = self.feature.partition("/")
        return name if slash else self.feature

    @property
    def creation_options(self) -> dict[str, JSON]:
        return {**DEFAULT_OPTIONS, **self.options}

    @property
    def manual_clock(self) -> bool:
        return bool(self.creation_options.get("clock") == "manual")

    @property
    def host_requests(self) -> bool:
        return bool(self.creation_options.get("requests") == "host")

    @property
    def file_name(self) -> str:
        return self.path.name if self.path is not None else self.name


def load(path: str | os.PathLike[str]) -> Scenario:
    """Reads and checks a scenario file. Raises ScenarioError naming the file, the step
    and the key when it is not a valid scenario (OSError when it cannot be read)."""
    file = Path(path)
    data = file.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ScenarioError(f"{file.name}: not UTF-8 text ({error})") from None
    try:
        document = json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise ScenarioError(f"{file.name}: not JSON: {error}") from None
    except _DuplicateKey as error:
        raise ScenarioError(f"{file.name}: the key {show(error.key)} appears twice in one object") from None
    except _NotJSONConstant as error:
        raise ScenarioError(f"{file.name}: {error.constant} is not a JSON value") from None
    return parse(document, path=file)


def parse(document: JSON, *, path: str | os.PathLike[str] | None = None) -> Scenario:
    """Checks a scenario already read from JSON (a dict), as `load` does."""
    file = Path(path) if path is not None else None
    where = file.name if file is not None else "scenario"

    def fail(message: str, step: int | None = None) -> ScenarioError:
        return ScenarioError(f"{where}: {message}" if step is None else f"{where}: step {step}: {message}")

    if not isinstance(document, dict):
        raise fail(f"a scenario is a JSON object, not {_kind(document)}")
    for key in document:
        if key not in _TOP_KEYS:
            raise fail(f"unknown key {show(key)} (a scenario has: {', '.join(_TOP_KEYS)})")
    for key in ("$schema", "name", "note"):
        if key in document and not isinstance(document[key], str):
            raise fail(f"{show(key)} must be a string, not {_kind(document[key])}")
    if "feature" not in document:
        raise fail('"feature" is required: the feature\'s name in the library ("counter", or "Lib/counter")')
    feature = document["feature"]
    if not isinstance(feature, str) or not feature:
        raise fail(f'"feature" must be a feature\'s name, not {_kind(feature)}')
    for key in ("exhaustive", "nothingPending"):
        if key in document and not isinstance(document[key], bool):
            raise fail(f"{show(key)} must be true or false, not {_kind(document[key])}")
    options = _options(document.get("options", {}), fail)
    if "steps" not in document:
        raise fail('"steps" is required: a list of steps')
    raw_steps = document["steps"]
    if not isinstance(raw_steps, list):
        raise fail(f'"steps" must be a list of steps, not {_kind(raw_steps)}')
    steps = tuple(_step(raw, number, fail) for number, raw in enumerate(raw_steps, start=1))
    name = document.get("name")
    return Scenario(
        name=name if isinstance(name, str) and name else (file.name if file is not None else "scenario"),
        feature=feature, steps=steps, options=options,
        exhaustive=bool(document.get("exhaustive", False)),
        nothing_pending=bool(document.get("nothingPending", True)),
        note=document.get("note"), path=file)


def _options(options: JSON, fail: Any) -> dict[str, JSON]:
    if not isinstance(options, dict):
        raise fail(f'"options" must be an object, not {_kind(options)}')
    for key, value in options.items():
        if key not in _OPTION_KEYS:
            raise fail(f"options: unknown key {show(key)} (the options are: {', '.join(_OPTION_KEYS)})")
        if key in ("state", "settings") and not isinstance(value, dict):
            raise fail(f"options: {show(key)} must be an object, not {_kind(value)}")
        if key == "seed" and not (_is_integer(value) and 0 <= value < _U64_LIMIT):
            raise fail(f'options: "seed" must be a whole number from 0 to 2^64-1, not {show(value)}')
        if key == "clock" and value not in ("manual", "system"):
            raise fail(f'options: "clock" must be "manual" or "system", not {show(value)}')
        if key == "requests" and value not in ("builtin", "host"):
            raise fail(f'options: "requests" must be "builtin" or "host", not {show(value)}')
        if key == "history" and not (_is_integer(value) and value >= 0):
            raise fail(f'options: "history" must be a whole number of versions to keep, not {show(value)}')
    return dict(options)


def _step(raw: JSON, number: int, fail: Any) -> Step:
    def wrong(message: str) -> ScenarioError:
        error: ScenarioError = fail(message, number)
        return error

    if not isinstance(raw, dict):
        raise wrong(f"a step is an object, not {_kind(raw)}")
    for key in raw:
        if key not in _ACTION_KEYS and key not in _CHECK_KEYS:
            raise wrong(f"unknown key {show(key)} (a step does one of {', '.join(_ACTION_KEYS)}; "
                        f"it checks {', '.join(_CHECK_KEYS[:-1])}; \"note\" is for people)")
    actions = [key for key in _ACTION_KEYS if key in raw]
    if len(actions) > 1:
        raise wrong(f"{' and '.join(map(show, actions))} in one step: a step does at most one thing")
    action: Any = actions[0] if actions else None
    argument: JSON = None
    if action == "send":
        argument = raw["send"]
        if not isinstance(argument, str) and not (isinstance(argument, dict) and len(argument) == 1):
            raise wrong(f'"send" must be an input as the wire has it ("increase" or {{"answerChanged": {{"text": "hi"}}}}), '
                        f"not {_kind(argument)}")
    elif action == "advance":
        argument = raw["advance"]
        if not _is_number(argument) or argument < 0 or not math.isfinite(argument):
            raise wrong(f'"advance" must be a number of seconds (0 or more), not {show(argument)}')
    elif action in ("respond", "fail"):
        argument = _answer(action, raw[action], wrong)
    elif action == "goto":
        argument = raw["goto"]
        if not (_is_integer(argument) and 0 <= argument < _U64_LIMIT):
            raise wrong(f'"goto" must be a version number (0 or more) the instance keeps, not {show(argument)}')
    if "expect" in raw and not isinstance(raw["expect"], dict):
        raise wrong(f'"expect" must be an object naming fields of the state, not {_kind(raw["expect"])}')
    if "state" in raw and not isinstance(raw["state"], dict):
        raise wrong(f'"state" must be the whole state, an object, not {_kind(raw["state"])}')
    error = raw.get("error")
    if "error" in raw and not (isinstance(error, str) and _STATUS_NAME.fullmatch(error)):
        raise wrong(f'"error" must be a status name such as "FK_ERR_UNKNOWN_INPUT", not {show(error)}')
    requests = raw.get("requests")
    if "requests" in raw and not (isinstance(requests, list) and all(isinstance(kind, str) for kind in requests)):
        raise wrong(f'"requests" must be a list of request kinds such as ["fetchPet"], not {show(requests)}')
    if "note" in raw and not isinstance(raw["note"], str):
        raise wrong(f'"note" must be a string, not {_kind(raw["note"])}')
    return Step(number=number, action=action, argument=argument, expect=raw.get("expect"), state=raw.get("state"),
                error=error, requests=tuple(requests) if requests is not None else None, note=raw.get("note"))


def _answer(action: str, raw: JSON, wrong: Any) -> RequestAnswer:
    value_key = "result" if action == "respond" else "message"
    example = ('{"kind": "fetchPet", "result": {...}}' if action == "respond"
               else '{"kind": "fetchFamily", "message": "offline"}')
    if not isinstance(raw, dict):
        raise wrong(f"{show(action)} must be an object such as {example}, not {_kind(raw)}")
    for key in raw:
        if key not in ("kind", "payload", "result", "message"):
            raise wrong(f"{action}: unknown key {show(key)} (it has kind, {value_key} and, optionally, payload)")
    kind = raw.get("kind")
    if not isinstance(kind, str):
        raise wrong(f'{action}: "kind" is required: the kind of request to answer, such as "fetchPet"')
    if value_key not in raw:
        raise wrong(f"{action}: {show(value_key)} is required")
    if "message" in raw and not isinstance(raw["message"], str):
        raise wrong(f'{action}: "message" must be a string, not {_kind(raw["message"])}')
    return RequestAnswer(kind=kind, value=raw[value_key], payload=raw.get("payload"), match_payload="payload" in raw)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _NotJSONConstant(Exception):
    def __init__(self, constant: str) -> None:
        super().__init__(constant)
        self.constant = constant


def _no_duplicate_keys(pairs: list[tuple[str, JSON]]) -> dict[str, JSON]:
    result: dict[str, JSON] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _no_constant(constant: str) -> JSON:
    raise _NotJSONConstant(constant)


def _is_integer(value: JSON) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: JSON) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value: JSON) -> str:
    """What a JSON value is, in words, for load errors."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({show(value)})"
    if isinstance(value, (int, float)):
        return f"a number ({show(value)})"
    if isinstance(value, str):
        return f"a string ({show(value)})"
    if isinstance(value, list):
        return "a list"
    return "an object"


# -- values, paths and differences ---------------------------------------------------

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
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
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
        return [line for index, (x, y) in enumerate(zip(expected, actual))
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


@dataclass(slots=True)
class ScenarioResult:
    """What running a scenario found. `failures` are the lines of the first failing step
    (the runner stops there), each `<where>: <difference>`, e.g.
    `step 4 (send "joinButtonTapped"): destination.connect.isConnecting: expected true, got false`;
    `where` is that step's label (also in `step`), "create", "at the end" or "load"."""
    name: str
    path: Path | None
    passed: bool
    failures: list[str] = field(default_factory=list)
    #: Where it failed: a step's label, "create", "at the end" or "load"; None when it passed.
    step: str | None = None

    @property
    def file_name(self) -> str:
        return self.path.name if self.path is not None else self.name

    @property
    def differences(self) -> list[str]:
        """The failure lines without the place they happened (`step` says it)."""
        prefix = f"{self.step}: "
        return [line[len(prefix):] if line.startswith(prefix) else line for line in self.failures]

    def headline(self) -> str:
        """`PASS counter.scenario.json: Counter: …` or `FAIL …`."""
        title = self.file_name if self.name == self.file_name else f"{self.file_name}: {self.name}"
        return f"{'PASS' if self.passed else 'FAIL'} {title}"

    def report(self) -> str:
        """The headline, then (when it failed) where and each difference, as docs/scenarios.md shows."""
        lines = [self.headline()]
        if not self.passed:
            lines.append(f"  {self.step}:")
            lines += [f"    {line}" for line in self.differences]
        return "\n".join(lines)


class _StepFailed(Exception):
    """A step could not be done at all (no such request to answer)."""


_libraries: dict[Path | None, Library] = {}


def _library(library: Library | str | os.PathLike[str] | None) -> Library:
    if isinstance(library, Library):
        return library
    key = None if library is None else Path(library).resolve()
    found = _libraries.get(key)
    if found is None:
        found = Library(key) if key is not None else load_library()
        _libraries[key] = found
    return found


def run(scenario: Scenario | str | os.PathLike[str], library: Library | str | os.PathLike[str] | None = None
        ) -> ScenarioResult:
    """Runs a scenario (a file, or a Scenario from `load`) on a new instance of its
    feature, created from `library` (a Library, a path to one, or None for
    `fusionkit.load()`'s), and closes the instance. A file that is not a valid scenario
    gives a failed result whose failure says why; a library that cannot be loaded raises."""
    if not isinstance(scenario, Scenario):
        path = Path(scenario)
        try:
            scenario = load(path)
        except ScenarioError as error:
            return ScenarioResult(name=path.name, path=path, passed=False, failures=[f"{LOAD_LABEL}: {error}"],
                                  step=LOAD_LABEL)
    return _Run(scenario, _library(library)).run()


class _Run:
    """One run of one scenario on one instance."""

    def __init__(self, scenario: Scenario, library: Library) -> None:
        self.scenario = scenario
        self.library = library
        self.instance: Instance | None = None
        #: The host requests open now, oldest first (with "requests": "host").
        self.open: list[HostEvent] = []

    def result(self, where: str | None, lines: list[str]) -> ScenarioResult:
        return ScenarioResult(name=self.scenario.name, path=self.scenario.path, passed=where is None,
                              failures=[f"{where}: {line}" for line in lines], step=where)

    def run(self) -> ScenarioResult:
        scenario = self.scenario
        wanted = scenario.library_name
        if wanted is not None:
            actual = self.library.summary.library.name
            if wanted != actual:
                return self.result(CREATE_LABEL, [f"feature: {show(scenario.feature)} is in the library {show(wanted)}, "
                                                  f"but the library is {show(actual)}"])
        try:
            self.instance = self.library.create(scenario.feature_name, options=scenario.creation_options)
        except FusionError as error:
            return self.result(CREATE_LABEL, [f"refused: {_refusal(error)}"])
        try:
            self.drain()
            for step in scenario.steps:
                lines = self.step(step)
                if lines:
                    return self.result(step.label, lines)
            if scenario.nothing_pending:
                lines = self.nothing_pending()
                if lines:
                    return self.result(END_LABEL, lines)
            return self.result(None, [])
        finally:
            self.instance.close()

    def drain(self) -> None:
        """Takes the request events waiting (fk_poll_request): requests join the open list,
        cancellations leave it."""
        if not self.scenario.host_requests:
            return
        assert self.instance is not None
        while (event := self.instance.poll_request()) is not None:
            if event.is_request:
                self.open.append(event)
            elif event.is_cancel:
                self.open = [request for request in self.open if request.id != event.id]

    def settle(self) -> None:
        assert self.instance is not None
        if self.scenario.manual_clock:
            self.instance.advance_clock(0)

    def step(self, step: Step) -> list[str]:
        instance = self.instance
        assert instance is not None
        before, before_version = instance.snapshot()
        refusal: FusionError | None = None
        try:
            self.act(step)
        except FusionError as error:
            refusal = error
        except _StepFailed as failure:
            return [str(failure)]
        lines: list[str] = []
        try:
            self.settle()
            self.drain()
        except FusionError as error:
            return [f"settling: {_refusal(error)}"]
        after, after_version = instance.snapshot()

        got = refusal.status if refusal is not None else None
        if step.error != got:
            why = f" ({refusal.message})" if refusal is not None and refusal.message else ""
            lines.append(f"error: expected {show(step.error)}, got {show(got)}{why}")
        if refusal is not None and after_version != before_version:
            lines.append(f"version: expected {before_version}, got {after_version}")
        if step.expect is not None:
            lines += expect_differences(step.expect, after)
        if step.state is not None:
            lines += exact_differences(step.state, after)
        if step.requests is not None:
            open_kinds = [request.kind for request in self.open]
            if list(step.requests) != open_kinds:
                lines.append(f"requests: expected {show(list(step.requests))}, got {show(open_kinds)}")
        if self.scenario.exhaustive:
            named: list[Path_] = [()] if step.state is not None else []
            named += named_paths(step.expect or {})
            for path, old, new in changes(before, after):
                if not is_named(path, named):
                    lines.append(f"{format_path(path)} changed ({show(old)} → {show(new)}) but the step does not name it")
        return lines

    def act(self, step: Step) -> None:
        instance = self.instance
        assert instance is not None
        if step.action == "send":
            instance.send_json(show(step.argument))
        elif step.action == "advance":
            instance.advance_clock(float(step.argument))
        elif step.action == "goto":
            instance.goto(int(step.argument))
        elif step.action in ("respond", "fail"):
            answer = step.argument
            assert isinstance(answer, RequestAnswer)
            request = next((request for request in self.open if answer.matches(request)), None)
            if request is None:
                which = f"{show(answer.kind)} request" + (
                    f" with the payload {show(answer.payload)}" if answer.match_payload else "")
                open_ones = ", ".join(f"{request.kind} {show(request.payload)}" for request in self.open) or "none"
                raise _StepFailed(f"{step.action}: no open {which} to answer (open: {open_ones})")
            if step.action == "respond":
                instance.respond(request.id, answer.value)
            else:
                instance.fail_request(request.id, str(answer.value))
            self.open = [other for other in self.open if other.id != request.id]

    def nothing_pending(self) -> list[str]:
        assert self.instance is not None
        try:
            self.settle()
            effects, requests = self.instance.pending()
        except FusionError as error:
            return [f"pending: {_refusal(error)}"]
        lines: list[str] = []
        if effects:
            lines.append(f"pending.effects: expected 0, got {effects}")
        if requests:
            lines.append(f"pending.requests: expected 0, got {requests}")
        return lines


def _refusal(error: FusionError) -> str:
    return f"{error.status}: {error.message}" if error.status else error.message


# -- files -------------------------------------------------------------------------


def collect(*paths: str | os.PathLike[str]) -> list[Path]:
    """The scenario files of `paths`, in the order given: a file as it is; a folder's
    `*.scenario.json`, searched recursively (skipping names that start with "."), sorted
    by their path as text, as `fusion test` lists them. FileNotFoundError for a path
    that does not exist."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found += sorted(_search(path), key=str)
        elif path.exists():
            found.append(path)
        else:
            raise FileNotFoundError(f"no such scenario file or folder: {path}")
    return found


def _search(folder: Path) -> list[Path]:
    found: list[Path] = []
    for entry in folder.iterdir():
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            found += _search(entry)
        elif entry.name.endswith(SUFFIX) and entry.is_file():
            found.append(entry)
    return found


def scenario_id(path: str | os.PathLike[str]) -> str:
    """A scenario's name as a test id: its file name without `.scenario.json`."""
    name = Path(path).name
    return name[:-len(SUFFIX)] if name.endswith(SUFFIX) and len(name) > len(SUFFIX) else Path(path).stem


def params(*paths: str | os.PathLike[str]) -> list[Any]:
    """`collect(*paths)` as `pytest.param(path, id=…)`, for `pytest.mark.parametrize`
    (the id is the file's name without `.scenario.json`)."""
    import pytest  # only when asked: the package does not need pytest
    return [pytest.param(path, id=scenario_id(path)) for path in collect(*paths)]


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


if __name__ == "__main__":
    sys.exit(main())
