"""The ncurses front end (examples/c/wifi_screen.c) in a real terminal: compiled against
include/fusionkit.h and libncursesw, run in tmux (80x24, TERM=xterm-256color, unless a
test is about a narrow or short terminal or another locale), driven with keys, read back
with capture-pane. Every wait polls the screen until what it waits for shows (or a
timeout), never a bare sleep. The seed-003 flow runs again under valgrind, quitting with
q, which must exit 0."""
from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, clean_env, plain_build_only
from ncurses_report import report
from ncurses_terminal import HEIGHT, Terminal

SOURCE = ROOT / "examples/c/wifi_screen.c"
DOCS_SCREEN = ROOT / "docs/front-ends.md"
SUPPRESSIONS = ROOT / "Tests/abi/valgrind.supp"


@pytest.fixture(scope="module")
def wifi_screen(compile_c) -> Path:
    return compile_c(SOURCE, "-lncursesw")


@pytest.fixture
def terminal(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Terminal]:
    """An 80x24 UTF-8 terminal; `@pytest.mark.parametrize("terminal", [dict(size=(50, 18),
    locale="C")], indirect=True)` asks for another."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed (scripts/setup installs it)")
    term = Terminal(tmp_path, timeout=15, env=clean_env(), **getattr(request, "param", {}))
    try:
        yield term
    finally:
        term.kill()


# --- What the screen shows, beyond the report ---------------------------------------

def row(screen: str, name: str) -> str:
    """The list row of a network (not a sheet's title)."""
    rows = [line for line in screen.splitlines() if re.match(rf"^ [> ] [✓* ] {re.escape(name)} ", line)]
    assert len(rows) == 1, f"no single row for {name!r} in:\n{screen}"
    return rows[0]


def password_dots(screen: str) -> int:
    match = re.search(r"Password: (•*)", screen)
    assert match, screen
    return len(match.group(1))


def join_button_attributes(escaped_screen: str) -> set[str]:
    """The SGR attributes ("bold", "dim") in force where "[ Join ]" is drawn, read from
    `capture-pane -e` output."""
    line = next(line for line in escaped_screen.splitlines() if "[ Join ]" in line)
    active: set[str] = set()
    for codes in re.findall(r"\x1b\[([0-9;]*)m", line[:line.index("[ Join ]")]):
        for code in (codes or "0").split(";"):
            if code in ("0", ""):
                active.clear()
            elif code == "1":
                active.add("bold")
            elif code == "2":
                active.add("dim")
            elif code == "22":
                active -= {"bold", "dim"}
    return active


# --- The flows, shared by the plain run and the valgrind run ------------------------

def list_rows(screen: str) -> list[str]:
    """The network rows of the list, top to bottom: " > ✓ Name    ▂▄·  🔒"."""
    return [line for line in screen.splitlines() if re.match(r"^ [> ] [✓* ] \S", line)]


def move_to(term: Terminal, name: str) -> None:
    """Moves the cursor to a network's row with Up and Down."""
    def row_of(screen: str) -> list[int]:
        return [i for i, line in enumerate(list_rows(screen)) if re.match(rf"{re.escape(name)}( |$)", line[5:])]

    for _ in range(20):
        # A slow program (under valgrind) may have drawn the title and not the rows yet.
        screen = term.wait(lambda shown: len(row_of(shown)) == 1, f"the row of {name!r}")
        rows = list_rows(screen)
        targets = row_of(screen)
        cursors = [i for i, line in enumerate(rows) if line.startswith(" >")]
        assert len(targets) == 1, f"no single row for {name!r} in:\n{screen}"
        if cursors == targets:
            return
        if len(cursors) == 1:
            term.keys("Down" if targets[0] > cursors[0] else "Up")
            term.wait(lambda shown, before=screen: shown != before, "the cursor to move")
    raise AssertionError(f"the cursor never reached {name!r}")


def join_flow(term: Terminal) -> None:
    """Blob Jr's WiFi: hunter2 is refused after a second, blob joins."""
    term.wait_for_text("manual clock: 0s")
    move_to(term, "Blob Jr's WiFi")
    term.keys("Enter")
    term.wait_for_report(screen="connect", alert=None, joining=False, selected=None)
    assert 'Join "Blob Jr\'s WiFi"' in term.screen()
    assert join_button_attributes(term.screen(escapes=True)) == {"bold"}  # enabled

    term.keys("hunter2")
    term.wait(lambda screen: password_dots(screen) == 7, "seven dots")
    term.keys("Enter")
    screen = term.wait_for_report(screen="connect", joining=True)
    assert "hunter2" not in screen
    assert "dim" in join_button_attributes(term.screen(escapes=True))  # isJoinEnabled is false
    term.keys("x")  # not editable while joining: nothing is sent
    term.keys("+")
    screen = term.wait_for_report(screen="connect", alert="incorrect-password", joining=False)
    assert "manual clock: 1s" in screen
    # The feature's words (the state's incorrectPasswordAlert), broken to fit the box.
    assert "The password for “Blob Jr's WiFi” is not" in screen and "[ OK ]" in screen
    # The alert is a centered box.
    box = [line for line in screen.splitlines() if "Incorrect Password" in line][0]
    left, right = box.index("│"), box.rindex("│")
    title = box.index("Incorrect Password")
    assert abs((title - left) - (right - title - len("Incorrect Password"))) <= 2, box
    # docs/front-ends.md shows this screen as it is.
    shown_in_docs = DOCS_SCREEN.read_text().split("<!-- output of a run: examples/c/wifi_screen.c in tmux, 80x24;", 1)[1]
    pictured = shown_in_docs.split("```text\n", 1)[1].split("```", 1)[0]
    assert pictured.rstrip("\n").splitlines() == [line.rstrip() for line in screen.rstrip("\n").splitlines()]

    term.keys("Enter")
    screen = term.wait_for_report(screen="connect", alert=None)
    assert password_dots(screen) == 7
    assert join_button_attributes(term.screen(escapes=True)) == {"bold"}
    term.keys(*["BSpace"] * 7)
    term.wait(lambda screen: password_dots(screen) == 0, "an empty password")
    term.keys("blob")
    term.wait(lambda screen: password_dots(screen) == 4, "four dots")
    term.keys("Enter")
    term.wait_for_report(screen="connect", joining=True)
    term.keys("+")
    screen = term.wait_for_report(screen="list", selected="Blob Jr's WiFi", alert=None, joining=False)
    assert "manual clock: 2s" in screen
    assert "My Network" in screen and "Other Networks" in screen
    # Shown apart: above the others' heading, and not among them.
    lines = screen.splitlines()
    assert lines.index(row(screen, "Blob Jr's WiFi")) < next(i for i, line in enumerate(lines) if "Other Networks" in line)


def forget_flow(term: Terminal) -> None:
    """The selected network's detail, forget, cancel, forget again, confirm."""
    move_to(term, "Blob Jr's WiFi")
    term.keys("Enter")  # tapping the selected network opens its detail
    screen = term.wait_for_report(screen="detail", alert=None, selected="Blob Jr's WiFi")
    assert "[ Forget This Network ]" in screen and "Security: Secured" in screen and "60%" in screen
    term.keys("f")
    screen = term.wait_for_report(screen="detail", alert="forget")
    # The feature's words (the state's forgetAlert), as every front end shows them.
    assert "Forget Wi-Fi Network “Blob Jr's WiFi”?" in screen
    assert "Your device will no longer join this network" in screen and "[ y Forget ]   [ n Cancel ]" in screen
    term.keys("n")
    term.wait_for_report(screen="detail", alert=None, selected="Blob Jr's WiFi")
    term.keys("f")
    term.wait_for_report(screen="detail", alert="forget")
    term.keys("Escape")
    term.wait_for_report(screen="detail", alert=None, selected="Blob Jr's WiFi")
    term.keys("f")
    term.wait_for_report(screen="detail", alert="forget")
    term.keys("y")
    term.wait_for_report(screen="list", alert=None, selected=None)


def cancel_flow(term: Terminal) -> None:
    """Escape during a join closes the sheet and cancels the join: a second later
    nothing is selected."""
    move_to(term, "Blob's WiFi")
    term.keys("Enter")
    term.wait_for_report(screen="connect", selected=None)
    term.keys("blob")
    term.wait(lambda screen: password_dots(screen) == 4, "four dots")
    term.keys("Enter")
    term.wait_for_report(screen="connect", joining=True)
    term.keys("Escape")
    term.wait_for_report(screen="list", joining=False, selected=None)
    clock = int(re.search(r"manual clock: (\d+)s", term.screen()).group(1))
    term.keys("+", "+")
    screen = term.wait_for_text(f"manual clock: {clock + 2}s")
    assert report(screen) == {"screen": "list", "selected": None, "alert": None, "joining": False}


# --- Tests --------------------------------------------------------------------------

def test_list_draws_the_state(terminal: Terminal, wifi_screen: Path):
    terminal.start(str(wifi_screen), "--manual-clock")
    screen = terminal.wait_for_text("Café Guest")
    lines = screen.splitlines()
    assert lines[0].strip() == "Wi-Fi"
    assert "Wi-Fi: On" in screen
    assert report(screen) == {"screen": "list", "selected": None, "alert": None, "joining": False}
    # A lock where isSecured, bars as signalBars (3, 2, 1, 2).
    assert re.search(r"Blob's WiFi +▂▄▆ +🔒", row(screen, "Blob's WiFi"))
    assert re.search(r"Blob Jr's WiFi +▂▄· +🔒", row(screen, "Blob Jr's WiFi"))
    assert re.search(r"Blob Sr's WiFi +▂·· +🔒", row(screen, "Blob Sr's WiFi"))
    assert re.search(r"Café Guest +▂▄·$", row(screen, "Café Guest").rstrip())
    assert "+ clock +1s" in lines[HEIGHT - 1]
    assert row(screen, "Blob's WiFi").startswith(" >")

    # An open network joins at once; its name is UTF-8.
    move_to(terminal, "Café Guest")
    terminal.keys("Enter")
    screen = terminal.wait_for_report(screen="list", selected="Café Guest")
    assert row(screen, "Café Guest").startswith(" > ✓")

    terminal.keys("w")
    screen = terminal.wait_for_text("Wi-Fi: Off")
    assert report(screen)["selected"] is None and "Blob's WiFi" not in screen
    terminal.keys("w")
    terminal.wait_for_report(selected="Café Guest")

    terminal.keys("q")
    assert terminal.wait_for_exit() == 0


def test_join_then_forget_with_manual_clock(terminal: Terminal, wifi_screen: Path):
    terminal.start(str(wifi_screen), "--manual-clock")
    join_flow(terminal)
    forget_flow(terminal)
    terminal.keys("q")
    assert terminal.wait_for_exit() == 0


def test_escape_during_a_join_cancels_it(terminal: Terminal, wifi_screen: Path):
    terminal.start(str(wifi_screen), "--manual-clock")
    terminal.wait_for_text("manual clock: 0s")
    cancel_flow(terminal)
    terminal.keys("q")
    assert terminal.wait_for_exit() == 0


def test_system_clock_join_arrives_from_a_library_thread(terminal: Terminal, wifi_screen: Path):
    """Without --manual-clock the join's second passes on a library thread; the
    callback only wakes the main loop, which redraws."""
    terminal.start(str(wifi_screen))
    screen = terminal.wait_for_text("Café Guest")
    assert "manual clock" not in screen and "+ clock" not in screen
    move_to(terminal, "Blob Sr's WiFi")
    terminal.keys("Enter")
    terminal.wait_for_report(screen="connect")
    terminal.keys("blob", "Enter")
    terminal.wait_for_report(screen="list", selected="Blob Sr's WiFi")
    terminal.keys("C-c")  # quits cleanly too
    assert terminal.wait_for_exit() == 0


# --- Terminals as they come: narrow, short, not UTF-8 ---------------------------------

BARS_AND_LOCKS = {"Blob's WiFi": r"▂▄▆  🔒", "Blob Jr's WiFi": r"▂▄·  🔒", "Blob Sr's WiFi": r"▂··  🔒",
                  "Café Guest": r"▂▄·"}


def too_small(screen: str) -> tuple[int, int] | None:
    """The size the "terminal too small" message asks for, if it shows."""
    match = re.search(r"terminal too small: need (\d+)x(\d+)", screen)
    return (int(match.group(1)), int(match.group(2))) if match else None


@pytest.mark.parametrize("terminal", [{"size": (50, 18)}], indirect=True)
def test_at_50_columns_the_bars_locks_and_hints_stay_whole(terminal: Terminal, wifi_screen: Path):
    terminal.start(str(wifi_screen), "--manual-clock")
    screen = terminal.wait_for_text("Café Guest")
    assert "manual clock: 0s" in screen
    for name, tail in BARS_AND_LOCKS.items():
        assert re.search(rf" {re.escape(name)} +{tail}$", row(screen, name).rstrip()), screen
    # Every key hint, wrapped rather than cut.
    hints = " ".join(screen.splitlines()[-2:])
    for hint in ("↑↓ move", "Enter tap", "i info", "w Wi-Fi on/off", "q quit", "+ clock +1s"):
        assert hint in hints, screen

    # The whole seed-003 flow fits: the sheet, the wrong password's alert, a join.
    move_to(terminal, "Blob Jr's WiFi")
    terminal.keys("Enter")
    terminal.wait_for_report(screen="connect", alert=None)
    terminal.keys("hunter2")
    terminal.wait(lambda screen: password_dots(screen) == 7, "seven dots")
    terminal.keys("Enter")
    terminal.wait_for_report(screen="connect", joining=True)
    terminal.keys("+")
    screen = terminal.wait_for_report(screen="connect", alert="incorrect-password", joining=False)
    box = [line for line in screen.splitlines() if "[ OK ]" in line][0]
    assert box.count("│") == 2, screen  # the alert's box is whole
    terminal.keys("Enter")
    terminal.wait_for_report(screen="connect", alert=None)
    terminal.keys(*["BSpace"] * 7, "blob", "Enter", "+")
    terminal.wait_for_report(screen="list", selected="Blob Jr's WiFi")
    # The forget alert is the widest box: 50 columns, drawn whole.
    move_to(terminal, "Blob Jr's WiFi")
    terminal.keys("Enter")
    terminal.wait_for_report(screen="detail", selected="Blob Jr's WiFi")
    terminal.keys("f")
    screen = terminal.wait_for_report(screen="detail", alert="forget")
    assert too_small(screen) is None
    assert sum(1 for line in screen.splitlines() if line.startswith("│") and line.rstrip().endswith("│")) >= 5
    terminal.keys("y")
    terminal.wait_for_report(screen="list", selected=None, alert=None)
    terminal.keys("q")
    assert terminal.wait_for_exit() == 0


@pytest.mark.parametrize("terminal", [{"size": (40, 12)}], indirect=True)
def test_too_small_for_the_sheet_says_so_and_types_nothing_blind(terminal: Terminal, wifi_screen: Path):
    terminal.start(str(wifi_screen), "--manual-clock")
    screen = terminal.wait_for_text("Café Guest")
    for name, tail in BARS_AND_LOCKS.items():
        assert re.search(rf" {re.escape(name)} +{tail}$", row(screen, name).rstrip()), screen

    move_to(terminal, "Blob Jr's WiFi")
    terminal.keys("Enter")  # the feature opens the connect sheet; 40x12 cannot hold it
    screen = terminal.wait(lambda shown: too_small(shown) is not None, "the too-small message")
    need = too_small(screen)
    assert need is not None and (need[0] > 40 or need[1] > 12), screen
    assert "Password" not in screen and "Blob Jr's WiFi" not in screen
    # Typed while the sheet cannot be seen: none of it acts, not even Enter or Escape.
    terminal.keys("hunter2", "Enter", "+", "Escape")
    terminal.wait(lambda shown: "q quit" in shown, "the message's hint")
    terminal.resize(*need)  # exactly what it asked for is enough
    screen = terminal.wait_for_report(screen="connect", alert=None, joining=False)
    assert too_small(screen) is None
    assert password_dots(screen) == 0 and "manual clock: 0s" in screen

    terminal.keys("Escape")
    terminal.wait_for_report(screen="list")
    terminal.resize(40, 12)
    terminal.wait(lambda shown: "Wi-Fi: On             manual clock" in shown, "the list redrawn at 40 columns")
    terminal.wait_for_report(screen="list")  # settled: the cursor moves only from here
    # The list scrolls to keep the cursor in view: with a network joined it is taller
    # than 40x12 leaves it.
    move_to(terminal, "Café Guest")
    terminal.keys("Enter")
    terminal.wait_for_report(screen="list", selected="Café Guest")
    screen = terminal.screen()
    assert "Blob Sr's WiFi" not in screen, screen  # below the fold, for now
    terminal.keys("Down", "Down", "Down")  # Blob's, Blob Jr's, Blob Sr's WiFi
    screen = terminal.wait(lambda shown: "Blob Sr's WiFi" in shown, "the list scrolled")
    assert row(screen, "Blob Sr's WiFi").startswith(" >"), screen
    assert "Other Networks" in screen

    move_to(terminal, "Blob Jr's WiFi")
    terminal.keys("i")
    terminal.wait(lambda shown: too_small(shown) is not None, "the too-small message")
    terminal.keys("q")  # quits, too small or not
    assert terminal.wait_for_exit() == 0


@pytest.mark.parametrize("terminal", [{"locale": "C"}], indirect=True)
def test_without_utf8_it_draws_in_ascii(terminal: Terminal, wifi_screen: Path):
    """LANG=C: bars as [##.], the lock as [L], the selected mark as *, boxes in + - |,
    "é" as "e"; nothing on screen outside ASCII."""
    terminal.start(str(wifi_screen), "--manual-clock")
    screen = terminal.wait_for_text("Cafe Guest")
    assert screen.isascii(), screen
    assert re.search(r"Blob's WiFi +\[###\]  \[L\]$", row(screen, "Blob's WiFi").rstrip())
    assert re.search(r"Blob Jr's WiFi +\[##\.\]  \[L\]$", row(screen, "Blob Jr's WiFi").rstrip())
    assert re.search(r"Blob Sr's WiFi +\[#\.\.\]  \[L\]$", row(screen, "Blob Sr's WiFi").rstrip())
    assert re.search(r"Cafe Guest +\[##\.\]$", row(screen, "Cafe Guest").rstrip())
    assert "Up/Down move | Enter tap" in screen

    move_to(terminal, "Blob Jr's WiFi")
    terminal.keys("Enter")
    screen = terminal.wait_for_report(screen="connect", alert=None)
    assert 'Join "Blob Jr\'s WiFi"' in screen and re.search(r"^ +\+-{20,}\+$", screen, re.M), screen
    terminal.keys("blob")
    screen = terminal.wait(lambda shown: "Password: ****_" in shown, "four stars")
    assert screen.isascii(), screen
    terminal.keys("Enter")
    screen = terminal.wait_for_report(screen="connect", joining=True)
    assert "Joining..." in screen
    terminal.keys("+")
    terminal.wait_for_report(screen="list", selected="Blob Jr's WiFi")
    assert row(terminal.screen(), "Blob Jr's WiFi").startswith(" > *")

    move_to(terminal, "Cafe Guest")
    terminal.keys("i")
    screen = terminal.wait_for_report(screen="detail")
    assert 'Network "Cafe Guest"' in screen and "Signal:   [##.]  50%" in screen and screen.isascii(), screen
    terminal.keys("Escape")
    terminal.wait_for_report(screen="list")
    terminal.keys("q")
    assert terminal.wait_for_exit() == 0


@plain_build_only
def test_flow_is_clean_under_valgrind(tmp_path: Path, wifi_screen: Path):
    term = Terminal(tmp_path, timeout=60, env=clean_env())
    log = tmp_path / "valgrind.log"
    try:
        term.start("valgrind", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite",
                   # Deep enough for the suppressions' frames (see Tests/abi/conftest.py).
                   "--num-callers=100", f"--suppressions={SUPPRESSIONS}", f"--log-file={log}",
                   str(wifi_screen), "--manual-clock")
        join_flow(term)
        forget_flow(term)
        cancel_flow(term)
        term.keys("q")
        status = term.wait_for_exit()
    finally:
        term.kill()
    output = log.read_text()
    assert "Memcheck" in output
    assert status == 0, output[-4000:]
    assert "ERROR SUMMARY: 0 errors" in output
    assert "definitely lost: 0 bytes" in output or "no leaks are possible" in output
