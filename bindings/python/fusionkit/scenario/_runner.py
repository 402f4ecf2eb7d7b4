"""Running a scenario on a fresh instance through the C ABI, as `fusion test` does, and
its verdict (`ScenarioResult`)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .._host_requests import HostEvent
from .._instance import Instance
from .._library import Library
from .._library import load as load_library
from ..errors import FusionError
from ._comparison import Path_, changes, exact_differences, expect_differences, format_path, is_named, named_paths, show
from ._model import CREATE_LABEL, END_LABEL, LOAD_LABEL, RequestAnswer, Scenario, ScenarioError, Step, load


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
