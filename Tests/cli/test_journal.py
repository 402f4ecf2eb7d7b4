"""Crash-safe sessions in `fusion run --journal FILE` (issue 13.6), as a person meets a
crash: a real `fusion` process in a real terminal (tmux) is killed with SIGKILL in the
middle of a session, and the same command resumes it with the same state and version;
a torn last record is dropped with a warning; damage elsewhere is refused."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import zlib
from pathlib import Path

from fusion_cli import run

# The exit statuses of docs/shell.md this file asserts.
JOURNAL, USAGE = 6, 64


def kill_9(journal: Path) -> None:
    """SIGKILL to the fusion process writing `journal` (no chance to clean up)."""
    found = subprocess.run(["pgrep", "-f", "--", f"--journal {journal}"], capture_output=True, text=True).stdout.split()
    # The fusion process itself, not the shell that started it (its command line names the file too).
    pids = [int(pid) for pid in found if Path(f"/proc/{pid}/comm").read_text().strip() == "fusion"]
    assert pids, f"no fusion process has {journal} open"
    for pid in pids:
        os.kill(pid, signal.SIGKILL)


def restart(tmux, *command: str) -> None:
    """A new terminal for the second run (the old tmux server takes a moment to go)."""
    tmux.kill()
    for attempt in range(20):
        try:
            tmux.start(*command, width=300)
            return
        except subprocess.CalledProcessError:
            if attempt == 19:
                raise
            time.sleep(0.2)



def chained(texts: list[bytes]) -> bytes:
    """A journal's lines with their checksums made again (format 2: each record's goes on
    from the line before's), as a writer would have written the texts."""
    data, chain = b"", 0
    for text in texts:
        chain = zlib.crc32(text, chain)
        data += text + b" %08x\n" % chain
    return data

def test_a_session_killed_with_sigkill_resumes_with_the_same_state_and_version(tmux, fusion, tmp_path):
    journal = tmp_path / "counter.journal"
    tmux.start(str(fusion), "run", "--journal", str(journal), "counter", width=300)
    tmux.wait_for(f"Journaling to {journal}")
    for text in ("increase", "increase", "increase", "decrease"):
        tmux.type(text)
    tmux.wait_for('v4 {"value":2,')
    kill_9(journal)
    tmux.wait_for("[exited 137]")
    restart(tmux, str(fusion), "run", "--journal", str(journal), "counter")
    screen = tmux.wait_for('v4 {"value":2,')
    assert f"Resumed from the journal {journal}: 4 records replayed." in screen
    tmux.type("increase")
    tmux.wait_for('v5 {"value":3,')
    # Time travel after a resume reaches back past the crash: the replay rebuilt the versions.
    tmux.type(":back 4")
    tmux.wait_for('v6 (the state of v1) {"value":1,')


def test_an_effect_waiting_at_the_crash_finishes_after_the_resume(tmux, fusion, tmp_path):
    journal = tmp_path / "wifi.journal"
    tmux.start(str(fusion), "run", "--journal", str(journal), "wifi", width=300)
    tmux.wait_for(f"Journaling to {journal}")
    tmux.type("networkTapped id=blob")
    tmux.type("passwordChanged password=blob")
    tmux.type("joinButtonTapped")
    # On one line or spread over several, as the connect screen's width decides.
    tmux.wait_for(r'"isConnecting": ?true', regex=True)
    kill_9(journal)  # within the one second the join takes
    tmux.wait_for("[exited 137]")
    records = [json.loads(line.rsplit(" ", 1)[0]) for line in journal.read_text().splitlines()[1:]]
    assert records[:3] == [{"send": {"networkTapped": {"id": "blob"}}}, {"send": {"passwordChanged": {"password": "blob"}}},
                           {"send": "joinButtonTapped"}]
    waited = sum(record.get("advance", 0) for record in records) / 1e9
    assert waited < 1, "killed before the join's second was up"
    restart(tmux, str(fusion), "run", "--journal", str(journal), "wifi")
    tmux.wait_for("Resumed from the journal")
    # The join's wait passes on the resumed clock (counted from the last journaled move: the
    # time held back since, like the time the process was down, is not); then it is joined.
    tmux.wait_for("(from an effect)", timeout=10)
    deadline = time.monotonic() + 10
    while '"selectedNetworkID": "blob"' not in tmux.screen():
        assert time.monotonic() < deadline, tmux.screen()
        tmux.type(":state")
        time.sleep(0.5)
    assert '"destination": null' in tmux.screen()


def test_a_torn_last_record_is_dropped_with_a_warning_and_cut_off(fusion, tmp_path):
    journal = tmp_path / "counter.journal"
    started = run(fusion, "run", "--journal", str(journal), "counter", stdin="increase\nincrease\n")
    assert started.returncode == 0, started.stderr
    whole = journal.read_bytes()
    # What a crash in the middle of write(2) leaves: part of a line, no newline.
    journal.write_bytes(whole + b'{"send":"incre')
    resumed = run(fusion, "run", "--journal", str(journal), "counter", stdin="")
    assert resumed.returncode == 0, resumed.stderr
    assert f"warning: journal {journal}: the last record (line 4) was torn" in resumed.stderr
    assert "it does not end with a newline" in resumed.stderr
    assert "2 records replayed" in resumed.stdout and resumed.stdout.rstrip().endswith('v2 {"value":2,"isReset":false,"alert":null}')
    assert journal.read_bytes() == whole, "the torn tail is cut off before anything is appended"
    # A whole last line whose checksum does not match is no tear (a crash leaves part of a
    # line): a line before it is missing or changed, or it is, and the journal is refused.
    line = b'{"send":"increase"}'
    journal.write_bytes(whole + line + b" %08x\n" % zlib.crc32(line))
    again = run(fusion, "run", "--journal", str(journal), "counter", stdin="increase\n")
    assert again.returncode == JOURNAL, again.stderr
    assert "line 4 is damaged (its checksum does not match: it was changed, or a line before it was removed" in again.stderr


def test_damage_before_the_last_record_is_refused_never_misread(fusion, tmp_path):
    journal = tmp_path / "counter.journal"
    run(fusion, "run", "--journal", str(journal), "counter", stdin="increase\nincrease\nincrease\n")
    lines = journal.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"increase", b"decrease")  # a flipped record, its sum unchanged
    journal.write_bytes(b"\n".join(lines))
    refused = run(fusion, "run", "--journal", str(journal), "counter", stdin="")
    assert refused.returncode == JOURNAL
    assert "line 3 is damaged (its checksum does not match: it was changed" in refused.stderr
    assert "not read rather than read wrong" in refused.stderr


def test_a_journal_is_of_one_feature_and_one_process(fusion, tmp_path):
    journal = tmp_path / "counter.journal"
    run(fusion, "run", "--journal", str(journal), "counter", stdin="increase\n")
    other = run(fusion, "run", "--journal", str(journal), "answer", stdin="")
    assert other.returncode == JOURNAL and 'a session of feature "counter", not "answer"' in other.stderr
    holder = subprocess.Popen([str(fusion), "run", "--journal", str(journal), "counter"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Once it says it resumed, it holds the journal.
        assert holder.stdout is not None and "1 record replayed" in holder.stdout.readline()
        second = run(fusion, "run", "--journal", str(journal), "counter", stdin="")
        assert second.returncode == JOURNAL and "another process has it open" in second.stderr, second.stderr
    finally:
        holder.communicate("", timeout=10)
    both = run(fusion, "run", "--journal", str(journal), "--record", str(tmp_path / "r.json"), "counter", stdin="")
    assert both.returncode == USAGE and "holds one already" in both.stderr
    # A journal replays only on the state version of the feature that wrote it.
    texts = [line.rsplit(b" ", 1)[0] for line in journal.read_bytes().splitlines()]
    texts[0] = texts[0].replace(b'"stateVersion":1', b'"stateVersion":2')
    journal.write_bytes(chained(texts))
    changed = run(fusion, "run", "--journal", str(journal), "counter", stdin="")
    assert changed.returncode == JOURNAL and "written with state version 2 of feature \"counter\"; this library's is 1" in changed.stderr


def test_a_session_journaled_and_recorded_keeps_one_clock_for_both(fusion, tmp_path):
    """--journal with --record: every change is journaled, then recorded, and the clock
    that moves in real time is one: the journal's moves are the recording's advances."""
    journal, record = tmp_path / "answer.journal", tmp_path / "answer.scenario.json"
    process = subprocess.Popen([str(fusion), "run", "--journal", str(journal), "--record", str(record), "answer"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("answerChanged text=hi\nsubmitTapped\n")
    process.stdin.flush()
    # The submit ends half a second later, on the real-time clock, told as an effect's change.
    while "(from an effect)" not in (line := process.stdout.readline()):
        assert line, process.stderr.read() if process.stderr else ""
    out, err = process.communicate("answerChanged text=yo\n", timeout=30)
    assert process.returncode == 0, err
    records = [json.loads(line.rsplit(b" ", 1)[0]) for line in journal.read_bytes().splitlines()[1:]]
    recording = json.loads(record.read_text())
    steps = recording["steps"]
    # The same session in both: the recording's options are the journal's, and its clock
    # moves add up to the journal's (merged while nothing changed).
    header = json.loads(journal.read_bytes().split(b"\n", 1)[0].rsplit(b" ", 1)[0])
    assert recording["options"] == header["options"] and header["options"]["clock"] == "manual"
    assert [r for r in records if "send" in r] == [{"send": s["send"]} for s in steps if "send" in s]
    journaled = sum(r.get("advance", 0) for r in records)
    recorded = sum(round(s["advance"] * 1e9) for s in steps if "advance" in s)
    assert journaled == recorded and journaled >= 500_000_000
    replay = run(fusion, "replay", str(record))
    assert replay.returncode == 0 and "every state was as recorded" in replay.stdout, replay.stdout + replay.stderr
    resumed = run(fusion, "run", "--journal", str(journal), "answer", stdin=":state\n")
    assert resumed.returncode == 0 and '"answer": "yo"' in resumed.stdout and '"submitted": "hi"' in resumed.stdout
    # A recording starts with its session: a journal that holds one is resumed without --record.
    again = run(fusion, "run", "--journal", str(journal), "--record", str(tmp_path / "b.json"), "answer", stdin="")
    assert again.returncode == USAGE and "holds one already" in again.stderr


def test_a_journal_replays_only_on_the_library_version_that_wrote_it(fusion, build_bare_library, tmp_path):
    journal = tmp_path / "tally.journal"
    first, newer = build_bare_library("1.0.0"), build_bare_library("1.1.0")
    wrote = run(fusion, "run", "--journal", str(journal), "--clock", "manual", str(first), "tally", stdin="add\nadd\n")
    assert wrote.returncode == 0, wrote.stderr
    refused = run(fusion, "run", "--journal", str(journal), str(newer), "tally", stdin="")
    assert refused.returncode == JOURNAL, refused.stderr
    assert "written by Bare 1.0.0, and this library is Bare 1.1.0" in refused.stderr
    resumed = run(fusion, "run", "--journal", str(journal), str(first), "tally", stdin="add\n")
    assert resumed.returncode == 0 and resumed.stdout.splitlines()[-1] == 'v3 {"count":3}', resumed.stdout
