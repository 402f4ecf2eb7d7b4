"""The rules the Python package shares with Swift (and the web client), held to the
shared vectors in Tests/vectors (docs/rules): every case of every file, so a case added
there is checked here with no change to this file."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import fusionkit
import pytest
from fusionkit import FusionError, JournalError, PatchError, apply_patch
from fusionkit._input import input_json
from fusionkit._journal_format import encode_line, line_and_crc, parse_journal, read_journal
from fusionkit._replayable import replayable_options
from fusionkit.journal import JournaledInstance
from fusionkit.scenario._comparison import changes, exact_differences, expect_differences, format_path, json_equal

VECTORS = Path(__file__).parents[1] / "vectors"


def cases(rule: str, kind: str) -> list[Any]:
    found = []
    for path in sorted((VECTORS / rule).glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if document["kind"] == kind:
            found += [pytest.param(case, id=f"{path.name}: {case['name']}") for case in document["cases"]]
    assert found, f"no {kind} vectors in {VECTORS / rule}"
    return found


@pytest.mark.parametrize("case", cases("journal-format", "read"))
def test_journal_read(case: dict[str, Any]) -> None:
    data = case["text"].encode("utf-8")
    if "error" in case:
        with pytest.raises(JournalError) as refused:
            parse_journal(data, "vector.journal")
        assert case["error"] in str(refused.value)
        assert isinstance(refused.value, FusionError)
        return
    parsed = parse_journal(data, "vector.journal")
    if case.get("none"):
        assert parsed is None
        return
    assert parsed is not None
    assert parsed.header == case["header"]
    assert parsed.records == case["records"]
    assert parsed.good_length == case["goodLength"]
    assert (parsed.dropped is not None) == case["dropped"]


@pytest.mark.parametrize("case", cases("journal-format", "write"))
def test_journal_write(case: dict[str, Any]) -> None:
    if "header" in case:  # format 2: the record's checksum goes on from the header's
        header_line, chain = line_and_crc(case["header"])
        line = encode_line(case["record"], after=chain)
        assert line == case["line"].encode("utf-8")
        parsed = parse_journal(header_line + line, "vector.journal")
        assert parsed is not None and parsed.records == [case["record"]]
        return
    line = encode_line(case["record"])
    assert line == case["line"].encode("utf-8")
    # What is written reads back as the record.
    is_header = "fusionJournal" in case["record"]
    parsed = parse_journal(line if is_header else encode_line({"fusionJournal": 1}) + line, "vector.journal")
    assert parsed is not None
    assert (parsed.header if is_header else parsed.records[0]) == case["record"]


@pytest.mark.parametrize("case", cases("replayable-options", "make"))
def test_replayable_options(case: dict[str, Any]) -> None:
    options, real_time = replayable_options(case["given"])
    assert real_time == case["realTime"]
    if case["seedDrawn"]:
        seed = options.pop("seed")
        assert type(seed) is int and 0 <= seed < 1 << 53
    assert options == case["options"]


@pytest.mark.parametrize("case", cases("scenario-comparison", "equal"))
def test_scenario_equality(case: dict[str, Any]) -> None:
    assert json_equal(case["a"], case["b"]) is case["equal"]
    assert json_equal(case["b"], case["a"]) is case["equal"]


def _place(line: str) -> str:
    """The place a difference line names: before its first ": "; "(the state)" is ""."""
    place = line.split(": ", 1)[0]
    return "" if place == format_path(()) else place


@pytest.mark.parametrize("case", cases("scenario-comparison", "differences"))
def test_scenario_differences(case: dict[str, Any]) -> None:
    compare = exact_differences if case["mode"] == "state" else expect_differences
    lines = compare(case["expected"], case["actual"])
    assert [_place(line) for line in lines] == case["paths"], lines


@pytest.mark.parametrize("case", cases("scenario-comparison", "changes"))
def test_scenario_changes(case: dict[str, Any]) -> None:
    found = changes(case["before"], case["after"])
    assert sorted(format_path(path) for path, _, _ in found) == sorted(case["paths"])


@pytest.mark.parametrize("case", cases("input-shorthand", "structured"))
def test_input_shorthand(case: dict[str, Any]) -> None:
    fields = case.get("fields", {})
    if case.get("error"):
        with pytest.raises((TypeError, FusionError)):
            input_json(case["input"], fields)
        return
    assert json.loads(input_json(case["input"], fields)) == case["json"]


@pytest.mark.parametrize("case", cases("json-patch", "apply"))
def test_json_patch(case: dict[str, Any]) -> None:
    before = json.dumps(case["doc"])
    if "error" in case:
        with pytest.raises(PatchError):
            apply_patch(case["doc"], case["patch"])
    else:
        after = apply_patch(case["doc"], case["patch"])
        assert after == case["expected"]
        assert json.dumps(after, sort_keys=True) == json.dumps(case["expected"], sort_keys=True)  # true is not 1
    assert json.dumps(case["doc"]) == before, "the document given is not changed"


def _matches(expected: Any, record: Any) -> bool:
    """A record as the vector gives it; {"checkpoint": null} stands for any checkpoint."""
    if expected == {"checkpoint": None}:
        return isinstance(record, dict) and list(record) == ["checkpoint"]
    return bool(json_equal(expected, record))


@pytest.mark.parametrize("case", cases("journal-records", "session"))
def test_journal_records(case: dict[str, Any], lib: fusionkit.Library, tmp_path: Path) -> None:
    path = tmp_path / "vector.journal"
    if "journal" in case:
        # A journal of this library holding the vector's records, which the session resumes.
        lib.create(case["feature"], journal=path, clock="manual").close()
        written = read_journal(str(path))
        assert written is not None
        chain = written.chain  # each checksum goes on from the line before's (format 2)
        with path.open("ab") as file:
            for record in case["journal"]:
                line, chain = line_and_crc(record, chain)
                file.write(line)
    with lib.create(case["feature"], journal=path, clock="manual") as instance:
        assert isinstance(instance, JournaledInstance)
        for event in case["events"]:
            (kind, value), *times = event.items()
            for _ in range(times[0][1] if times else 1):
                if kind == "send":
                    instance.send_json(json.dumps(value))
                elif kind == "advance":
                    instance.advance_clock(nanoseconds=value)
                elif kind == "tick":  # what the real-time clock's ticker does each tick
                    with instance._drive_lock:
                        assert instance._tick(value)
                else:
                    raise AssertionError(f"an event of no kind this test knows: {event}")
    parsed = parse_journal(path.read_bytes(), str(path))
    assert parsed is not None
    records = parsed.records
    assert len(records) == len(case["records"]), records
    for number, (expected, record) in enumerate(zip(case["records"], records, strict=True)):
        assert _matches(expected, record), f"record {number + 1}: expected {expected}, got {record}"
