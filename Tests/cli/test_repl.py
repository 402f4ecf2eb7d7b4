"""`fusion run` in a real terminal: tmux runs it, send-keys types, capture-pane reads
what the screen shows."""
from __future__ import annotations

import re

from fusion_cli import Tmux

# capture-pane drops trailing spaces, so a prompt alone reads "counter>".
PROMPT = "counter> "


def start_counter(tmux, fusion, *extra: str, env: dict[str, str] | None = None) -> None:
    tmux.start(str(fusion), "run", "counter", *extra, env=env)
    tmux.wait_for(PROMPT.rstrip())
    tmux.wait_for('v0 {"value":0,"isReset":false,"alert":null}')


def test_the_state_is_shown_after_each_input(tmux, fusion):
    start_counter(tmux, fusion)
    tmux.type("increase")
    tmux.wait_for('v1 {"value":1,"isReset":false,"alert":null}')
    tmux.type("increase")
    tmux.type("show")
    screen = tmux.wait_for('v3 {"value":2,"isReset":false,"alert":"The value is 2."}')
    assert f"{PROMPT}increase\n" in screen and f"{PROMPT}show\n" in screen


def test_an_error_is_printed_and_the_session_and_its_state_go_on(tmux, fusion):
    start_counter(tmux, fusion)
    tmux.type("increase")
    tmux.wait_for('v1 {"value":1,')
    tmux.type("jump")
    tmux.wait_for('error: FK_ERR_UNKNOWN_INPUT: unknown input "jump"')
    tmux.type("answerChanged text")  # not even an input of this shape
    tmux.wait_for("error: expected field=value")
    tmux.type("increase")
    screen = tmux.wait_for('v2 {"value":2,')
    assert "[exited" not in screen


def test_tab_completes_case_names_and_field_names(tmux, fusion):
    start_counter(tmux, fusion)
    tmux.keys("incr", "Tab")
    tmux.wait_for(f"{PROMPT}increase")
    tmux.keys("Enter")
    tmux.wait_for('v1 {"value":1,')
    # Two candidates share "a" only: a second Tab lists them.
    tmux.keys("a", "Tab")
    tmux.wait_for(f"{PROMPT}alertDismissed")
    tmux.keys("C-u", "re", "Tab", "Tab")
    tmux.wait_for(f"{PROMPT}reset")
    tmux.keys("C-u", ":d", "Tab", "Enter")
    tmux.wait_for("increase changed (v0 → v1):")


def test_tab_completes_field_names_after_the_case(tmux, fusion):
    tmux.start(str(fusion), "run", "answer")
    tmux.wait_for("answer>")
    tmux.keys("answerC", "Tab")
    tmux.wait_for("answer> answerChanged")
    tmux.keys("t", "Tab")  # the completion added a space: "t" starts the field
    tmux.wait_for("answer> answerChanged text=")
    tmux.keys('"tab done"', "Enter")
    tmux.wait_for('"answer":"tab done"')


def test_up_arrow_recalls_history_and_down_comes_back(tmux, fusion):
    start_counter(tmux, fusion)
    tmux.type("increase")
    tmux.wait_for('v1 {"value":1,')
    tmux.type("show")
    tmux.wait_for('"alert":"The value is 1."')
    tmux.keys("dec")  # a line being written is kept while walking the history
    tmux.keys("Up")
    tmux.wait_for(f"{PROMPT}show")
    tmux.keys("Up")
    tmux.wait_for(f"{PROMPT}increase")
    tmux.keys("Down", "Down")
    tmux.wait_for(re.compile(rf"{PROMPT}dec\s*$", re.M).pattern, regex=True)
    tmux.keys("C-u", "Up", "Up", "Enter")
    tmux.wait_for('v3 {"value":2,')


def test_line_editing_keys(tmux, fusion):
    start_counter(tmux, fusion)
    # Type with mistakes, then mend them: backspace, left/right, Home/End.
    tmux.keys("icreasX", "BSpace", "e")
    tmux.wait_for(f"{PROMPT}icrease")
    tmux.keys("Home", "Right", "n")
    tmux.wait_for(f"{PROMPT}increase")
    # From the end, seven to the left is just after the "i": Delete takes the "n" out again.
    tmux.keys("End", "Left", "Left", "Left", "Left", "Left", "Left", "Left", "DC", "Enter")
    screen = tmux.wait_for(r"error: FK_ERR_UNKNOWN_INPUT: unknown input \"icrease\"|v1 ", regex=True)
    assert 'unknown input "icrease"' in screen
    tmux.keys("Up", "Home", "Right", "n", "Enter")
    tmux.wait_for('v1 {"value":1,')


def test_changes_from_effects_are_marked_as_they_arrive(tmux, fusion):
    tmux.start(str(fusion), "run", "answer")
    tmux.wait_for("answer>")
    tmux.type('answerChanged text="from the test"')
    tmux.wait_for('v1 {"answer":"from the test","isSubmitEnabled":true')
    tmux.type("submitTapped")
    tmux.wait_for('"isSubmitting":true')
    # The answer is sent after half a second, by an effect on another thread.
    screen = tmux.wait_for(r'⟳ v3 \(from an effect\)[\s\S]*"submitted": ?"from the test"', regex=True)
    assert screen.rstrip().endswith("answer>")  # the prompt is drawn again below it
    tmux.type(":diff")
    tmux.wait_for("then effects changed (v2 → v3):")


def test_quit_restores_the_terminal(tmux, fusion):
    start_counter(tmux, fusion)
    tmux.type(":quit")
    screen = tmux.wait_for(r"\[exited 0\]\n-?icanon", regex=True)
    assert "[exited 0]\nicanon" in screen  # canonical mode again, not -icanon


def test_ctrl_d_on_an_empty_line_ends_the_session(tmux, fusion):
    start_counter(tmux, fusion)
    tmux.keys("C-d")
    tmux.wait_for("[exited 0]")


def test_colour_in_a_terminal_and_none_with_no_color(tmux, fusion):
    start_counter(tmux, fusion)
    coloured = tmux.wait_for("counter", escapes=True)
    assert "\x1b[" in coloured
    other = Tmux(tmux.socket + "-nocolor", tmux.workdir)
    try:
        other.start(str(fusion), "run", "counter", env={"NO_COLOR": "1"})
        other.wait_for(PROMPT.rstrip())
        plain = other.wait_for('v0 {"value":0', escapes=True)
        assert "\x1b[" not in plain
    finally:
        other.kill()


def test_a_state_wider_than_the_terminal_goes_one_field_per_line(tmux, fusion):
    tmux.start(str(fusion), "run", "counter", width=40)
    screen = tmux.wait_for('  "alert": null\n}', timeout=15)
    assert 'v0 {\n  "value": 0,\n  "isReset": false,\n' in screen
    tmux.type("increase")
    tmux.wait_for('v1 {\n  "value": 1,')
