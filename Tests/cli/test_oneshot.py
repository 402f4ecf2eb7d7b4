"""`fusion inspect` and `fusion send` as a script runs them: stdout, stderr, exit codes."""
from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

from fusion_cli import ROOT, clean_env, run
from status_producers import asserts_exactly, takes_fixture

COUNTER_0 = '{"value":0,"isReset":false,"alert":null}'
COUNTER_2 = '{"value":2,"isReset":false,"alert":null}'

# The exit codes the --help pages promise.
OK, FAILURE, UNKNOWN_FEATURE, BAD_INPUT, LIBRARY, STATE_FILE, JOURNAL, OUT_OF_DATE, USAGE = 0, 1, 2, 3, 4, 5, 6, 7, 64

# Each exit status docs/shell.md defines, and the test that produces it and asserts it
# exactly (a new status without a test fails test_every_exit_status_is_produced_by_a_test).
PRODUCED_BY = {
    OK: "test_oneshot.py::test_send_applies_inputs_in_order_and_prints_the_state",
    FAILURE: "test_oneshot.py::test_a_state_file_that_cannot_be_written_exits_1",
    UNKNOWN_FEATURE: "test_oneshot.py::test_unknown_feature_exits_2_listing_the_features",
    BAD_INPUT: "test_oneshot.py::test_bad_inputs_exit_3_with_the_reason",
    LIBRARY: "test_oneshot.py::test_unusable_libraries_exit_4_naming_the_problem",
    STATE_FILE: "test_oneshot.py::test_state_file_problems_exit_5",
    JOURNAL: "test_journal.py::test_a_journal_is_of_one_feature_and_one_process",
    OUT_OF_DATE: "test_oneshot.py::test_stale_generated_types_exit_7_naming_the_difference",
    USAGE: "test_oneshot.py::test_command_line_mistakes_exit_64",
}


def assert_one_line_error(result, code: int, *words: str) -> None:
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for word in words:
        assert word in lines[0], (word, lines[0])


# --- help -------------------------------------------------------------------------------

COMMANDS = ("inspect", "run", "send", "serve", "test", "replay", "new", "types")


def listed_codes(text: str) -> list[int]:
    return [int(code) for code in re.findall(r"^  (\d+) ", text.split("EXIT STATUS", 1)[1], re.M)]


def test_exit_statuses_are_one_help_topic_every_command_points_to(fusion):
    topic = run(fusion, "help", "exit-codes")
    assert topic.returncode == OK, topic.stderr
    assert listed_codes(topic.stdout) == sorted(PRODUCED_BY)
    top = run(fusion, "--help")
    assert top.returncode == OK, top.stderr
    assert re.search(r"^  exit-codes ", top.stdout, re.M), "fusion --help does not list the exit-codes topic"
    for command in ([], *([name] for name in COMMANDS)):
        result = run(fusion, *command, "--help")
        assert result.returncode == OK, result.stderr
        assert "fusion help exit-codes" in result.stdout, f"fusion {' '.join(command)} --help"
        # The whole table lives in the topic alone: a command lists at most its own few.
        assert len(listed_codes(result.stdout)) < len(PRODUCED_BY), f"fusion {' '.join(command)} --help repeats it"
    for command in ([], ["inspect"], ["run"], ["send"]):
        assert "libFusionExamples.so" in run(fusion, *command, "--help").stdout  # how LIB is told from FEATURE
    for sub in COMMANDS:
        assert re.search(rf"^  {sub} ", top.stdout, re.M), sub


def test_help_headings_name_no_file(fusion):
    """ArgumentParser prints a heading in capitals, so a file named in one reads
    DOCS/SECURITY.MD: the files a help page cites stay in its prose."""
    for command in ([], *([name] for name in COMMANDS)):
        text = run(fusion, *command, "--help").stdout
        headings = re.findall(r"^([A-Z][^a-z\n]*):$", text, re.M)
        assert "OPTIONS" in headings or "SUBCOMMANDS" in headings, text
        shouted = [heading for heading in headings if re.search(r"[/.]", heading)]
        assert not shouted, f"fusion {' '.join(command)} --help: {shouted}"


# --- inspect ----------------------------------------------------------------------------

def test_every_exit_status_is_produced_by_a_test() -> None:
    """docs/shell.md's table, the code's ExitStatus, the --help table (above) and the
    tests agree: each status is produced by a test that asserts it by its exact number."""
    table = (ROOT / "docs" / "shell.md").read_text().split("**Errors and exit codes.**", 1)[1]
    documented = [int(code) for code in re.findall(r"^\| (\d+) \|", table.split("\n\n", 2)[1], re.M)]
    assert documented == sorted(PRODUCED_BY), documented
    # The code's list (Sources/fusion/CLIError.swift's ExitStatus) is the same.
    statuses = (ROOT / "Sources" / "fusion" / "CLIError.swift").read_text().split("enum ExitStatus", 1)[1].split("\n\n", 1)[0]
    assert sorted(int(code) for code in re.findall(r"^\s*case \w+ = (\d+)", statuses, re.M)) == sorted(PRODUCED_BY)
    for code, test in PRODUCED_BY.items():
        module, name = test.split("::")
        path = Path(__file__).parent / module
        # Its body runs the real `fusion` and compares the exit status with `==` (Tests/status_producers.py).
        assert takes_fixture(path, name, "fusion"), f"{test} does not run fusion"
        assert asserts_exactly(path, name, code), f"{test} does not assert exit status {code} exactly"


def test_inspect_lists_features_inputs_fields_and_state(fusion):
    result = run(fusion, "inspect")
    assert result.returncode == OK, result.stderr
    out = result.stdout
    assert out.startswith("FusionExamples ")
    assert "\ncounter\n" in out and "\nanswer\n" in out
    assert "Increase, decrease and reset" in out
    for case in ("increase", "decrease", "reset", "show", "alertDismissed", "submitTapped", "resultDismissed"):
        assert f"    {case}\n" in out
    assert "    answerChanged text: string\n" in out
    assert "    value: integer\n    isReset: boolean\n    alert: string?\n" in out
    # The settings a feature reads, which the option "settings" may give and no other.
    wifi = out[out.index("\nwifi\n"):]
    assert '  settings (the option "settings")\n    liveScan: boolean  Networks come and go' in wifi
    assert "settings" not in out[out.index("\ncounter\n"):out.index("\nanswer\n")]
    assert "\x1b[" not in out  # not a terminal: no colour


def test_inspect_one_feature_and_as_json(fusion, examples_library):
    one = run(fusion, "inspect", str(examples_library), "answer")
    assert one.returncode == OK, one.stderr
    assert "\nanswer\n" in one.stdout and "\ncounter\n" not in one.stdout

    manifest = json.loads(run(fusion, "inspect", "--json").stdout)
    assert manifest["abiVersion"] == 1
    names = [feature["name"] for feature in manifest["features"]]
    assert "counter" in names and "answer" in names
    counter = next(f for f in manifest["features"] if f["name"] == "counter")
    assert list(counter["stateSchema"]["properties"]) == ["value", "isReset", "alert"]


# --- send -------------------------------------------------------------------------------

def test_send_applies_inputs_in_order_and_prints_the_state(fusion):
    result = run(fusion, "send", "counter", "increase", "increase")
    assert (result.returncode, result.stdout, result.stderr) == (OK, COUNTER_2 + "\n", "")
    shown = run(fusion, "send", "counter", "increase", "show", '{"decrease":{}}')
    assert json.loads(shown.stdout) == {"value": 0, "isReset": False, "alert": "The value is 1."}
    assert run(fusion, "send", "counter").stdout == COUNTER_0 + "\n"


def test_send_reads_fields_as_json_or_text_by_the_fields_type(fusion):
    def answer(*inputs: str) -> str:
        result = run(fusion, "send", "answer", *inputs)
        assert result.returncode == OK, result.stderr
        return json.loads(result.stdout)["answer"]

    assert answer("answerChanged", "text=hello") == "hello"
    assert answer("answerChanged text=hello") == "hello"             # a whole input in one word
    assert answer("answerChanged", "text=hello world") == "hello world"  # the shell split it already
    assert answer('answerChanged text="two words"') == "two words"
    assert answer("answerChanged text='it is'") == "it is"
    assert answer("answerChanged", "text=123") == "123"               # a string field keeps text
    assert answer("answerChanged", 'text="quoted"') == "quoted"
    assert answer('{"answerChanged":{"text":"raw json"}}') == "raw json"
    assert answer("answerChanged", "text=안녕") == "안녕"


def test_send_json_output_parses_and_says_feature_state_version_and_version(fusion):
    result = run(fusion, "send", "--json", "answer", "answerChanged", "text=hi")
    assert result.returncode == OK, result.stderr
    assert result.stdout.count("\n") == 1
    document = json.loads(result.stdout)
    assert document == {"feature": "answer", "stateVersion": 1, "version": 1, "state": {
        "answer": "hi", "isSubmitEnabled": True, "isSubmitting": False, "submitted": None}}


def test_send_state_file_round_trip(fusion, tmp_path: Path):
    state = tmp_path / "counter.json"
    first = run(fusion, "send", "counter", "--state", str(state), "increase")
    assert first.stdout == '{"value":1,"isReset":false,"alert":null}\n'
    second = run(fusion, "send", "counter", "increase", "increase", "--state", str(state))
    assert second.stdout == '{"value":3,"isReset":false,"alert":null}\n'
    saved = json.loads(state.read_text())
    assert saved["feature"] == "counter"
    assert saved["state"] == {"value": 3, "isReset": False, "alert": None}
    # The --json document and the state file are the same shape: one feeds the other.
    piped = tmp_path / "piped.json"
    piped.write_text(run(fusion, "send", "counter", "decrease", "--json").stdout)
    assert run(fusion, "send", "counter", "decrease", "--state", str(piped)).stdout.startswith('{"value":-2,')


def test_a_refused_input_changes_neither_output_nor_state_file(fusion, tmp_path: Path):
    state = tmp_path / "counter.json"
    run(fusion, "send", "counter", "increase", "--state", str(state))
    before = state.read_text()
    result = run(fusion, "send", "counter", "increase", "jump", "--state", str(state))
    assert_one_line_error(result, BAD_INPUT, 'input 2 (jump)', "FK_ERR_UNKNOWN_INPUT", '"jump"',
                          "increase, decrease")
    assert state.read_text() == before


def test_bad_inputs_exit_3_with_the_reason(fusion):
    assert_one_line_error(run(fusion, "send", "answer", "answerChanged text"), BAD_INPUT,
                          "input 1", "expected field=value")
    assert_one_line_error(run(fusion, "send", "answer", "answerChanged", "submitTapped"), BAD_INPUT,
                          "input 1 (answerChanged)", "FK_ERR_INVALID_INPUT", 'missing field "text"')
    assert_one_line_error(run(fusion, "send", "answer", "text=hi"), BAD_INPUT,
                          "no input case comes before it")
    assert_one_line_error(run(fusion, "send", "answer", "answerChanged", "txt=hi"), BAD_INPUT,
                          "FK_ERR_INVALID_INPUT", "txt")
    assert_one_line_error(run(fusion, "send", "counter", '{"increase":'), BAD_INPUT, "FK_ERR_MALFORMED_JSON")
    assert_one_line_error(run(fusion, "send", "answer", "answerChanged text='open"), BAD_INPUT,
                          "unterminated single quote")


def test_unknown_feature_exits_2_listing_the_features(fusion):
    assert_one_line_error(run(fusion, "send", "nope", "increase"), UNKNOWN_FEATURE, '"nope"', "counter, answer")
    assert_one_line_error(run(fusion, "inspect", "nope"), UNKNOWN_FEATURE, '"nope"')
    assert_one_line_error(run(fusion, "run", "nope", stdin=""), UNKNOWN_FEATURE, '"nope"')


def test_unusable_libraries_exit_4_naming_the_problem(fusion, tmp_path: Path, wrong_abi_library: Path):
    assert_one_line_error(run(fusion, "send", str(tmp_path / "libMissing.so"), "counter"), LIBRARY,
                          "libMissing.so", "No such file")
    text = tmp_path / "notes.so"
    text.write_text("not a library")
    assert_one_line_error(run(fusion, "inspect", str(text)), LIBRARY, "notes.so")
    assert_one_line_error(run(fusion, "send", str(wrong_abi_library), "counter"), LIBRARY,
                          "version 999", "version 1")
    other = tmp_path / "libOther.so"
    shutil.copy("/lib/x86_64-linux-gnu/libz.so.1" if Path("/lib/x86_64-linux-gnu/libz.so.1").exists()
                else wrong_abi_library, other)
    if other.read_bytes() != wrong_abi_library.read_bytes():
        assert_one_line_error(run(fusion, "inspect", str(other)), LIBRARY, "does not export fk_abi_version")


def test_state_file_problems_exit_5(fusion, tmp_path: Path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert_one_line_error(run(fusion, "send", "counter", "increase", "--state", str(broken)), STATE_FILE,
                          "broken.json", "not JSON")
    assert broken.read_text() == "{not json"

    answer = tmp_path / "answer.json"
    run(fusion, "send", "answer", "--state", str(answer))
    assert_one_line_error(run(fusion, "send", "counter", "--state", str(answer)), STATE_FILE,
                          'feature "answer", not "counter"')

    misfit = tmp_path / "misfit.json"
    misfit.write_text('{"feature":"counter","state":{"value":"lots"}}')
    assert_one_line_error(run(fusion, "send", "counter", "--state", str(misfit)), STATE_FILE,
                          "does not fit", "FK_ERR_INVALID_STATE")


def test_a_state_file_that_cannot_be_written_exits_1(fusion, tmp_path: Path):
    target = tmp_path / "no-such-dir" / "s.json"
    assert_one_line_error(run(fusion, "send", "counter", "increase", "--state", str(target)), FAILURE,
                          "cannot write state file", "No such file")


def test_output_that_cannot_be_written_exits_1(fusion, tmp_path: Path):
    """A script that sends the output to a full disk, or to a closed stdout, is told so
    (outside probe: both exited 0 with nothing written)."""
    for args in (("send", "counter", "increase"), ("send", "counter", "--json"), ("types", "--lang", "ts"),
                 ("inspect",)):
        with open("/dev/full", "w") as full:
            result = subprocess.run([str(fusion), *args], stdout=full, stderr=subprocess.PIPE, text=True,
                                    env=clean_env(), timeout=60)
        assert result.returncode == FAILURE, (args, result.stderr)
        assert result.stderr.startswith("error: cannot write the output: No space left on device"), result.stderr
    closed = subprocess.run(f"exec >&-; exec {shlex.quote(str(fusion))} send counter increase", shell=True,
                            stderr=subprocess.PIPE, text=True, env=clean_env(), timeout=60)
    assert closed.returncode == FAILURE and "cannot write the output" in closed.stderr, closed.stderr


def test_a_state_file_is_saved_through_its_link_with_its_mode(fusion, tmp_path: Path):
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    run(fusion, "send", "counter", "increase", "--state", str(real))
    real.chmod(0o600)
    link.symlink_to(real.name)
    assert run(fusion, "send", "counter", "increase", "--state", str(link)).stdout == COUNTER_2 + "\n"
    assert link.is_symlink()
    assert json.loads(real.read_text())["state"]["value"] == 2
    assert real.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]  # no temporary left


def test_a_device_is_neither_a_state_file_nor_a_journal(fusion):
    """/dev/zero never ends and /dev/full reads as zeros: read whole, they filled memory
    (or aborted the process) instead of being refused."""
    for device in ("/dev/zero", "/dev/full"):
        assert_one_line_error(run(fusion, "send", "counter", "increase", "--state", device, timeout=20), STATE_FILE,
                              device, "a device, not a file")
        result = run(fusion, "run", "counter", "--journal", device, stdin="increase\n", timeout=20)
        assert result.returncode == JOURNAL, (result.returncode, result.stderr)
        assert "a device, not a file" in result.stderr


def test_an_argument_that_is_not_utf8_is_refused(fusion):
    """CommandLine.arguments puts U+FFFD for bytes that are not UTF-8: the input was sent
    as other text than typed (outside probe: "caf\\xe9" became "caf\ufffd")."""
    result = subprocess.run([str(fusion).encode(), b"send", b"answer", b"answerChanged", b"text=caf\xe9"],
                            capture_output=True, env=clean_env(), timeout=60)
    assert result.returncode == BAD_INPUT, result.stderr
    assert result.stdout == b""
    assert result.stderr.decode() == "error: argument 4 is not UTF-8 text, which is all fusion reads; nothing was done\n"


def test_command_line_mistakes_exit_64(fusion):
    result = run(fusion, "send")
    assert result.returncode == USAGE
    assert "missing FEATURE" in result.stderr
    assert run(fusion, "send", "counter", "--no-such-option").returncode == USAGE
    assert run(fusion, "run", "counter", "increase").returncode == USAGE


def test_library_given_first_by_path(fusion, examples_library, tmp_path: Path):
    # A word with "/" or ending in .so is the library; the next is the feature.
    by_path = run(fusion, "send", str(examples_library), "counter", "increase")
    assert by_path.stdout == '{"value":1,"isReset":false,"alert":null}\n'
    shutil.copy(examples_library, tmp_path / "libCopy.so")
    in_cwd = run(fusion, "send", "libCopy.so", "counter", "decrease", cwd=tmp_path)
    assert in_cwd.stdout.startswith('{"value":-1,'), in_cwd.stderr
    # Without one: $FUSIONKIT_LIBRARY, else the library beside fusion (test_library_choice.py).


def test_wait_lets_effects_finish_before_reading_the_state(fusion):
    result = run(fusion, "send", "answer", "answerChanged", "text= hi ", "submitTapped", "--wait", "1.5")
    assert json.loads(result.stdout) == {"answer": "", "isSubmitEnabled": False, "isSubmitting": False,
                                         "submitted": "hi"}
    without = run(fusion, "send", "answer", "answerChanged", "text=hi", "submitTapped")
    assert json.loads(without.stdout)["isSubmitting"] is True
    # Out of range, a negative one too, is named as such (a negative was read as a missing value).
    for seconds in ("-1", "3601", "nan"):
        refused = run(fusion, "send", "counter", "increase", "--wait", seconds)
        assert refused.returncode == USAGE, refused.stdout
        assert "--wait takes seconds from 0 to 3600" in refused.stderr, refused.stderr


# --- run, with stdin not a terminal -----------------------------------------------------

def test_run_reads_plain_lines_when_stdin_is_not_a_terminal(fusion):
    result = run(fusion, "run", "counter", stdin="increase\njump\n\nincrease\n:diff\n:quit\nincrease\n")
    assert result.returncode == OK, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "v0 " + COUNTER_0
    assert lines[1] == 'v1 {"value":1,"isReset":false,"alert":null}'
    assert lines[2] == "v2 " + COUNTER_2   # the refused input kept the state
    assert lines[3] == "increase changed (v1 → v2):"
    assert lines[4] == "  value: 1 → 2"
    assert len(lines) == 5                  # nothing after :quit
    assert result.stderr.count("\n") == 1 and "FK_ERR_UNKNOWN_INPUT" in result.stderr
    assert "\x1b[" not in result.stdout + result.stderr


def test_run_refuses_a_piped_line_that_is_not_utf8_and_reads_on(fusion):
    """Swift's readLine put U+FFFD for bytes that are not UTF-8, and the input was sent as
    other text than was written (outside probe)."""
    result = subprocess.run([str(fusion), "run", "answer"], input=b"answerChanged text=\xff\xfe\nanswerChanged text=ok\n",
                            capture_output=True, env=clean_env(), timeout=60)
    assert result.returncode == OK, result.stderr
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 2 and lines[1].startswith('v1 {"answer":"ok",'), lines  # the refused line sent nothing
    assert result.stderr.decode() == (
        "error: a line that is not UTF-8 text was not read (FK_ERR_INVALID_UTF8); nothing was sent\n")
    # The last line may lack its newline.
    assert run(fusion, "run", "counter", stdin="increase\nincrease").stdout.splitlines()[-1] == "v2 " + COUNTER_2


def test_run_saves_its_state_file_when_the_session_ends(fusion, tmp_path: Path):
    state = tmp_path / "s.json"
    run(fusion, "run", "counter", "--state", str(state), stdin="increase\nincrease\n")
    assert json.loads(state.read_text())["state"]["value"] == 2
    again = run(fusion, "run", "counter", "--state", str(state), stdin="increase\n")
    assert again.stdout.splitlines()[-1].startswith('v1 {"value":3,')


def test_run_takes_the_creation_options(fusion):
    # --seed pins the random source: Home's first number with seed 7 is 2 (examples/scenarios/home.scenario.json).
    seeded = run(fusion, "run", "--seed", "7", "home", stdin="viewDidLoad\ntap1\n")
    assert seeded.returncode == OK, seeded.stderr
    assert seeded.stdout.splitlines()[1:] == [
        'v1 {"title":"ViewDidLoad Action","desc":"Number 2","isViewLoaded":true}',
        'v2 {"title":"Tap1 Action","desc":"Tap1 Number 0","isViewLoaded":true}']
    # --clock manual: the half-second submit waits for :advance.
    manual = run(fusion, "run", "--clock", "manual", "answer",
                 stdin="answerChanged text=hi\nsubmitTapped\n:advance 0.4\n:advance 0.1\n:state\n")
    assert manual.returncode == OK, manual.stderr
    lines = manual.stdout.splitlines()
    assert lines[3] == "the clock moved 0.4 s; v2"  # not yet: the submit waits half a second
    # The effect runs on the advance's own thread (a manual clock settles its effects exactly).
    assert lines[4].startswith("v3 (after 0.1 s)") and '"submitted":"hi"' in lines[4]
    # --settings: the feature's own settings, as JSON.
    still = run(fusion, "run", "--settings", '{"liveScan":false}', "wifi", stdin="screenAppeared\n")
    assert still.returncode == OK and '"isScanning":false' in still.stdout.splitlines()[-1], still.stdout
    scanning = run(fusion, "run", "wifi", stdin="screenAppeared\n")
    assert '"isScanning":true' in scanning.stdout.splitlines()[-1]


def test_run_options_are_checked(fusion):
    for args, words in ((["--clock", "fast"], '--clock is manual or system, not "fast"'),
                        (["--settings", "[1]"], "--settings is a JSON object, not [1]"),
                        (["--settings", "{no"], "is not JSON"),
                        (["--seed", "-1"], "seed")):
        result = run(fusion, "run", *args, "counter", stdin="")
        assert result.returncode == USAGE and words in result.stderr, (args, result.stderr)
    # :advance on the system clock is the library's refusal, said in the session.
    system = run(fusion, "run", "counter", stdin=":advance 1\n:advance soon\n")
    assert system.returncode == OK
    assert "FK_ERR_INVALID_ARGUMENT" in system.stderr and "system clock" in system.stderr
    assert ":advance takes the seconds to move the clock by" in system.stderr


def test_stale_generated_types_exit_7_naming_the_difference(fusion, examples_library, tmp_path: Path):
    """`fusion types --check` (docs/typed-front-ends.md): the files as written pass; one
    changed by hand, or one missing, is named, with exit status 7."""
    written = run(fusion, "types", "--lang", "ts", str(examples_library), "--out", str(tmp_path))
    assert written.returncode == OK, written.stderr
    declarations = tmp_path / "fusion-examples.d.ts"
    assert run(fusion, "types", "--lang", "ts", str(examples_library), "--check", str(tmp_path)).returncode == OK
    declarations.write_text(declarations.read_text().replace("value: number;", "value: string;"))
    stale = run(fusion, "types", "--lang", "ts", str(examples_library), "--check", str(tmp_path))
    assert stale.returncode == OUT_OF_DATE
    assert f"{declarations}:" in stale.stderr and "value: number;" in stale.stderr and "value: string;" in stale.stderr
    declarations.unlink()
    missing = run(fusion, "types", "--lang", "ts", str(examples_library), "--check", str(tmp_path))
    assert missing.returncode == OUT_OF_DATE and f"{declarations}: missing" in missing.stderr
