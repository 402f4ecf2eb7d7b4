"""The Wi-Fi settings screen (seed 003), driven as a person would: keys and clicks, and
the manual clock's `+` key where the feature waits a second. Assertions read what the
screen shows (widgets, modal screens, disabled buttons, `report()`)."""
from __future__ import annotations

from conftest import Pilot, click, drive, make_app, settle, until
from textual.content import Content
from textual.widgets import Button, Input, Label, ListView, Switch
from wifi_screen import ConnectSheet, DetailSheet, ForgetAlert, IncorrectPasswordAlert, NetworkRow, WiFiScreen


def shown(screen: WiFiScreen) -> dict[str, object]:
    return screen.report()


def rows(screen: WiFiScreen) -> list[tuple[str, bool, str, str]]:
    """(name, in MY NETWORK, lock, bars) for each row shown, top to bottom."""
    result = []
    for row in screen.query_one("#networks", ListView).query(NetworkRow):
        result.append((row.shown_name(), row.has_class("selected"), str(row.query_one(".lock", Label).content),
                       str(row.query_one(".bars", Label).content)))
    return result


def highlighted(screen: WiFiScreen) -> str | None:
    row = screen.query_one("#networks", ListView).highlighted_child
    return row.shown_name() if isinstance(row, NetworkRow) else None


async def highlight(pilot: Pilot, screen: WiFiScreen, name: str) -> None:
    """Moves the list's cursor down to `name`, one key at a time."""
    for _ in range(10):
        if highlighted(screen) == name:
            return
        await pilot.press("down")
    raise AssertionError(f"{name} is not in the list")


async def tap(pilot: Pilot, screen: WiFiScreen, name: str) -> None:
    await highlight(pilot, screen, name)
    await pilot.press("enter")


def test_the_list_shows_each_network_with_its_bars_and_lock() -> None:
    app = make_app("wifi", manual_clock=True)

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        await until(pilot, lambda: len(rows(screen)) == 4, "four networks")
        assert rows(screen) == [
            ("Blob's WiFi", False, "🔒", "▂▄▆"),
            ("Blob Jr's WiFi", False, "🔒", "▂▄▆"),
            ("Blob Sr's WiFi", False, "🔒", "▂▄▆"),
            ("Café Guest", False, "", "▂▄▆"),
        ]
        # The bars lit are the state's signalBars (3, 2, 1, 2): the others are drawn dim.
        lit = []
        for row in screen.query(NetworkRow):
            bars = row.query_one(".bars", Label).visual
            assert isinstance(bars, Content)
            lit.append(sum(len(bars.plain[span.start:span.end]) for span in bars.spans if "bold" in str(span.style)))
        assert lit == [3, 2, 1, 2]
        assert shown(screen) == {"screen": "list", "selected": None, "alert": None, "joining": False}
        assert screen.query_one("#wifi-switch", Switch).value is True

    drive(app, script)


def test_seed_003_join_flow_on_the_manual_clock() -> None:
    app = make_app("wifi", manual_clock=True)

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        await until(pilot, lambda: len(rows(screen)) == 4, "the networks")
        await tap(pilot, screen, "Blob Jr's WiFi")
        await until(pilot, lambda: isinstance(app.screen, ConnectSheet), "the connect sheet")
        sheet = app.screen
        assert "Blob Jr's WiFi" in str(sheet.query_one("#title", Label).content)
        assert shown(screen) == {"screen": "connect", "selected": None, "alert": None, "joining": False}
        join, password = sheet.query_one("#join", Button), sheet.query_one("#password", Input)
        assert not join.disabled and not password.disabled and app.focused is password

        await pilot.press(*"hunter2")
        await click(pilot, "#join")
        await until(pilot, lambda: shown(screen)["joining"] is True, "joining")
        assert join.disabled and password.disabled  # the state's isJoinEnabled, isPasswordEditable
        assert shown(screen) == {"screen": "connect", "selected": None, "alert": None, "joining": True}

        await pilot.press("plus")  # one second: the join finishes, wrong password
        await until(pilot, lambda: isinstance(app.screen, IncorrectPasswordAlert), "the incorrect-password alert")
        assert app.screen.dialog().shown_message() == "Incorrect password for “Blob Jr's WiFi”"
        assert shown(screen) == {"screen": "connect", "selected": None, "alert": "incorrect-password",
                                 "joining": False}

        await pilot.press("enter")  # OK
        await until(pilot, lambda: app.screen is sheet, "the sheet again")
        assert shown(screen)["alert"] is None
        await until(pilot, lambda: app.focused is password, "the password focused")
        assert not join.disabled and not password.disabled

        await pilot.press(*"blob")  # replaces the selected "hunter2"
        assert password.value == "blob"
        await click(pilot, "#join")
        await until(pilot, lambda: shown(screen)["joining"] is True, "joining again")
        await pilot.press("plus")
        await until(pilot, lambda: app.screen is screen, "the sheet gone")
        assert shown(screen) == {"screen": "list", "selected": "Blob Jr's WiFi", "alert": None, "joining": False}
        assert [(name, mine) for name, mine, _, _ in rows(screen)] == [
            ("Blob Jr's WiFi", True), ("Blob's WiFi", False), ("Blob Sr's WiFi", False), ("Café Guest", False)]

    drive(app, script)


def test_forget_asks_for_confirmation() -> None:
    app = make_app("wifi", manual_clock=True)

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        await until(pilot, lambda: len(rows(screen)) == 4, "the networks")
        await tap(pilot, screen, "Café Guest")  # open: joined at once
        await until(pilot, lambda: shown(screen)["selected"] == "Café Guest", "Café Guest selected")
        assert shown(screen)["screen"] == "list"

        await tap(pilot, screen, "Café Guest")  # the selected network: its details
        await until(pilot, lambda: isinstance(app.screen, DetailSheet), "the detail sheet")
        assert str(app.screen.query_one("#title", Label).content) == "Café Guest"
        assert shown(screen) == {"screen": "detail", "selected": "Café Guest", "alert": None, "joining": False}

        await click(pilot, "#forget")
        await until(pilot, lambda: isinstance(app.screen, ForgetAlert), "the forget alert")
        assert shown(screen)["alert"] == "forget"
        await pilot.press("escape")  # not now
        await until(pilot, lambda: isinstance(app.screen, DetailSheet), "the detail sheet again")
        assert shown(screen) == {"screen": "detail", "selected": "Café Guest", "alert": None, "joining": False}

        await click(pilot, "#forget")
        await until(pilot, lambda: isinstance(app.screen, ForgetAlert), "the forget alert again")
        await click(pilot, "#confirm")
        await until(pilot, lambda: app.screen is screen, "the list")
        assert shown(screen) == {"screen": "list", "selected": None, "alert": None, "joining": False}
        assert ("Café Guest", False) in [(name, mine) for name, mine, _, _ in rows(screen)]

    drive(app, script)


def test_info_opens_any_networks_details_and_escape_closes_them() -> None:
    app = make_app("wifi", manual_clock=True)

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        await until(pilot, lambda: len(rows(screen)) == 4, "the networks")
        await highlight(pilot, screen, "Blob Sr's WiFi")
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, DetailSheet), "the detail sheet")
        assert str(app.screen.query_one("#title", Label).content) == "Blob Sr's WiFi"
        assert "30%" in str(app.screen.query_one("#facts").content)  # type: ignore[attr-defined]
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "the list")
        assert shown(screen) == {"screen": "list", "selected": None, "alert": None, "joining": False}
        # The row's "(i)" does the same with the mouse, and is not a tap on the row.
        await click(pilot, "NetworkRow .info")
        await until(pilot, lambda: isinstance(app.screen, DetailSheet), "the detail sheet by click")
        assert str(app.screen.query_one("#title", Label).content) == "Blob's WiFi"

    drive(app, script)


def test_dismissing_the_sheet_cancels_a_join_in_progress() -> None:
    app = make_app("wifi", manual_clock=True)

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        await until(pilot, lambda: len(rows(screen)) == 4, "the networks")
        await tap(pilot, screen, "Blob's WiFi")
        await until(pilot, lambda: isinstance(app.screen, ConnectSheet), "the connect sheet")
        await pilot.press(*"blob")
        await pilot.press("enter")  # Enter in the password joins too
        await until(pilot, lambda: shown(screen)["joining"] is True, "joining")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "the list")
        await pilot.press("plus", "plus")  # the join would have finished: it was cancelled
        await settle(pilot)
        assert shown(screen) == {"screen": "list", "selected": None, "alert": None, "joining": False}

    drive(app, script)


def test_wifi_off_hides_the_networks() -> None:
    app = make_app("wifi", manual_clock=True)

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        await until(pilot, lambda: len(rows(screen)) == 4, "the networks")
        assert not screen.query_one("#off-note", Label).display
        await click(pilot, "#wifi-switch")
        await until(pilot, lambda: rows(screen) == [], "no networks")
        assert screen.query_one("#off-note", Label).display
        assert screen.query_one("#wifi-switch", Switch).value is False
        await click(pilot, "#wifi-switch")
        await until(pilot, lambda: len(rows(screen)) == 4, "the networks again")

    drive(app, script)


def test_join_on_the_system_clock_arrives_from_a_library_thread() -> None:
    """Without --manual-clock the join takes a real second and its result comes through
    the subscription on the library's thread, posted to Textual's."""
    app = make_app("wifi")

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        await until(pilot, lambda: len(rows(screen)) == 4, "the networks")
        await tap(pilot, screen, "Blob's WiFi")
        await until(pilot, lambda: isinstance(app.screen, ConnectSheet), "the connect sheet")
        await pilot.press(*"blob", "enter")
        await until(pilot, lambda: shown(screen)["joining"] is True, "joining")
        await until(pilot, lambda: shown(screen)["selected"] == "Blob's WiFi", "joined", timeout=10)
        assert shown(screen) == {"screen": "list", "selected": "Blob's WiFi", "alert": None, "joining": False}

    drive(app, script)


def test_appeared_and_disappeared_and_closed() -> None:
    app = make_app("wifi", manual_clock=True, live_scan=True)
    scanning: list[bool] = []

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        assert isinstance(screen, WiFiScreen)
        await until(pilot, lambda: len(rows(screen)) >= 2, "the networks")
        scanning.append(screen.instance.state["isScanning"])  # screenAppeared started the live scan
        screen.instance.subscribe(lambda _version: scanning.append(screen.instance.state["isScanning"]))

    drive(app, script)
    assert scanning == [True, False]  # screenDisappeared stopped it, on unmount
    assert app.feature_screen.instance.closed  # then the instance was closed
