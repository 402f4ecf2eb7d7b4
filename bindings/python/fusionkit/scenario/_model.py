"""A scenario file as values (`Scenario`, `Step`, `RequestAnswer`), and reading one:
`load(path)` and `parse(document)`, with ScenarioError naming what is wrong and where."""
from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from .._text import JSON_MAX_DEPTH, too_deep
from ..errors import FusionError
from ._comparison import _is_integer, _is_number, json_equal, show
from ._model_types import JSON

if TYPE_CHECKING:
    from .._host_requests import HostEvent

#: What a scenario file's name ends with.
SUFFIX: Final = ".scenario.json"

#: The options every scenario starts from; the file's own options are merged over them.
DEFAULT_OPTIONS: Final[Mapping[str, JSON]] = {"clock": "manual"}

_TOP_KEYS: Final = ("$schema", "name", "note", "recorded", "feature", "options", "exhaustive", "nothingPending", "steps")
_OPTION_KEYS: Final = ("state", "stateVersion", "seed", "clock", "requests", "settings", "history", "user")
_ACTION_KEYS: Final = ("send", "advance", "respond", "fail", "goto")
_CHECK_KEYS: Final = ("expect", "state", "error", "requests", "note")
_STATUS_NAME: Final = re.compile(r"FK_ERR_[A-Z_]+")
_U64_LIMIT: Final = 1 << 64

#: The place of a failure that belongs to no step.
CREATE_LABEL: Final = "create"
END_LABEL: Final = "at the end"
LOAD_LABEL: Final = "load"


class ScenarioError(FusionError, ValueError):
    """A file that is not a valid scenario (a FusionError whose `status` is None, and a
    ValueError as before). The message names the file, the step (when
    the problem is in one) and the key: `counter.scenario.json: step 3: "advance" must
    be a number of seconds (0 or more), not "1"`."""


class ScenarioNotFoundError(FusionError, FileNotFoundError):
    """A scenario file or folder that is not there (a FusionError, and a
    FileNotFoundError as before)."""


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
        elif self.action == "advance":
            what = f"advance {show(float(self.argument))}"  # 1e+300, 1000000000000000.0: as fusion test writes seconds
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
        # The json module recurses once per level: nesting thousands deep would be a
        # RecursionError, so it is measured first, as the library's parser refuses it.
        deep = too_deep(text)
        if deep is not None:
            raise json.JSONDecodeError(f"nesting deeper than {JSON_MAX_DEPTH} levels", text, deep)
        document = json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant,
                              parse_int=_whole_number, parse_float=_fraction)
    except json.JSONDecodeError as error:
        raise ScenarioError(f"{file.name}: not JSON: {error}") from None
    except _DuplicateKey as error:
        raise ScenarioError(f"{file.name}: the key {show(error.key)} appears twice in one object") from None
    except _NotJSONConstant as error:
        raise ScenarioError(f"{file.name}: {error.constant} is not a JSON value") from None
    except _OutOfRange as error:
        shown = error.text if len(error.text) <= 40 else error.text[:40] + "…"
        raise ScenarioError(f"{file.name}: not JSON: number {shown} is out of range") from None
    return parse(document, path=file)


def parse(document: JSON, *, path: str | os.PathLike[str] | None = None) -> Scenario:
    """Checks a scenario already read from JSON (a dict), as `load` does."""
    file = Path(path) if path is not None else None
    where = file.name if file is not None else "scenario"

    def fail(message: str, step: int | None = None) -> ScenarioError:
        return ScenarioError(f"{where}: {message}" if step is None else f"{where}: step {step}: {message}")

    if not isinstance(document, dict):
        raise fail(f"a scenario is a JSON object, not {_kind(document)}")
    unreadable = _not_json(document)
    if unreadable is not None:
        raise fail(unreadable)
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
        if key in ("state", "settings", "user") and not isinstance(value, dict):
            raise fail(f"options: {show(key)} must be an object, not {_kind(value)}")
        if key == "seed" and not (0 <= _whole_or(value, -1) < _U64_LIMIT or _digits_from_2_63(value)):
            raise fail(f'options: "seed" must be a whole number from 0 to 2^64-1 (from 2^63 on, its digits as a '
                       f"string), not {show(value)}")
        if key == "stateVersion" and not _whole_or(value, 0) >= 1:
            raise fail(f'options: "stateVersion" must be the state version the state was saved at (1 or more), '
                       f"not {show(value)}")
        if key == "clock" and value not in ("manual", "system"):
            raise fail(f'options: "clock" must be "manual" or "system", not {show(value)}')
        if key == "requests" and value not in ("builtin", "host"):
            raise fail(f'options: "requests" must be "builtin" or "host", not {show(value)}')
        if key == "history" and not _whole_or(value, -1) >= 0:
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
        # Any JSON: the library judges it, and a step that expects its refusal says so in
        # "error" (a recording keeps the inputs refused, `{}` or `5` too).
        argument = raw["send"]
    elif action == "advance":
        argument = raw["advance"]
        if not _is_number(argument) or argument < 0 or not math.isfinite(argument):
            raise wrong(f'"advance" must be a number of seconds (0 or more), not {show(argument)}')
    elif action in ("respond", "fail"):
        argument = _answer(action, raw[action], wrong)
    elif action == "goto":
        argument = _whole_or(raw["goto"], raw["goto"])
        if not 0 <= _whole_or(argument, -1) < _U64_LIMIT:
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


class _OutOfRange(Exception):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _whole_number(text: str) -> int:
    """An integer of the file. One no double can hold is out of range, as the library's
    parser says (it reads integers past 64 bits as doubles); more than 400 digits are
    refused before int() reads them (Python refuses past 4,300 with a ValueError)."""
    if len(text) > 400:
        raise _OutOfRange(text)
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise _OutOfRange(text) from None
    return value


def _fraction(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _OutOfRange(text)  # 1e400: json would read it as infinity, which is not JSON
    return value


def _not_json(document: JSON) -> str | None:
    """Why a document (a file's, or one built in code for `parse`) is not JSON the library
    reads, or None: nesting deeper than it reads, a string with an unpaired surrogate (from
    a \\u escape), a number no double holds (NaN and infinity included)."""
    stack: list[tuple[JSON, int]] = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > JSON_MAX_DEPTH:
                return f"not JSON: nesting deeper than {JSON_MAX_DEPTH} levels"
            if isinstance(value, dict):
                for key, item in value.items():
                    stack.append((key, depth))
                    stack.append((item, depth + 1))
            else:
                stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return "not JSON: unpaired UTF-16 surrogate in a string (a \\u escape of half a pair)"
        elif isinstance(value, float):
            if not math.isfinite(value):
                return f"not JSON: the number {value} is not a JSON value"
        elif isinstance(value, int) and not isinstance(value, bool):
            try:
                float(value)
            except OverflowError:
                return "not JSON: a number is out of range: no double holds it"
    return None


def _no_duplicate_keys(pairs: list[tuple[str, JSON]]) -> dict[str, JSON]:
    result: dict[str, JSON] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _no_constant(constant: str) -> JSON:
    raise _NotJSONConstant(constant)


def _whole_or(value: JSON, otherwise: Any) -> Any:
    """A whole number however JSON wrote it (3, 3.0 and 3e0 are one number, as the
    library reads its options: fusionkit.h), else `otherwise`."""
    if _is_integer(value):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return otherwise


def _digits_from_2_63(value: JSON) -> bool:
    """Whether `value` is a seed from 2^63 to 2^64-1 written as a string of digits, as the
    library takes one (fusionkit.h: a JSON number that large loses digits)."""
    return isinstance(value, str) and value.isascii() and value.isdigit() and 1 << 63 <= int(value) < _U64_LIMIT


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
