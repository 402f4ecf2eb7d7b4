"""Crash-safe sessions from Python (issue 13.6): `create(..., journal=path)`. A real
Python process is killed with SIGKILL in the middle of a session (answering host
requests, with an effect waiting on the clock), and a new process resumes it with the
same state and version; `fusion run --journal` resumes a journal Python wrote; a torn
last record is dropped with a JournalWarning; damage is refused."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import fusionkit
import pytest
from fusionkit import JournalError, JournalWarning
from fusionkit._journal_format import encode_lines, line_and_crc, read_journal
from fusionkit.journal import JournaledInstance, Resumption

ROOT = Path(__file__).resolve().parents[2]


def test_a_journal_resumes_with_the_same_state_version_and_history(lib: fusionkit.Library, tmp_path: Path) -> None:
    path = tmp_path / "counter.journal"
    with lib.create("counter", journal=path, history=50) as counter:
        assert isinstance(counter, JournaledInstance) and counter.resumed is None
        for _ in range(3):
            counter.send("increase")
        counter.send_and_read("decrease")
        counter.back(2)
        state, version = counter.snapshot()
    assert (state["value"], version) == (2, 5)  # back to v2
    with lib.create("counter", journal=path) as again:
        assert isinstance(again, JournaledInstance) and again.resumed == Resumption(records=5)
        assert again.snapshot() == (state, version)
        assert [entry.cause for entry in again.history().entries][-1] == "goto"
        again.send("increase")
        assert again.version == 6


def test_host_answers_and_the_clock_are_journaled(lib: fusionkit.Library, tmp_path: Path) -> None:
    path = tmp_path / "profile.journal"
    with lib.create("profile", journal=path, requests="host", clock="manual") as profile:
        profile.send("loadAllProfiles")
        asked = []
        while (event := profile.poll_request()) is not None:
            asked.append(event)
        assert asked, "the profile asks its host for its data"
        profile.fail_request(asked[0].id, "offline")  # the profile gives up on the others
        profile.advance_clock(0.5)
        state, version = profile.snapshot()
    kinds = [next(iter(json.loads(line.rsplit(b" ", 1)[0]))) for line in path.read_bytes().splitlines()[1:]]
    assert kinds == ["send", "fail", "advance"]
    with lib.create("profile", journal=path, requests="host") as again:
        assert again.snapshot() == (state, version)


def test_a_process_killed_mid_session_is_resumed_by_another(library_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "wifi.journal"
    script = textwrap.dedent(f"""
        import os, signal, sys, time
        sys.path.insert(0, {str(ROOT / "bindings" / "python")!r})
        import fusionkit
        lib = fusionkit.load({str(library_path)!r})
        wifi = lib.create("wifi", journal={str(path)!r}, settings={{"liveScan": False}})
        wifi.send("networkTapped", id="blob")
        wifi.send("passwordChanged", password="blob")
        wifi.send("joinButtonTapped")
        print(wifi.version, flush=True)
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    killed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    records = [json.loads(line.rsplit(b" ", 1)[0]) for line in path.read_bytes().splitlines()[1:]]
    # Killed within the join's second: its clock was held back (a move that wakes nothing
    # is not journaled), and the resumed clock counts the second from the last record.
    assert [next(iter(record)) for record in records] == ["send", "send", "send"]
    lib = fusionkit.load(library_path)
    with lib.create("wifi", journal=path) as wifi:
        assert wifi.state["destination"]["connect"]["isConnecting"] is True
        assert isinstance(wifi, JournaledInstance) and wifi.resumed is not None
        assert wifi.resumed.records == len(records)
        # The join's second passes on the resumed clock.
        deadline = time.monotonic() + 10
        while wifi.state["selectedNetworkID"] != "blob":
            assert time.monotonic() < deadline, wifi.state
            time.sleep(0.05)
        assert wifi.state["destination"] is None


def append_records(path: Path, *records: dict[str, object]) -> None:
    """Appends records as another writer (a bridge) would: each line's checksum going on
    from the one before it (journal format 2)."""
    existing = read_journal(str(path))
    assert existing is not None and existing.chain is not None
    chain: int | None = existing.chain
    with path.open("ab") as file:
        for record in records:
            line, chain = line_and_crc(record, chain)
            file.write(line)


def test_fusion_resumes_a_journal_python_wrote(lib: fusionkit.Library, tmp_path: Path, fusion: Path) -> None:
    path = tmp_path / "counter.journal"
    with lib.create("counter", journal=path) as counter:
        counter.send("increase")
        counter.send("increase")
    resumed = subprocess.run([str(fusion), "run", "--journal", str(path), "counter"], input="increase\n",
                             capture_output=True, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    assert "2 records replayed" in resumed.stdout and 'v3 {"value":3,' in resumed.stdout
    with lib.create("counter", journal=path) as again:
        assert again.snapshot()[1] == 3


def test_a_torn_tail_warns_and_damage_refuses(lib: fusionkit.Library, tmp_path: Path) -> None:
    path = tmp_path / "counter.journal"
    with lib.create("counter", journal=path) as counter:
        counter.send("increase")
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"send":"inc')
    with pytest.warns(JournalWarning, match=r"\(line 3\) was torn"):
        with lib.create("counter", journal=path) as again:
            assert isinstance(again, JournaledInstance) and again.resumed is not None
            assert again.resumed.warning is not None
            assert again.state["value"] == 1
    assert path.read_bytes() == whole
    line = b'{"send":"decrease"}'
    path.write_bytes(whole.replace(b'"increase"', b'"decrease"') + line + b" %08x\n" % zlib.crc32(line))
    with pytest.raises(JournalError, match="line 2 is damaged"):
        lib.create("counter", journal=path)
    with pytest.raises(JournalError, match='feature "counter", not "answer"'):
        path.write_bytes(whole)
        lib.create("answer", journal=path)
    with pytest.raises(JournalError, match="record= starts a new session, and this journal holds one already"):
        lib.create("counter", journal=path, record=tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()
    # A journal replays only on the state version that wrote it.
    lines = [json.loads(line.rsplit(b" ", 1)[0]) for line in whole.splitlines()]
    path.write_bytes(encode_lines([{**lines[0], "stateVersion": 2}, *lines[1:]])[0])  # its checksums made again
    with pytest.raises(JournalError, match="written with state version 2 .* this library's is 1"):
        lib.create("counter", journal=path)


@pytest.mark.parametrize(("record", "python_says", "fusion_says"), [
    ({"bogus": 1}, 'a record of a kind this package does not know, "bogus"', 'is of a kind this build does not know, "bogus"'),
    ({"checkpoint": {"state": {"value": 9, "isReset": False, "alert": None}, "stateVersion": 1, "version": 0, "clock": 0,
                     "seed": "1", "random": "1"}},
     "a checkpoint only ever starts a journal", "is a checkpoint, which only ever starts a journal"),
    ({"respond": {}}, "is not a whole respond record", "is a respond without an id or a result"),
    ({"advance": "abc"}, "is not a whole advance record", "has an advance that is not whole nanoseconds"),
    # Python passed the library's refusal of a negative move over, as a refusal on replay.
    ({"advance": -1}, "is not a whole advance record", "has an advance that is not whole nanoseconds"),
    ({"goto": 1.5}, "is not a whole goto record", "has a goto to no version"),
])
def test_a_record_that_is_not_one_is_refused_by_both_readers(lib: fusionkit.Library, tmp_path: Path, fusion: Path,
                                                            record: dict[str, object], python_says: str,
                                                            fusion_says: str) -> None:
    """A record of no known kind, a checkpoint after the start, a record without the fields
    of its kind, each with a good checksum: refused, as `fusion` refuses it. (Outside probe:
    Python's replay caught its own JournalError as a refusal to pass over, and resumed the
    session without the record and without a word; the last two raised KeyError and
    TypeError.)"""
    path = tmp_path / "counter.journal"
    with lib.create("counter", journal=path, clock="manual") as counter:
        counter.send("increase")
    append_records(path, record, {"send": "increase"})
    with pytest.raises(JournalError, match=python_says):
        lib.create("counter", journal=path, clock="manual")
    shell = subprocess.run([str(fusion), "run", "--clock", "manual", "--journal", str(path), "counter"], input="",
                           capture_output=True, text=True, timeout=60)
    assert shell.returncode == 6 and fusion_says in shell.stderr, shell.stderr


def test_numbers_in_any_form_json_writes_them_are_read_alike_by_both_readers(lib: fusionkit.Library, tmp_path: Path,
                                                                            fusion: Path) -> None:
    """docs/rules/journal-format.md: a number may be written in any form that reads back
    as the same value. A header's "fusionJournal": 2.0 made Python call the last record
    torn and cut it off the file, and `fusion` say the header had no "fusionJournal"; a
    goto of 1.0 or an advance of 2e9 were refused by both (outside probe)."""
    path = tmp_path / "counter.journal"
    with lib.create("counter", journal=path, clock="manual", history=4) as counter:
        counter.send("increase")
        counter.send("increase")
    lines = [json.loads(line.rsplit(b" ", 1)[0]) for line in path.read_bytes().splitlines()]
    path.write_bytes(encode_lines([{**lines[0], "fusionJournal": 2.0}, *lines[1:], {"goto": 1.0}, {"advance": 2e9}])[0])
    assert b'"fusionJournal":2.0' in path.read_bytes() and b'"advance":2000000000.0' in path.read_bytes()
    whole = path.read_bytes()
    with lib.create("counter", journal=path) as resumed:
        assert resumed.snapshot() == ({"value": 1, "isReset": False, "alert": None}, 3)
    path.write_bytes(whole)
    shell = subprocess.run([str(fusion), "run", "--journal", str(path), "counter"], input=":state\n",
                           capture_output=True, text=True, timeout=60)
    assert shell.returncode == 0 and "4 records replayed" in shell.stdout and "v3 {\"value\":1," in shell.stdout, shell
    path.write_bytes(encode_lines([{**lines[0], "fusionJournal": True}, *lines[1:]])[0])
    with pytest.raises(JournalError, match='its "fusionJournal" is true, not a format number'):
        lib.create("counter", journal=path)


def test_a_record_removed_or_moved_is_damage_not_another_session(lib: fusionkit.Library, tmp_path: Path,
                                                                  fusion: Path) -> None:
    """Each record's checksum goes on from the line before's (format 2): a journal with a
    line removed, repeated or moved was read as another session (outside probe: a `reset`
    deleted from the middle resumed at another value, without a word). Both readers refuse
    it; cut at a line's end it is the session up to there (nothing tells a lost last line)."""
    path = tmp_path / "counter.journal"
    with lib.create("counter", journal=path) as counter:
        for input in ("increase", "increase", "reset", "increase"):
            counter.send(input)
    lines = path.read_bytes().splitlines(keepends=True)
    assert json.loads(lines[0].rsplit(b" ", 1)[0])["fusionJournal"] == 2
    for name, damaged, line in [("removed", lines[:2] + lines[3:], 3), ("repeated", lines[:3] + lines[2:], 4),
                                ("moved", [lines[0], lines[2], lines[1], *lines[3:]], 2),
                                ("the one before the last removed", lines[:3] + lines[4:], 4)]:
        path.write_bytes(b"".join(damaged))
        with pytest.raises(JournalError, match=f"line {line} is damaged \\(its checksum does not match: it was changed, "
                                               "or a line before it was removed"):
            lib.create("counter", journal=path)
        shell = subprocess.run([str(fusion), "run", "--journal", str(path), "counter"], input="", capture_output=True,
                               text=True, timeout=60)
        assert shell.returncode == 6 and f"line {line} is damaged" in shell.stderr, (name, shell.stderr)
    path.write_bytes(b"".join(lines[:4]))
    with lib.create("counter", journal=path) as cut:
        assert cut.snapshot() == ({"value": 0, "isReset": True, "alert": None}, 3)


def test_a_journal_of_format_1_is_resumed_and_chained_from_its_first_checkpoint(
        lib: fusionkit.Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A journal written before checksums were chained (each line's its own) still
    resumes, and takes appends in its own format until a checkpoint writes it anew."""
    monkeypatch.setattr(JournaledInstance, "checkpoint_every", 4)
    path = tmp_path / "counter.journal"
    with lib.create("counter", journal=path) as counter:
        counter.send("increase")
    header, record = [json.loads(line.rsplit(b" ", 1)[0]) for line in path.read_bytes().splitlines()]
    old = [{**header, "fusionJournal": 1}, record]
    path.write_bytes(b"".join(b"%s %08x\n" % (text, zlib.crc32(text)) for text in
                              (json.dumps(line, separators=(",", ":")).encode() for line in old)))
    with lib.create("counter", journal=path) as resumed:
        resumed.send("increase")
        assert isinstance(resumed, JournaledInstance) and resumed.resumed == Resumption(records=1)
    text, written = path.read_bytes().splitlines()[-1].rsplit(b" ", 1)
    assert written == b"%08x" % zlib.crc32(text)  # format 1: its own
    with lib.create("counter", journal=path) as again:
        for _ in range(3):
            again.send("increase")  # the fourth record since the header: a checkpoint
        assert again.snapshot()[0]["value"] == 5
    rewritten = path.read_bytes()
    assert json.loads(rewritten.splitlines()[0].rsplit(b" ", 1)[0])["fusionJournal"] == 2
    with lib.create("counter", journal=path) as last:
        assert last.snapshot()[0]["value"] == 5


def test_a_session_journaled_and_recorded_keeps_one_clock_for_both(lib: fusionkit.Library, tmp_path: Path,
                                                                    fusion: Path) -> None:
    """journal= with record=: each change journaled, then recorded, on the journal's
    real-time clock; the recording replays, and the journal resumes the same session."""
    journal, record = tmp_path / "answer.journal", tmp_path / "answer.scenario.json"
    with lib.create("answer", journal=journal, record=record) as answer:
        assert isinstance(answer, JournaledInstance)
        answer.send("answerChanged", text="hi")
        answer.send("submitTapped")
        deadline = time.monotonic() + 10
        while answer.state["submitted"] != "hi":  # half a second later, on the real-time clock
            assert time.monotonic() < deadline, answer.state
            time.sleep(0.02)
        answer.send("answerChanged", text="yo")
        final = answer.snapshot()
    lines = journal.read_bytes().splitlines()
    header = json.loads(lines[0].rsplit(b" ", 1)[0])
    records = [json.loads(line.rsplit(b" ", 1)[0]) for line in lines[1:]]
    recording = json.loads(record.read_text())
    assert recording["options"] == header["options"] and header["realTime"] is True
    assert [r for r in records if "send" in r] == [{"send": s["send"]} for s in recording["steps"] if "send" in s]
    journaled = sum(r.get("advance", 0) for r in records)
    recorded = sum(round(s["advance"] * 1e9) for s in recording["steps"] if "advance" in s)
    assert journaled == recorded and journaled >= 500_000_000
    replay = subprocess.run([str(fusion), "replay", str(lib.path), str(record)], capture_output=True, text=True)
    assert replay.returncode == 0 and "every state was as recorded" in replay.stdout, replay.stdout + replay.stderr
    with lib.create("answer", journal=journal) as resumed:
        assert resumed.snapshot() == final


def test_a_journal_replays_only_on_the_library_version_that_wrote_it(build_bare_library: Callable[..., Path],
                                                                       tmp_path: Path) -> None:
    """Two builds of one library (Tests/libraries/bare_library.c at 1.0.0 and 1.1.0): the
    journal names its writer, and another version is refused, naming both."""
    path = tmp_path / "tally.journal"
    first = fusionkit.load(build_bare_library("1.0.0"))
    with first.create("tally", clock="manual", journal=path) as tally:
        tally.send("add")
        tally.send("add")
    header = json.loads(path.read_bytes().split(b"\n", 1)[0].rsplit(b" ", 1)[0])
    assert header["library"] == "Bare 1.0.0" and header["stateVersions"] == {"tally": 1}
    newer = fusionkit.load(build_bare_library("1.1.0"))
    with pytest.raises(JournalError) as refused:
        newer.create("tally", journal=path)
    assert "written by Bare 1.0.0, and this library is Bare 1.1.0" in str(refused.value)
    # The version that wrote it resumes it.
    with first.create("tally", journal=path) as again:
        assert again.snapshot() == ({"count": 2}, 2)


def test_the_real_time_clock_is_journaled_only_when_it_wakes_an_effect(lib: fusionkit.Library, tmp_path: Path) -> None:
    """A session on the system clock with an effect always pending (the Wi-Fi live scan,
    every two seconds): its clock is journaled when a scan is due and before another
    input, not every 10 ms, and the journal still resumes the very state and version."""
    path = tmp_path / "wifi.journal"
    started = time.monotonic()
    with lib.create("wifi", journal=path) as wifi:
        wifi.send("screenAppeared")
        deadline = time.monotonic() + 10
        while wifi.version < 2:  # the first scan, two seconds in
            assert time.monotonic() < deadline, wifi.state
            time.sleep(0.05)
        time.sleep(0.5)
        wifi.send("screenDisappeared")
        final = wifi.snapshot()
    elapsed = time.monotonic() - started
    records = [json.loads(line.rsplit(b" ", 1)[0]) for line in path.read_bytes().splitlines()[1:]]
    kinds = [next(iter(record)) for record in records]
    assert kinds[0] == "send" and kinds[-1] == "send" and set(kinds[1:-1]) == {"advance"}, records
    # A busy machine may let a second scan fall due before the input: one move per scan
    # then, however late, never one per 10 ms tick.
    moves = [record["advance"] for record in records if "advance" in record]
    assert all(move >= 2_000_000_000 for move in moves[:-1]), "each move but the last made a scan due"
    assert moves[0] >= 2_000_000_000, "the first move is the one that made the first scan due"
    assert moves[-1] > 0, "the time held back since, journaled before the next input"
    assert len(moves) <= elapsed / 2 + 1, (moves, elapsed)
    with lib.create("wifi", journal=path) as again:
        assert again.snapshot() == final


def test_a_journal_keeps_a_checkpoint_and_the_records_since(lib: fusionkit.Library, tmp_path: Path, fusion: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `checkpoint_every` records the journal is replaced by its header and a
    checkpoint (fk_checkpoint): it stays as large as the state and a bounded tail, and
    resumes, here and in `fusion`, to the same state and version."""
    monkeypatch.setattr(JournaledInstance, "checkpoint_every", 5)
    path = tmp_path / "counter.journal"
    with lib.create("counter", journal=path) as counter:
        for step in range(12):
            counter.send("show" if step % 4 == 0 else "increase")
        live = counter.snapshot()
    lines = [json.loads(line.rsplit(b" ", 1)[0]) for line in path.read_bytes().splitlines()]
    # Checkpoints at 5 and 9 records (the checkpoint counts as one): it and three since.
    assert [next(iter(line)) for line in lines[1:]] == ["checkpoint", "send", "send", "send"]
    assert lines[1]["checkpoint"]["version"] == live[1] - 3
    assert not (tmp_path / "counter.journal.new").exists()
    with lib.create("counter", journal=path) as again:
        assert isinstance(again, JournaledInstance) and again.resumed == Resumption(records=4)
        assert again.snapshot() == live
    resumed = subprocess.run([str(fusion), "run", "--journal", str(path), "counter"], input="increase\n",
                             capture_output=True, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    assert "4 records replayed" in resumed.stdout and f'v{live[1] + 1} {{"value":10,' in resumed.stdout


def test_no_checkpoint_while_an_effect_that_cannot_restart_runs(lib: fusionkit.Library, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The Wi-Fi join (not restartable) holds the checkpoint off until it is over; the
    live scan (restartable) does not. The instance made from the checkpoint goes on as
    the live one: the same scans at the same times."""
    monkeypatch.setattr(JournaledInstance, "checkpoint_every", 3)
    path = tmp_path / "wifi.journal"
    with lib.create("wifi", journal=path, clock="manual") as wifi:
        wifi.send("screenAppeared")
        wifi.send("networkTapped", id="blob")
        wifi.send("passwordChanged", password="blob")
        with pytest.raises(fusionkit.BusyError, match="cannot be checkpointed now"):
            wifi.send("joinButtonTapped")
            wifi.checkpoint()
        wifi.advance_clock(0.6)
        kinds = [next(iter(json.loads(line.rsplit(b" ", 1)[0]))) for line in path.read_bytes().splitlines()[1:]]
        assert kinds == ["checkpoint", "send", "advance"], "the join is under way: no checkpoint yet"
        wifi.advance_clock(0.6)
        kinds = [next(iter(json.loads(line.rsplit(b" ", 1)[0]))) for line in path.read_bytes().splitlines()[1:]]
        assert kinds == ["checkpoint"], "the join is over: checkpointed"
        wifi.advance_clock(5)
        live = wifi.snapshot()
    with lib.create("wifi", journal=path) as again:
        assert again.snapshot() == live
        assert again.state["selectedNetworkID"] == "blob"


def test_a_bridge_journals_inputs_with_their_message_ids_and_python_replays_them(lib: fusionkit.Library,
                                                                                 tmp_path: Path) -> None:
    """`fusion serve` journals a page's input with its message id (`sendBy`), and the
    ids a checkpoint dropped in an `applied` record (docs/rules/journal-format.md): a
    journal Python resumes replays the first and passes over the second."""
    path = tmp_path / "bridge.journal"
    with lib.create("counter", clock="manual", journal=path) as counter:
        counter.send("increase")
    append_records(path, {"applied": ["a1b2c3d4.1", "a1b2c3d4.2"]},
                   {"sendBy": {"id": "a1b2c3d4.3", "input": "increase"}},
                   {"sendBy": {"id": "a1b2c3d4.4", "input": "jump"}})  # refused, on replay too
    with lib.create("counter", journal=path) as resumed:
        assert isinstance(resumed, JournaledInstance)
        assert resumed.snapshot() == ({"value": 2, "isReset": False, "alert": None}, 2)
        refusal = resumed._messages[-1][1]
        assert refusal is not None and refusal["status"] == "FK_ERR_UNKNOWN_INPUT"
        assert resumed._messages[:3] == [("a1b2c3d4.1", None), ("a1b2c3d4.2", None), ("a1b2c3d4.3", None)]


def test_a_checkpoint_keeps_the_poison_inputs_a_bridge_put_away(lib: fusionkit.Library, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A `poisoned` record (an input that killed a bridge, docs/rules/journal-format.md)
    goes on after a checkpoint with the version it was applied at, as the bridge's own
    checkpoints carry it, so a bridge resuming the journal still refuses that input there."""
    path = tmp_path / "bridge.journal"
    with lib.create("counter", clock="manual", journal=path) as counter:
        counter.send("increase")
    poisoned = {"id": "a1b2c3d4.2", "record": {"sendBy": {"id": "a1b2c3d4.2", "input": "decrease"}}}
    append_records(path, {"poisoned": poisoned})
    monkeypatch.setattr(JournaledInstance, "checkpoint_every", 3)
    with lib.create("counter", journal=path) as resumed:
        for _ in range(3):
            resumed.send("increase")
    lines = [json.loads(line.rsplit(b" ", 1)[0]) for line in path.read_bytes().splitlines()]
    assert next(iter(lines[1])) == "checkpoint"
    assert {"poisoned": {**poisoned, "version": 1}} in lines, lines

