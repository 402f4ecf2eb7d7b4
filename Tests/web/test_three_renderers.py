"""One script, three renderers (issue 25): the inputs of a seed-003 scenario played, as a
person would make them, into the Textual app (examples/textual), the ncurses program
(examples/c/wifi_screen.c, in tmux) and the web page (examples/web/wifi.html, in
Chromium). After each step each front end reports what it shows, read from its own
widgets, screen or DOM: which screen, the selected network, the alert, whether it is
joining. The three reports must be equal, step by step, and equal to what the feature's
state says should show (the same scenario run through the Python package)."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bridge import ROOT, Server
from conftest import Browser

for folder in ("Tests/abi", "Tests/textual", "examples/textual", "examples/python", "bindings/python"):
    sys.path.insert(0, str(ROOT / folder))

import fusionkit  # noqa: E402
from ncurses_report import report as ncurses_report  # noqa: E402
from ncurses_terminal import Terminal  # noqa: E402
from pilot_helpers import Pilot, click, until  # noqa: E402

SCENARIOS = ["wifi-wrong-password", "wifi-dismiss-while-joining"]
NETWORK_NAMES = {"blob": "Blob's WiFi", "blob-jr": "Blob Jr's WiFi", "blob-sr": "Blob Sr's WiFi", "cafe": "Café Guest"}
Report = dict[str, Any]


def steps_of(name: str) -> list[dict[str, Any]]:
    scenario = json.loads((ROOT / "examples" / "scenarios" / f"{name}.scenario.json").read_text())
    assert scenario["feature"] == "wifi" and scenario["options"] == {"settings": {"liveScan": False}}
    return scenario["steps"]


def should_show(state: dict[str, Any]) -> Report:
    """What a Wi-Fi screen shows for a state: the one meaning all three must draw."""
    destination = state["destination"] or {}
    connect, detail = destination.get("connect"), destination.get("detail")
    alert = ("incorrect-password" if connect and connect["incorrectPasswordAlertIsPresented"]
             else "forget" if detail and detail["forgetAlertIsPresented"] else None)
    return {"screen": "connect" if connect else "detail" if detail else "list",
            "selected": state["selectedNetwork"]["name"] if state["selectedNetwork"] else None,
            "alert": alert, "joining": bool(connect and connect["isConnecting"])}


def expected_reports(library: Path, steps: list[dict[str, Any]]) -> list[Report]:
    lib = fusionkit.load(library)
    with lib.create("wifi", clock="manual", settings={"liveScan": False}) as wifi:
        wifi.send("screenAppeared")
        shown = []
        for step in steps:
            if "advance" in step:
                wifi.advance_clock(step["advance"])
            else:
                wifi.send(step["send"])
            shown.append(should_show(wifi.state))
        return shown


def case_of(step: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """("advance", {"seconds": 1}) or the input's case and fields."""
    if "advance" in step:
        return "advance", {"seconds": step["advance"]}
    sent = step["send"]
    if isinstance(sent, str):
        return sent, {}
    (name, fields), = sent.items()
    return name, fields or {}


# -- the web page -------------------------------------------------------------------------

class WebPage:
    def __init__(self, browser: Browser, server: Server) -> None:
        self.b = browser
        self.server = server
        browser.open("wifi.html?clock=manual&liveScan=false")
        # A second connection of the page's session (as a second tab would be) moves
        # the manual clock: the demo page has no control for it.
        session = browser.driver.execute_script('return sessionStorage.getItem("fusionkit.session")')
        self.clock = server.connect(session=session)
        (self.instance,) = [item["instance"] for item in self.clock.welcome["instances"]]

    def act(self, case: str, fields: dict[str, Any]) -> None:
        b = self.b
        if case == "networkTapped":
            b.driver.find_element("css selector", f'li[data-id="{fields["id"]}"] .net-main').click()
        elif case == "passwordChanged":
            if b.find("password").is_enabled():  # a person cannot type into a disabled field
                b.type("password", fields["password"], replace=True)
        elif case == "joinButtonTapped":
            b.find("join").click()
        elif case == "incorrectPasswordAlertDismissed":
            b.click("alert-ok")
        elif case == "destinationDismissed":
            b.click("cancel")
        elif case == "advance":
            reply, _ = self.clock.call(type="advanceClock", instance=self.instance, seconds=fields["seconds"])
            assert reply["type"] == "ok", reply
        else:
            raise AssertionError(f"no way to make {case} on the page")

    def report(self) -> Report:
        return self.b.driver.execute_script("""
            const open = (test) => document.querySelector(`[data-test="${test}"]`).open;
            const selected = document.querySelector('[data-test="selected-network"] [data-test="network-name"]');
            const joining = document.querySelector('[data-test="joining"]');
            return {screen: open("connect-sheet") ? "connect" : open("detail-sheet") ? "detail" : "list",
                    selected: selected ? selected.textContent : null,
                    alert: open("incorrect-password-alert") ? "incorrect-password" : open("forget-alert") ? "forget" : null,
                    joining: !joining.hidden && joining.getClientRects().length > 0};""")

    def close(self) -> None:
        self.clock.close()


# -- the ncurses program ---------------------------------------------------------------------

class CursesScreen:
    def __init__(self, terminal: Terminal, program: Path) -> None:
        self.term = terminal
        terminal.start(str(program), "--manual-clock")
        terminal.wait_for_text("manual clock: 0s")
        self.password = ""

    def act(self, case: str, fields: dict[str, Any]) -> None:
        term = self.term
        if case == "networkTapped":
            self.move_to(NETWORK_NAMES[fields["id"]])
            term.keys("Enter")
        elif case == "passwordChanged":
            if "Joining…" not in term.screen():  # the field is not editable while joining
                term.keys(*["BSpace"] * len(self.password), fields["password"])
                self.password = fields["password"]
        elif case in ("joinButtonTapped", "incorrectPasswordAlertDismissed"):
            term.keys("Enter")
        elif case == "destinationDismissed":
            term.keys("Escape")
        elif case == "advance":
            for _ in range(int(fields["seconds"])):
                term.keys("+")
        else:
            raise AssertionError(f"no way to make {case} in the ncurses program")

    def move_to(self, name: str) -> None:
        def rows_of(screen: str) -> list[str]:
            return [line for line in screen.splitlines() if line.startswith((" > ", "   ")) and name in line]

        for _ in range(10):
            screen = self.term.wait(lambda shown: bool(rows_of(shown)), f"the row of {name!r}")
            rows = rows_of(screen)
            if rows and rows[0].startswith(" > "):
                return
            self.term.keys("Down")
            self.term.wait(lambda shown, before=screen: shown != before, "the cursor to move")
        raise AssertionError(f"the cursor never reached {name!r}:\n{self.term.screen()}")

    def report(self) -> Report:
        return ncurses_report(self.term.screen())


# -- the Textual app ------------------------------------------------------------------------

class TextualScreen:
    def __init__(self, pilot: Pilot) -> None:
        self.pilot = pilot
        self.app = pilot.app

    async def act(self, case: str, fields: dict[str, Any]) -> None:
        from textual.widgets import Input, ListView
        from wifi_screen import NetworkRow
        pilot, app = self.pilot, self.app
        screen = app.feature_screen
        if case == "networkTapped":
            listing = screen.query_one("#networks", ListView)
            for _ in range(10):
                child = listing.highlighted_child
                if isinstance(child, NetworkRow) and child.network_id == fields["id"]:
                    break
                await pilot.press("down")
            else:  # a missed step fails here, not by tapping whichever row is highlighted
                raise AssertionError(f"the highlight never reached {fields['id']!r}: {listing.highlighted_child}")
            await pilot.press("enter")
        elif case == "passwordChanged":
            field = app.screen.query_one("#password", Input)
            if not field.disabled:
                field.value = ""
                await pilot.press(*fields["password"])
        elif case == "joinButtonTapped":
            await click(pilot, "#join")
        elif case == "incorrectPasswordAlertDismissed":
            await pilot.press("enter")
        elif case == "destinationDismissed":
            await pilot.press("escape")
        elif case == "advance":
            for _ in range(int(fields["seconds"])):
                await pilot.press("plus")
        else:
            raise AssertionError(f"no way to make {case} in the Textual app")

    def report(self) -> Report:
        return self.app.feature_screen.report()


# -- the test ------------------------------------------------------------------------------

def wait_for(report: Callable[[], Report], expected: Report, who: str, step: str, timeout: float = 10) -> Report:
    deadline = time.monotonic() + timeout
    while (shown := report()) != expected:
        if time.monotonic() > deadline:
            raise AssertionError(f"{step}: {who} shows {shown}, the state says {expected}")
        time.sleep(0.02)
    return shown


@pytest.fixture(scope="module")
def wifi_screen_program(bin_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ncurses") / "wifi_screen"
    subprocess.run([os.environ.get("CC") or "cc", "-std=c11", "-pthread", f"-I{ROOT / 'include'}",
                    str(ROOT / "examples/c/wifi_screen.c"), f"-L{bin_dir}", "-lFusionExamples", "-lncursesw",
                    f"-Wl,-rpath,{bin_dir}", "-o", str(out)], check=True)
    return out


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_three_renderers_show_the_same_step_by_step(browser: Browser, server: Server, bin_dir: Path,
                                                     wifi_screen_program: Path, tmp_path: Path, scenario: str) -> None:
    os.environ["FUSIONKIT_LIBRARY"] = str(bin_dir / "libFusionExamples.so")
    from app import FusionApp
    from feature_screen import Options

    steps = steps_of(scenario)
    expected = expected_reports(bin_dir / "libFusionExamples.so", steps)
    environment = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root")}
    terminal = Terminal(tmp_path, timeout=10, env=environment)
    page = WebPage(browser, server)
    curses = CursesScreen(terminal, wifi_screen_program)
    app = FusionApp("wifi", Options(manual_clock=True))
    table: list[tuple[str, Report, Report, Report]] = []

    async def play() -> None:
        async with app.run_test(size=(80, 30)) as pilot:
            textual = TextualScreen(pilot)
            await until(pilot, lambda: len(app.feature_screen.report()) == 4, "the Wi-Fi screen")
            for index, (step, wanted) in enumerate(zip(steps, expected, strict=True)):
                case, fields = case_of(step)
                label = f"step {index + 1} ({case})"
                await textual.act(case, fields)
                page.act(case, fields)
                curses.act(case, fields)
                await until(pilot, lambda wanted=wanted: textual.report() == wanted,
                            f"{label}: the Textual app showing {wanted} (it shows {textual.report()})", timeout=10)
                table.append((label, textual.report(), wait_for(curses.report, wanted, "ncurses", label),
                              wait_for(page.report, wanted, "the web page", label)))

    try:
        asyncio.run(play())
    finally:
        page.close()
        terminal.kill()
    browser.screenshot(f"three-renderers-{scenario}")
    assert len(table) == len(steps)
    for label, textual_shown, curses_shown, web_shown in table:
        assert textual_shown == curses_shown == web_shown, label
