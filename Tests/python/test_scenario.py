"""fusionkit.scenario: the Python runner of docs/scenarios.md. Every scenario of
examples/scenarios passes; every one of Tests/scenarios/failing fails, at the step and
with the lines it says it will; malformed files (Tests/scenarios/malformed among them)
are refused with errors naming the key and the step, and fail at "load" without
crashing the run; and a result does not depend on what ran before it."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import fusionkit
import fusionkit.scenario as scenario
import pytest
from fusionkit.scenario import Scenario, ScenarioError, ScenarioResult

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "scenarios"
FAILING = ROOT / "Tests" / "scenarios" / "failing"
MALFORMED_FILES = ROOT / "Tests" / "scenarios" / "malformed"


# -- the examples pass -------------------------------------------------------------


@pytest.mark.parametrize("path", scenario.params(EXAMPLES))
def test_example_scenario_passes(path: Path, lib: fusionkit.Library) -> None:
    result = scenario.run(path, lib)
    assert result.passed, result.report()
    assert result.failures == [] and result.step is None
    assert result.report().startswith("PASS ")


def test_the_examples_cover_every_feature() -> None:
    loaded = [scenario.load(path) for path in scenario.collect(EXAMPLES)]
    features = {item.feature for item in loaded}
    assert features == {"counter", "answer", "home", "wifi", "profile"}
    exhaustive = {item.feature for item in loaded if item.exhaustive}
    assert {"counter", "answer", "wifi"} <= exhaustive
    for path in scenario.collect(EXAMPLES):
        document = json.loads(path.read_text("utf-8"))
        assert document["$schema"] == "../../docs/scenario.schema.json", path.name
        assert document.get("name"), path.name
        assert path.name.endswith(".scenario.json")


# -- the failing ones fail, where and how they say ---------------------------------

#: Each deliberately failing scenario: where it fails and its exact failure lines.
EXPECTED_FAILURES: dict[str, tuple[str, list[str]]] = {
    "wrong-expect-value": ('step 3 (send "joinButtonTapped")', [
        "destination.connect.isConnecting: expected false, got true",
        "destination.connect.incorrectPasswordAlertIsPresented: expected true, got false",
    ]),
    "unnamed-change-in-exhaustive": ('step 2 (send "loadAllProfiles")', [
        "isLoading changed (false → true) but the step does not name it",
    ]),
    "expected-error-missing": ('step 2 (send "reset")', [
        'error: expected "FK_ERR_UNKNOWN_INPUT", got null',
    ]),
    "request-never-made": ("step 2 (respond fetchPets)", [
        'respond: no open "fetchPets" request to answer (open: fetchPet {"profileID":"baby-1"}, '
        'fetchFamily {"profileID":"baby-1"}, fetchPreschool {"profileID":"baby-1"}, '
        'fetchBabyProfile {"profileID":"baby-1"})',
    ]),
    "left-pending": ("at the end", [
        "pending.effects: expected 0, got 1",
    ]),
    "wrong-whole-state": ('step 1 (send "viewDidLoad")', [
        'desc: expected "Number 3", got "Number 2"',
    ]),
    "goto-forgotten-version": ("step 4 (goto 2)", [
        'error: expected null, got "FK_ERR_INVALID_ARGUMENT" (version 2 is not kept; this instance keeps v0, v3)',
        "value: expected 2, got 1",
    ]),
    "advance-past-the-end-of-time": ("step 2 (advance 1e+300)", [
        'error: expected null, got "FK_ERR_INVALID_ARGUMENT" '
        "(seconds 1e+300 is out of range: the clock moves by at most 2^64 - 1 nanoseconds)",
    ]),
    "advance-just-past-2-64-nanoseconds": ("step 2 (advance 18446744074)", [
        'error: expected null, got "FK_ERR_INVALID_ARGUMENT" '
        "(seconds 18446744074.0 is out of range: the clock moves by at most 2^64 - 1 nanoseconds)",
    ]),
}


def test_every_failing_scenario_is_listed() -> None:
    assert sorted(scenario.scenario_id(path) for path in scenario.collect(FAILING)) == sorted(EXPECTED_FAILURES)


@pytest.mark.parametrize("path", scenario.params(FAILING))
def test_failing_scenario_fails_as_its_note_says(path: Path, lib: fusionkit.Library) -> None:
    document = json.loads(path.read_text("utf-8"))
    assert isinstance(document.get("note"), str) and "Deliberately fails" in document["note"]
    result = scenario.run(path, lib)
    assert not result.passed, result.report()
    where, lines = EXPECTED_FAILURES[scenario.scenario_id(path)]
    assert result.step == where, result.report()
    assert result.differences == lines, result.report()
    assert result.failures == [f"{where}: {line}" for line in lines]
    report = result.report().splitlines()
    assert report[0] == f"FAIL {path.name}: {document['name']}"
    assert report[1] == f"  {where}:"
    assert report[2:] == [f"    {line}" for line in lines]


#: Each file of Tests/scenarios/malformed: why loading it fails (after "<file name>: ").
EXPECTED_MALFORMED: dict[str, str] = {
    "note-a-number": 'step 1: "note" must be a string, not a number (5)',
    "note-an-object": '"note" must be a string, not an object',
    "respond-unknown-key": 'step 2: respond: unknown key "extra" (it has kind, result and, optionally, payload)',
    "schema-a-number": '"$schema" must be a string, not a number (5)',
    "advance-a-string": 'step 1: "advance" must be a number of seconds (0 or more), not "1"',
    "advance-negative": 'step 1: "advance" must be a number of seconds (0 or more), not -1',
    "goto-a-fraction": 'step 1: "goto" must be a version number (0 or more) the instance keeps, not 0.5',
    "goto-past-uint64": 'step 1: "goto" must be a version number (0 or more) the instance keeps, not 18446744073709551616',
    "integer-too-long": "not JSON: number " + "9" * 40 + "… is out of range",
    "name-a-number": '"name" must be a string, not a number (5)',
    "nesting-too-deep": "not JSON: nesting deeper than 512 levels: line 7 column 536 (char 1241)",
    "nothing-pending-a-string": '"nothingPending" must be true or false, not a string ("no")',
    "nul-after-the-scenario": "not JSON: Extra data: line 10 column 1 (char 619)",
    "number-out-of-range": "not JSON: number 1e400 is out of range",
    "unpaired-surrogate": "not JSON: unpaired UTF-16 surrogate in a string (a \\u escape of half a pair)",
}


def test_every_malformed_scenario_is_listed() -> None:
    assert sorted(scenario.scenario_id(path) for path in scenario.collect(MALFORMED_FILES)) == sorted(EXPECTED_MALFORMED)


@pytest.mark.parametrize("path", scenario.params(MALFORMED_FILES))
def test_malformed_scenario_fails_at_load_saying_why(path: Path, lib: fusionkit.Library) -> None:
    result = scenario.run(path, lib)
    assert not result.passed and result.step == "load", result.report()
    assert result.failures == [f"load: {path.name}: {EXPECTED_MALFORMED[scenario.scenario_id(path)]}"]
    assert result.report().splitlines() == [f"FAIL {path.name}", "  load:", f"    {result.differences[0]}"]
    result.report().encode("utf-8")  # printable: nothing of the file that UTF-8 cannot hold


def test_the_doc_example_of_a_failure(lib: fusionkit.Library) -> None:
    # docs/scenarios.md: step 4 (send "joinButtonTapped"): destination.connect.isConnecting: expected true, got false
    result = run_document(lib, {
        "name": "Wi-Fi: a wrong password shows the alert", "feature": "wifi",
        "options": {"settings": {"liveScan": False}},
        "steps": [
            {"send": {"networkTapped": {"id": "blob"}}},
            {"send": {"passwordChanged": {"password": "hunter2"}}},
            {"advance": 1},
            {"send": "joinButtonTapped", "expect": {"destination": {"connect": {"isConnecting": False}}}},
        ]})
    assert result.failures == ['step 4 (send "joinButtonTapped"): destination.connect.isConnecting: expected false, got true']


# -- the runner's semantics, one by one --------------------------------------------


def run_document(lib: fusionkit.Library, document: dict[str, Any]) -> ScenarioResult:
    return scenario.run(scenario.parse(document), lib)


def test_expect_is_partial_for_objects_and_exact_for_arrays(lib: fusionkit.Library) -> None:
    wifi = {"feature": "wifi", "options": {"settings": {"liveScan": False}}}
    ok = run_document(lib, {**wifi, "steps": [{"expect": {"otherNetworks": [
        {"id": "blob", "name": "Blob's WiFi", "isSecured": True, "connectivity": 0.9, "signalBars": 3, "signalPercent": 90, "securityLabel": "Secured"},
        {"id": "blob-jr", "name": "Blob Jr's WiFi", "isSecured": True, "connectivity": 0.6, "signalBars": 2, "signalPercent": 60, "securityLabel": "Secured"},
        {"id": "blob-sr", "name": "Blob Sr's WiFi", "isSecured": True, "connectivity": 0.3, "signalBars": 1, "signalPercent": 30, "securityLabel": "Secured"},
        {"id": "cafe", "name": "Café Guest", "isSecured": False, "connectivity": 0.5, "signalBars": 2, "signalPercent": 50, "securityLabel": "Open"}]}}]})
    assert ok.passed, ok.report()
    # An array element is compared whole: naming only some of its fields is a difference.
    partial = run_document(lib, {**wifi, "steps": [{"expect": {"otherNetworks": [
        {"id": "blob"}, {"id": "blob-jr"}, {"id": "blob-sr"}, {"id": "cafe", "connectivity": 0.4}]}}]})
    assert partial.step == "step 1 (check)"
    assert "otherNetworks[0].name: expected absent, got \"Blob's WiFi\"" in partial.differences
    assert "otherNetworks[3].connectivity: expected 0.4, got 0.5" in partial.differences
    shorter = run_document(lib, {**wifi, "steps": [{"expect": {"otherNetworks": []}}]})
    assert shorter.differences[0].startswith('otherNetworks: expected [], got [{"id":"blob",')
    missing = run_document(lib, {**wifi, "steps": [{"expect": {"destination": {"connect": {}}, "nope": 1}}]})
    assert missing.differences == ['destination: expected {"connect":{}}, got null', "nope: expected 1, got absent"]


def test_numbers_compare_by_value_but_booleans_are_not_numbers(lib: fusionkit.Library) -> None:
    assert run_document(lib, {"feature": "counter", "steps": [{"expect": {"value": 0.0, "isReset": False}}]}).passed
    result = run_document(lib, {"feature": "counter", "steps": [{"expect": {"value": False, "isReset": 0}}]})
    assert result.differences == ["value: expected false, got 0", "isReset: expected 0, got false"]


def test_state_is_exact(lib: fusionkit.Library) -> None:
    result = run_document(lib, {"feature": "counter", "steps": [
        {"send": "increase", "state": {"value": 1, "isReset": False}}]})
    assert result.failures == ['step 1 (send "increase"): alert: expected absent, got null']
    extra = run_document(lib, {"feature": "counter", "steps": [
        {"state": {"value": 0, "isReset": False, "alert": None, "more": True}}]})
    assert extra.differences == ["more: expected true, got absent"]


def test_an_unexpected_refusal_fails_the_step_with_the_library_message(lib: fusionkit.Library) -> None:
    result = run_document(lib, {"feature": "counter", "steps": [{"send": "jump"}]})
    assert result.step == 'step 1 (send "jump")'
    assert result.differences[0].startswith('error: expected null, got "FK_ERR_UNKNOWN_INPUT" (unknown input "jump"')
    wrong = run_document(lib, {"feature": "counter", "steps": [{"send": {"increase": {"by": 2}},
                                                                 "error": "FK_ERR_UNKNOWN_INPUT"}]})
    assert wrong.differences[0].startswith('error: expected "FK_ERR_UNKNOWN_INPUT", got "FK_ERR_INVALID_INPUT" (')


def test_requests_are_the_open_kinds_oldest_first(lib: fusionkit.Library) -> None:
    result = run_document(lib, {"feature": "profile", "options": {"requests": "host"}, "steps": [
        {"send": "loadAllProfiles", "requests": ["fetchBabyProfile", "fetchPet", "fetchFamily", "fetchPreschool"]}]})
    assert result.failures == [
        'step 1 (send "loadAllProfiles"): requests: expected ["fetchBabyProfile","fetchPet","fetchFamily","fetchPreschool"], '
        'got ["fetchPet","fetchFamily","fetchPreschool","fetchBabyProfile"]']


def test_respond_can_require_the_payload(lib: fusionkit.Library) -> None:
    base: dict[str, Any] = {"feature": "profile", "options": {"requests": "host"}}
    pet = {"name": "Bori", "species": "cat", "age": 2}
    good = run_document(lib, {**base, "nothingPending": False, "steps": [
        {"send": "loadAllProfiles"},
        {"respond": {"kind": "fetchPet", "payload": {"profileID": "baby-1"}, "result": pet}, "expect": {"pet": pet}}]})
    assert good.passed, good.report()
    bad = run_document(lib, {**base, "steps": [
        {"send": "loadAllProfiles"},
        {"respond": {"kind": "fetchPet", "payload": {"profileID": "baby-2"}, "result": pet}}]})
    assert bad.step == "step 2 (respond fetchPet)"
    assert bad.differences[0].startswith('respond: no open "fetchPet" request with the payload {"profileID":"baby-2"} to answer')
    failed = run_document(lib, {**base, "steps": [{"fail": {"kind": "fetchPet", "message": "offline"}}]})
    assert failed.failures == ['step 1 (fail fetchPet): fail: no open "fetchPet" request to answer (open: none)']


def test_a_respond_step_that_is_refused_leaves_the_request_open(lib: fusionkit.Library) -> None:
    result = run_document(lib, {"feature": "profile", "options": {"requests": "host"}, "steps": [
        {"send": "loadAllProfiles"},
        {"respond": {"kind": "fetchPet", "result": {"name": 5}}},
    ]})
    assert result.step == "step 2 (respond fetchPet)"
    assert result.differences[0].startswith('error: expected null, got "FK_ERR_INVALID_RESPONSE"')


def test_exhaustive_names_a_change_by_its_path_a_path_above_or_below(lib: fusionkit.Library) -> None:
    base: dict[str, Any] = {"feature": "wifi", "options": {"settings": {"liveScan": False}}, "exhaustive": True}
    tap = {"send": {"networkTapped": {"id": "blob"}}}
    below = run_document(lib, {**base, "steps": [{**tap, "expect": {"destination": {"connect": {"isConnecting": False}}}}]})
    assert below.passed, below.report()
    exact = run_document(lib, {**base, "steps": [{**tap, "expect": {"destination": {"connect": {
        "network": {"id": "blob", "name": "Blob's WiFi", "isSecured": True, "connectivity": 0.9, "signalBars": 3, "signalPercent": 90, "securityLabel": "Secured"}, "password": "",
        "isConnecting": False, "incorrectPasswordAlertIsPresented": False, "incorrectPasswordAlert": {
            "title": "Incorrect Password", "message": "The password for “Blob's WiFi” is not correct.", "actionLabel": "OK",
            "cancelLabel": None}, "isJoinEnabled": True, "isPasswordEditable": True}}}}]})
    assert exact.passed, exact.report()
    unnamed = run_document(lib, {**base, "steps": [tap]})
    assert unnamed.differences == [
        'destination changed (null → {"connect":{"network":{"id":"blob","name":"Blob\'s WiFi","isSecured":true,'
        '"connectivity":0.9,"signalBars":3,"signalPercent":90,"securityLabel":"Secured"},"password":"",'
        '"isConnecting":false,'
        '"incorrectPasswordAlertIsPresented":false,"incorrectPasswordAlert":{"title":"Incorrect Password",'
        '"message":"The password for “Blob\'s WiFi” is not correct.","actionLabel":"OK","cancelLabel":null},'
        '"isJoinEnabled":true,"isPasswordEditable":true}}) '
        "but the step does not name it"]
    # Within an object that stays, only the leaves that changed count.
    leaves = run_document(lib, {**base, "steps": [tap, {"send": "joinButtonTapped"}, {"advance": 1}]})
    assert leaves.step == 'step 1 (send {"networkTapped":{"id":"blob"}})'
    joined = run_document(lib, {**base, "nothingPending": False, "steps": [
        {**tap, "expect": {"destination": {}}},
        {"send": "joinButtonTapped"}]})
    assert joined.failures == [
        f'step 2 (send "joinButtonTapped"): destination.connect.{field} changed ({before} → {after}) '
        "but the step does not name it"
        for field, before, after in (("isConnecting", "false", "true"), ("isJoinEnabled", "true", "false"),
                                     ("isPasswordEditable", "true", "false"))]
    whole = run_document(lib, {**base, "steps": [{**tap, "expect": {"destination": None}, "error": "FK_ERR_INVALID_INPUT"}]})
    assert whole.differences[0] == 'error: expected "FK_ERR_INVALID_INPUT", got null'


def test_exhaustive_counts_fields_that_appear_or_go_away(lib: fusionkit.Library) -> None:
    result = run_document(lib, {"feature": "wifi", "options": {"settings": {"liveScan": False}}, "exhaustive": True,
                                "steps": [
                                    {"send": {"networkTapped": {"id": "blob"}}, "expect": {"destination": {}}},
                                    {"send": {"infoButtonTapped": {"id": "blob"}}},
                                ]})
    assert result.step == 'step 2 (send {"infoButtonTapped":{"id":"blob"}})'
    assert result.differences[0].startswith("destination.connect changed ({")
    assert result.differences[0].endswith("→ absent) but the step does not name it")
    assert result.differences[1].startswith("destination.detail changed (absent → {")


def test_a_state_check_names_every_change(lib: fusionkit.Library) -> None:
    result = run_document(lib, {"feature": "counter", "exhaustive": True, "steps": [
        {"send": "increase", "state": {"value": 1, "isReset": False, "alert": None}}]})
    assert result.passed, result.report()


def test_the_clock_is_manual_unless_the_file_says_otherwise(lib: fusionkit.Library) -> None:
    steps = [{"send": {"answerChanged": {"text": "hi"}}}, {"send": "submitTapped"},
             {"expect": {"isSubmitting": True}}]
    assert run_document(lib, {"feature": "answer", "nothingPending": False, "steps": steps}).passed
    system = scenario.parse({"feature": "answer", "options": {"clock": "system"}, "steps": [{"advance": 1}]})
    assert system.creation_options == {"clock": "system"}
    refused = scenario.run(system, lib)
    assert refused.step == "step 1 (advance 1)"
    assert refused.differences[0].startswith("error: expected null, got \"FK_ERR_")


def test_nothing_pending_is_checked_at_the_end_unless_turned_off(lib: fusionkit.Library) -> None:
    load = [{"send": "loadAllProfiles"}]
    waiting = run_document(lib, {"feature": "profile", "options": {"requests": "host"}, "steps": load})
    assert waiting.step == "at the end"
    assert waiting.differences == ["pending.effects: expected 0, got 4", "pending.requests: expected 0, got 4"]
    allowed = run_document(lib, {"feature": "profile", "options": {"requests": "host"}, "nothingPending": False,
                                 "steps": load})
    assert allowed.passed, allowed.report()


def test_a_qualified_feature_must_name_the_library(lib: fusionkit.Library) -> None:
    own = run_document(lib, {"feature": "FusionExamples/counter", "steps": [{"send": "increase",
                                                                           "expect": {"value": 1}}]})
    assert own.passed, own.report()
    other = run_document(lib, {"feature": "Chores/counter", "steps": [{"send": "increase"}]})
    assert other.failures == ['create: feature: "Chores/counter" is in the library "Chores", '
                              'but the library is "FusionExamples"']
    unknown = run_document(lib, {"feature": "toaster", "steps": [{"send": "toast"}]})
    assert unknown.step == "create"
    assert unknown.differences[0].startswith("refused: FK_ERR_UNKNOWN_FEATURE: ")


def test_the_library_may_be_a_path(library_path: Path) -> None:
    result = scenario.run(EXAMPLES / "counter-count.scenario.json", library_path)
    assert result.passed, result.report()
    assert result.name == "Counter: increase, decrease and reset the value"
    assert result.path == EXAMPLES / "counter-count.scenario.json"


# -- results do not depend on order ------------------------------------------------


def outcome(result: ScenarioResult) -> tuple[bool, str | None, tuple[str, ...]]:
    return result.passed, result.step, tuple(result.failures)


def test_results_do_not_depend_on_the_order(lib: fusionkit.Library) -> None:
    files = scenario.collect(EXAMPLES, FAILING)
    first = {file: outcome(scenario.run(file, lib)) for file in files}
    for order in (list(reversed(files)), random.Random(12).sample(files, len(files))):
        assert {file: outcome(scenario.run(file, lib)) for file in order} == first
    # The same file twice in a row, and a Scenario object run twice.
    loaded = scenario.load(EXAMPLES / "wifi-live-scan.scenario.json")
    assert outcome(scenario.run(loaded, lib)) == outcome(scenario.run(loaded, lib)) == (True, None, ())


# -- loading -----------------------------------------------------------------------

GOOD: dict[str, Any] = {"feature": "counter", "steps": [{"send": "increase"}]}

MALFORMED: list[tuple[str, Any, str]] = [
    ("not-json", "{\"feature\": \"counter\",", "bad.scenario.json: not JSON: "),
    ("nan", '{"feature": "counter", "steps": [{"advance": NaN}]}', "bad.scenario.json: NaN is not a JSON value"),
    ("duplicate", '{"feature": "counter", "feature": "home", "steps": []}',
     'bad.scenario.json: the key "feature" appears twice in one object'),
    ("list", [GOOD], "bad.scenario.json: a scenario is a JSON object, not a list"),
    ("no-feature", {"steps": [{}]}, 'bad.scenario.json: "feature" is required'),
    ("feature-type", {"feature": 3, "steps": [{}]}, "bad.scenario.json: \"feature\" must be a feature's name, not a number (3)"),
    ("feature-empty", {"feature": "", "steps": [{}]}, 'bad.scenario.json: "feature" must be a feature\'s name, not a string ("")'),
    ("top-key", {**GOOD, "exhaustve": True}, 'bad.scenario.json: unknown key "exhaustve" (a scenario has: '),
    ("exhaustive-type", {**GOOD, "exhaustive": "yes"},
     'bad.scenario.json: "exhaustive" must be true or false, not a string ("yes")'),
    ("no-steps", {"feature": "counter"}, 'bad.scenario.json: "steps" is required'),
    ("steps-type", {"feature": "counter", "steps": {}}, 'bad.scenario.json: "steps" must be a list of steps, not an object'),
    ("option-key", {**GOOD, "options": {"colck": "manual"}}, 'bad.scenario.json: options: unknown key "colck"'),
    ("clock", {**GOOD, "options": {"clock": "lunar"}},
     'bad.scenario.json: options: "clock" must be "manual" or "system", not "lunar"'),
    ("seed", {**GOOD, "options": {"seed": -1}}, 'bad.scenario.json: options: "seed" must be a whole number'),
    ("requests-option", {**GOOD, "options": {"requests": "remote"}},
     'bad.scenario.json: options: "requests" must be "builtin" or "host", not "remote"'),
    ("step-type", {"feature": "counter", "steps": [{"send": "increase"}, "reset"]},
     'bad.scenario.json: step 2: a step is an object, not a string ("reset")'),
    ("step-key", {"feature": "counter", "steps": [{"send": "increase"}, {"expct": {"value": 1}}]},
     'bad.scenario.json: step 2: unknown key "expct"'),
    ("two-actions", {"feature": "counter", "steps": [{"send": "increase", "advance": 1}]},
     'bad.scenario.json: step 1: "send" and "advance" in one step: a step does at most one thing'),
    ("advance-negative", {"feature": "counter", "steps": [{}, {}, {"advance": -1}]},
     'bad.scenario.json: step 3: "advance" must be a number of seconds (0 or more), not -1'),
    ("advance-string", {"feature": "counter", "steps": [{"advance": "1"}]},
     'bad.scenario.json: step 1: "advance" must be a number of seconds (0 or more), not "1"'),
    ("expect-type", {"feature": "counter", "steps": [{"expect": [1]}]},
     'bad.scenario.json: step 1: "expect" must be an object'),
    ("state-type", {"feature": "counter", "steps": [{"state": None}]}, 'bad.scenario.json: step 1: "state" must be'),
    ("error-digits", {"feature": "counter", "steps": [{"send": "jump", "error": "FK_ERR_2"}]},
     'bad.scenario.json: step 1: "error" must be a status name'),
    ("error-name", {"feature": "counter", "steps": [{"send": "jump", "error": "unknown input"}]},
     'bad.scenario.json: step 1: "error" must be a status name such as "FK_ERR_UNKNOWN_INPUT", not "unknown input"'),
    ("requests-type", {"feature": "counter", "steps": [{"requests": "fetchPet"}]},
     'bad.scenario.json: step 1: "requests" must be a list of request kinds'),
    ("respond-kind", {"feature": "profile", "steps": [{"respond": {"result": {}}}]},
     'bad.scenario.json: step 1: respond: "kind" is required'),
    ("respond-result", {"feature": "profile", "steps": [{"respond": {"kind": "fetchPet"}}]},
     'bad.scenario.json: step 1: respond: "result" is required'),
    ("respond-key", {"feature": "profile", "steps": [{"respond": {"kind": "fetchPet", "result": {}, "id": 1}}]},
     'bad.scenario.json: step 1: respond: unknown key "id"'),
    ("fail-message", {"feature": "profile", "steps": [{"fail": {"kind": "fetchPet", "message": 404}}]},
     'bad.scenario.json: step 1: fail: "message" must be a string, not a number (404)'),
    ("note-type", {**GOOD, "note": ["a"]}, 'bad.scenario.json: "note" must be a string, not a list'),
    ("float-out-of-range", '{"feature": "counter", "steps": [{"expect": {"value": -1e400}}]}',
     "bad.scenario.json: not JSON: number -1e400 is out of range"),
    ("integer-out-of-range", '{"feature": "counter", "steps": [{"expect": {"value": 1' + "0" * 309 + '}}]}',
     "bad.scenario.json: not JSON: number 1" + "0" * 39 + "… is out of range"),
    ("integer-of-5000-digits", '{"feature": "counter", "steps": [{"advance": ' + "1" * 5000 + '}]}',
     "bad.scenario.json: not JSON: number " + "1" * 40 + "… is out of range"),
    ("lone-surrogate-key", '{"feature": "counter", "steps": [{"expect": {"\\udc00": 1}}]}',
     "bad.scenario.json: not JSON: unpaired UTF-16 surrogate in a string"),
    ("nesting-513", '{"feature": "counter", "steps": [{"expect": {"value": ' + "[" * 509 + "]" * 509 + "}}]}",
     "bad.scenario.json: not JSON: nesting deeper than 512 levels: line 1 column 563 (char 562)"),
    ("nesting-100000", '{"feature": "counter", "steps": [{"expect": {"value": ' + "[" * 100_000 + "]" * 100_000 + "}}]}",
     "bad.scenario.json: not JSON: nesting deeper than 512 levels: line 1 column 563 (char 562)"),
    ("nesting-in-a-string-does-not-count", '{"feature": "counter", "steps": [{"expect": {"value": "' + "[" * 600 + '"}}], "x": 1}',
     'bad.scenario.json: unknown key "x"'),
]


@pytest.mark.parametrize(("content", "message"), [pytest.param(c, m, id=i) for i, c, m in MALFORMED])
def test_malformed_files_are_refused_with_a_clear_error(tmp_path: Path, content: Any, message: str) -> None:
    path = tmp_path / "bad.scenario.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    with pytest.raises(ScenarioError) as caught:
        scenario.load(path)
    assert str(caught.value).startswith(message), str(caught.value)


def test_running_a_malformed_file_fails_it(tmp_path: Path, lib: fusionkit.Library) -> None:
    path = tmp_path / "bad.scenario.json"
    path.write_text(json.dumps({"feature": "counter", "steps": [{"advance": -1}]}), "utf-8")
    result = scenario.run(path, lib)
    assert not result.passed and result.step == "load"
    assert result.failures == ['load: bad.scenario.json: step 1: "advance" must be a number of seconds (0 or more), not -1']
    with pytest.raises(FileNotFoundError):
        scenario.run(tmp_path / "missing.scenario.json", lib)


def test_a_file_nested_as_deep_as_the_library_reads_runs(tmp_path: Path, lib: fusionkit.Library) -> None:
    # 512 levels: the object, steps, the step, expect, then 508 arrays. It runs (and fails
    # its check), as fusion test runs it; one level more is malformed (above).
    path = tmp_path / "deep.scenario.json"
    path.write_text('{"feature": "counter", "exhaustive": true, "steps": [{"expect": {"value": '
                    + "[" * 508 + "]" * 508 + "}}]}", "utf-8")
    result = scenario.run(path, lib)
    assert result.step == "step 1 (check)" and result.differences[0].startswith("value: expected [[[[")


def test_nesting_100000_deep_is_a_failure_not_a_crash(tmp_path: Path, library_path: Path) -> None:
    deep = tmp_path / "deep.scenario.json"
    deep.write_text('{"feature": "counter", "steps": [{"expect": {"value": ' + "[" * 100_000 + "]" * 100_000 + "}}]}", "utf-8")
    result = scenario.run(deep, library_path)
    assert result.failures == ["load: deep.scenario.json: not JSON: nesting deeper than 512 levels: line 1 column 563 (char 562)"]
    # From the command line: a FAIL line, and the run goes on with the next file.
    shell = subprocess.run([sys.executable, "-m", "fusionkit.scenario", str(library_path), str(deep),
                            str(EXAMPLES / "counter-count.scenario.json")],
                           capture_output=True, text=True, cwd=ROOT / "bindings" / "python", timeout=120)
    assert shell.returncode == 1 and shell.stderr == "", shell.stderr
    assert shell.stdout.splitlines() == [
        "FAIL deep.scenario.json", "  load:",
        "    deep.scenario.json: not JSON: nesting deeper than 512 levels: line 1 column 563 (char 562)",
        "PASS counter-count.scenario.json: Counter: increase, decrease and reset the value", "1 passed, 1 failed"]


def test_parse_refuses_what_no_json_text_holds() -> None:
    nested: Any = []
    for _ in range(100_000):
        nested = [nested]
    for value, message in ((nested, "not JSON: nesting deeper than 512 levels"),
                           ("a\ud800", "not JSON: unpaired UTF-16 surrogate in a string"),
                           (float("inf"), "not JSON: the number inf is not a JSON value"),
                           (float("nan"), "not JSON: the number nan is not a JSON value"),
                           (10 ** 400, "not JSON: a number is out of range")):
        with pytest.raises(ScenarioError) as caught:
            scenario.parse({"feature": "counter", "steps": [{"expect": {"value": value}}]})
        assert str(caught.value).startswith(f"scenario: {message}"), str(caught.value)
    deepest: Any = []  # 508 lists: with the object, steps, the step and expect, 512 levels
    for _ in range(507):
        deepest = [deepest]
    assert scenario.parse({"feature": "counter", "steps": [{"expect": {"value": deepest}}]}).steps[0].expect == {"value": deepest}


def test_advance_steps_name_the_seconds_as_fusion_test_does() -> None:
    for seconds, label in ((1, "1"), (2.0, "2"), (0.5, "0.5"), (999_999_999_999_999, "999999999999999"),
                           (10 ** 15, "1000000000000000.0"), (2e15, "2000000000000000.0"), (1e16, "1e+16"),
                           (1e-5, "1e-05"), (1e300, "1e+300"), (18446744074, "18446744074")):
        step = scenario.parse({**GOOD, "steps": [{"advance": seconds}]}).steps[0]
        assert step.label == f"step 1 (advance {label})"


def test_load_reads_every_key() -> None:
    loaded = scenario.load(EXAMPLES / "profile-load-in-any-order.scenario.json")
    assert isinstance(loaded, Scenario)
    assert loaded.feature == "profile" and loaded.library_name is None and loaded.feature_name == "profile"
    assert loaded.options == {"requests": "host"}
    assert loaded.creation_options == {"clock": "manual", "requests": "host"}
    assert loaded.exhaustive and loaded.nothing_pending
    step = loaded.steps[3]
    assert step.number == 4 and step.action == "respond" and step.label == "step 4 (respond fetchBabyProfile)"
    assert step.requests == ("fetchPet", "fetchFamily", "fetchPreschool")
    unnamed = scenario.parse({"feature": "Chores/counter", "note": "why", "steps": [{"advance": 0.5}]},
                             path="x/counter.scenario.json")
    assert unnamed.name == "counter.scenario.json" and unnamed.note == "why"
    assert unnamed.library_name == "Chores" and unnamed.feature_name == "counter"
    assert unnamed.steps[0].label == "step 1 (advance 0.5)"
    assert scenario.parse({**GOOD, "steps": [{}]}).steps[0].label == "step 1 (check)"
    assert scenario.parse({**GOOD, "steps": [{"advance": 2.0}]}).steps[0].label == "step 1 (advance 2)"
    assert scenario.parse({**GOOD, "steps": []}).steps == ()
    assert scenario.parse({**GOOD, "steps": [{"fail": {"kind": "k", "message": "m"}}]}).steps[0].label == "step 1 (fail k)"


# -- finding files -----------------------------------------------------------------


def test_collect_searches_folders_and_keeps_files(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "deep").mkdir()
    for name in ("b/z.scenario.json", "b/deep/a.scenario.json", "c.scenario.json", "notes.json"):
        (tmp_path / name).write_text("{}")
    assert scenario.collect(tmp_path) == [tmp_path / "b/deep/a.scenario.json", tmp_path / "b/z.scenario.json",
                                          tmp_path / "c.scenario.json"]
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "h.scenario.json").write_text("{}")
    (tmp_path / "b-c").mkdir()
    (tmp_path / "b-c" / "y.scenario.json").write_text("{}")
    # Sorted as text, as fusion test sorts them: "b-c/" before "b/"; hidden folders skipped.
    assert scenario.collect(tmp_path) == [tmp_path / "b-c/y.scenario.json", tmp_path / "b/deep/a.scenario.json",
                                          tmp_path / "b/z.scenario.json", tmp_path / "c.scenario.json"]
    explicit = tmp_path / "notes.json"
    assert scenario.collect(explicit, tmp_path / "b", tmp_path / "b/z.scenario.json") == [
        explicit, tmp_path / "b/deep/a.scenario.json", tmp_path / "b/z.scenario.json", tmp_path / "b/z.scenario.json"]
    with pytest.raises(FileNotFoundError):
        scenario.collect(tmp_path / "nowhere")


def test_params_are_named_after_the_files() -> None:
    ids = [param.id for param in scenario.params(EXAMPLES)]
    assert "counter-count" in ids and "wifi-wrong-password" in ids
    assert ids == [scenario.scenario_id(path) for path in sorted(EXAMPLES.glob("*.scenario.json"))]
    assert scenario.scenario_id("x/plain.json") == "plain"


# -- the command line --------------------------------------------------------------


def test_the_command_line_runs_folders(library_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "fusionkit.scenario", str(library_path), str(EXAMPLES), str(FAILING)],
                            capture_output=True, text=True, cwd=ROOT / "bindings" / "python", timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    examples, failing = len(scenario.collect(EXAMPLES)), len(scenario.collect(FAILING))
    assert lines[-1] == f"{examples} passed, {failing} failed"
    assert sum(line.startswith("PASS ") for line in lines) == examples
    assert sum(line.startswith("FAIL ") for line in lines) == failing
    assert "    isLoading changed (false → true) but the step does not name it" in lines
    only_good = subprocess.run([sys.executable, "-m", "fusionkit.scenario", str(library_path), str(EXAMPLES)],
                               capture_output=True, text=True, cwd=ROOT / "bindings" / "python", timeout=300)
    assert only_good.returncode == 0, only_good.stdout + only_good.stderr
