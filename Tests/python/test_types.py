"""Typed front ends (`fusion types`, docs/typed-front-ends.md): the generated files are
the library's, the checkers catch what the types forbid, and the manifest they come from
is true of every state and input the seed scenarios and seeded random runs produce."""
from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fusionkit
import jsonschema
import pytest
from fusionkit.scenario import _runner

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "examples" / "web"
PYTHON_EXAMPLES = ROOT / "examples" / "python"
SCENARIOS = sorted((ROOT / "examples" / "scenarios").glob("*.scenario.json"))


def run_fusion(fusion: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(fusion), *map(str, args)], capture_output=True, text=True, timeout=120)


# -- the generated files ---------------------------------------------------------------

@pytest.mark.parametrize(("lang", "folder"), [("ts", WEB / "types"), ("python", PYTHON_EXAMPLES)])
def test_the_committed_files_are_the_librarys(fusion: Path, library_path: Path, lang: str, folder: Path) -> None:
    result = run_fusion(fusion, "types", "--lang", lang, library_path, "--check", folder)
    assert result.returncode == 0, result.stderr


def test_check_names_each_difference_and_exits_7(fusion: Path, library_path: Path, tmp_path: Path) -> None:
    shutil.copytree(PYTHON_EXAMPLES / "fusion_examples", tmp_path / "fusion_examples")
    module = tmp_path / "fusion_examples" / "__init__.py"
    module.write_text(module.read_text().replace("    isOn: bool\n", "    isOn: int\n", 1))
    result = run_fusion(fusion, "types", "--lang", "python", library_path, "--check", tmp_path)
    assert result.returncode == 7
    assert "fusion_examples/__init__.py:" in result.stderr
    assert "isOn: bool" in result.stderr and "isOn: int" in result.stderr
    (tmp_path / "fusion_examples" / "py.typed").unlink()
    result = run_fusion(fusion, "types", "--lang", "python", library_path, "--check", tmp_path)
    assert result.returncode == 7
    assert "py.typed: missing" in result.stderr


def test_a_feature_alone_and_an_unknown_one(fusion: Path, library_path: Path) -> None:
    result = run_fusion(fusion, "types", "--lang", "ts", library_path, "--feature", "counter")
    assert result.returncode == 0, result.stderr
    assert "counter: { state: Counter.State; input: Counter.Input };" in result.stdout
    assert "WiFiSettings" not in result.stdout
    result = run_fusion(fusion, "types", "--lang", "ts", library_path, "--feature", "wifii")
    assert result.returncode == 2
    assert 'unknown feature "wifii"' in result.stderr and "wifi" in result.stderr
    result = run_fusion(fusion, "types", "--lang", "swift", library_path)
    assert result.returncode == 64


def test_nested_types_keep_their_swift_names(fusion: Path, library_path: Path) -> None:
    ts = run_fusion(fusion, "types", "--lang", "ts", library_path).stdout
    # Three Swift types named State, each under its own enclosing type; none twice.
    assert "export namespace ConnectToNetwork {\n    export interface State {" in ts
    assert "export namespace NetworkDetail {\n    export interface State {" in ts
    assert "        | { connect: ConnectToNetwork.State }\n        | { detail: NetworkDetail.State };" in ts
    assert ts.count("export interface Network {") == 1
    # Every enum comes out: the profile's Fetch (a String enum) and Wi-Fi's Destination.
    assert 'export type Fetch = "pet" | "family" | "preschool" | "babyProfile";' in ts
    assert "export type Destination =" in ts


# -- the checkers have teeth -------------------------------------------------------------

WRONG_PYTHON = {
    "input name": 'wifi.send("networkTaped")',
    "field name": 'wifi.send({"networkTapped": {"idd": "blob"}})',
    "field type": 'wifi.send({"networkTapped": {"id": 3}})',
    "state field": 'print(wifi.state["selectedNetworkId"])',
}

WRONG_TS = {
    "input name": 'void wifi.send("networkTaped");',
    "field name": 'void wifi.send({ networkTapped: { idd: "blob" } });',
    "field type": 'void wifi.send({ networkTapped: { id: 3 } });',
    "state field": "console.log(wifi.state?.selectedNetworkId);",
}


def mypy(tmp_path: Path, target: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--python-version", "3.11", "--cache-dir", str(tmp_path / "cache"),
         str(target)],
        capture_output=True, text=True, timeout=600,
        env={"MYPYPATH": f"{ROOT / 'bindings' / 'python'}:{PYTHON_EXAMPLES}", "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("mistake", sorted(WRONG_PYTHON))
def test_mypy_catches_a_wrong(tmp_path: Path, mistake: str) -> None:
    program = tmp_path / "program.py"
    lines = ["import fusion_examples", 'wifi = fusion_examples.load().create("wifi")',
             'wifi.send({"networkTapped": {"id": "blob"}})', 'print(wifi.state["selectedNetworkID"])']
    program.write_text("\n".join(lines) + "\n")
    result = mypy(tmp_path, program)
    assert result.returncode == 0, result.stdout  # the right program passes
    program.write_text("\n".join([*lines, WRONG_PYTHON[mistake]]) + "\n")
    result = mypy(tmp_path, program)
    assert result.returncode == 1
    assert "program.py:5: error" in result.stdout, result.stdout


def tsc(folder: Path) -> subprocess.CompletedProcess[str]:
    tsc = shutil.which("tsc")
    assert tsc is not None, "tsc (Debian's node-typescript) is missing: run scripts/setup"
    return subprocess.run([tsc, "-p", ".", "--noEmit", "--strict", "--checkJs"], capture_output=True,
                          text=True, timeout=600, cwd=folder)


@pytest.fixture
def ts_project(tmp_path: Path) -> Iterator[Path]:
    """A folder beside the pages' (so their tsconfig's paths hold) with one program."""
    folder = tmp_path / "project"
    folder.mkdir()
    config = json.loads((WEB / "tsconfig.json").read_text())
    config["compilerOptions"]["baseUrl"] = str(WEB)
    config["include"] = ["program.ts", str(WEB / "types" / "*.d.ts")]
    (folder / "tsconfig.json").write_text(json.dumps(config))
    yield folder


RIGHT_TS = ['import { connect } from "/fusionkit.js";',
            f'import type {{ Features }} from "{WEB / "types" / "fusion-examples"}";',
            "const bridge = await connect<Features>();",
            'const wifi = await bridge.create("wifi");',
            'void wifi.send({ networkTapped: { id: "blob" } });',
            "console.log(wifi.state?.selectedNetworkID);",
            "export {};"]


@pytest.mark.parametrize("mistake", sorted(WRONG_TS))
def test_tsc_catches_a_wrong(ts_project: Path, mistake: str) -> None:
    lines = RIGHT_TS
    (ts_project / "program.ts").write_text("\n".join(lines) + "\n")
    result = tsc(ts_project)
    assert result.returncode == 0, result.stdout  # the right program passes
    (ts_project / "program.ts").write_text("\n".join([*lines, WRONG_TS[mistake]]) + "\n")
    result = tsc(ts_project)
    assert result.returncode != 0
    assert "program.ts(8," in result.stdout, result.stdout


def test_the_docs_show_what_tsc_says(ts_project: Path) -> None:
    program = [*RIGHT_TS, WRONG_TS["input name"], WRONG_TS["state field"]]
    (ts_project / "program.ts").write_text("\n".join(program) + "\n")
    printed = tsc(ts_project).stdout.splitlines()
    doc = (ROOT / "docs" / "typed-front-ends.md").read_text()
    shown = doc.split("<!-- output of a run: tsc on a program with two mistakes")[1].split("```text\n")[1].split("```")[0]
    assert shown.splitlines() == printed


def test_the_demo_pages_type_check() -> None:
    result = tsc(WEB)
    assert result.returncode == 0, result.stdout


def test_the_python_examples_type_check(tmp_path: Path) -> None:
    result = mypy(tmp_path, PYTHON_EXAMPLES)
    assert result.returncode == 0, result.stdout


# -- the manifest is true ------------------------------------------------------------------

def schemas(lib: fusionkit.Library, feature: str) -> tuple[Any, Any]:
    spec = lib.manifest.feature(feature)
    validator = jsonschema.Draft202012Validator
    validator.check_schema(spec.state_schema)
    validator.check_schema(spec.input_schema)
    return validator(spec.state_schema), validator(spec.input_schema)


def valid(validator: Any, value: Any, what: str) -> None:
    errors = [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(value)]
    assert errors == [], f"{what}: {json.dumps(value)}\n" + "\n".join(errors)


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.name for path in SCENARIOS])
def test_every_state_and_input_of_a_seed_scenario_fits_the_manifest(
        lib: fusionkit.Library, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    feature = json.loads(path.read_text())["feature"]
    state_schema, input_schema = schemas(lib, feature)
    checked: list[str] = []
    original = _runner._Run.step

    def step(run: Any, step: Any) -> list[str]:
        if step.action == "send" and step.error in ("FK_ERR_UNKNOWN_INPUT", "FK_ERR_INVALID_INPUT"):
            # An input the scenario shows refused: the schema refuses it too.
            assert not input_schema.is_valid(step.argument), f"{step.label}: the schema takes {step.argument!r}"
        elif step.action == "send":
            valid(input_schema, step.argument, f"{step.label}: the input")
        lines: list[str] = original(run, step)
        valid(state_schema, run.instance.state, f"{step.label}: the state after it")
        checked.append(step.label)
        return lines

    monkeypatch.setattr(_runner._Run, "step", step)
    result = fusionkit.scenario.run(path, lib)
    assert result.passed, result.report()
    assert len(checked) == len(json.loads(path.read_text())["steps"])


RANDOM_STEPS = 2000


def some_input(case: fusionkit.InputCase, draw: random.Random, state: Any) -> Any:
    ids = [network["id"] for network in state.get("foundNetworks", [])] or ["blob"]
    fields: dict[str, Any] = {}
    for field in case.fields:
        if field.type == "boolean":
            fields[field.name] = draw.random() < 0.5
        elif field.name == "id":
            fields[field.name] = draw.choice(ids)
        elif field.name == "password":
            fields[field.name] = draw.choice(["blob", "hunter2", ""])
        elif field.type == "string":
            fields[field.name] = draw.choice(["", "  blue  ", "가나다"])
        else:
            fields[field.name] = draw.randint(-3, 3)
    if not fields and draw.random() < 0.5:
        return case.name
    return {case.name: fields}


@pytest.mark.parametrize("feature", ["counter", "answer", "home", "wifi", "profile"])
def test_seeded_random_steps_stay_inside_the_manifest(lib: fusionkit.Library, feature: str) -> None:
    state_schema, input_schema = schemas(lib, feature)
    cases = lib.manifest.feature(feature).inputs
    draw = random.Random(f"types-{feature}")
    answers = {"fetchPet": {"name": "Dubu", "species": "cat", "age": 4},
               "fetchFamily": {"members": [{"name": "Yuna", "relation": "mother"}]},
               "fetchPreschool": {"name": "Maple", "className": "Owls", "teacher": "Mr. Seo"},
               "fetchBabyProfile": {"name": "Haneul", "birthDate": "2024-02-29", "heightCm": 84, "weightKg": 11.2}}
    with lib.create(feature, seed=7, clock="manual", requests="host") as instance:
        valid(state_schema, instance.state, "the first state")
        open_requests: dict[int, str] = {}
        for number in range(RANDOM_STEPS):
            while (event := instance.poll_request()) is not None:
                if event.is_request:
                    open_requests[event.id] = event.kind or ""
                elif event.is_cancel:
                    open_requests.pop(event.id, None)
            roll = draw.random()
            if roll < 0.15:
                instance.advance_clock(draw.choice([0.1, 0.5, 1, 2.5]))
            elif roll < 0.3 and open_requests:
                request_id = draw.choice(sorted(open_requests))
                kind = open_requests.pop(request_id)
                if draw.random() < 0.8:
                    instance.respond(request_id, answers[kind])
                else:
                    instance.fail_request(request_id, "offline")
            else:
                sent = some_input(draw.choice(cases), draw, instance.state)
                valid(input_schema, sent, f"step {number}: the input")
                instance.send(sent)
            valid(state_schema, instance.state, f"step {number}: the state")
