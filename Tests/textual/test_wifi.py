"""The Wi-Fi settings screen (seed 003), driven as a person would: keys and clicks, and
the manual clock's `+` key where the feature waits a second. Assertions read what the
screen shows (widgets, modal screens, disabled buttons, `report()`)."""
from __future__ import annotations

from conftest import Pilot, click, drive, make_app, settle, until
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, ListView, Switch
from textual.widgets._footer import FooterKey
from wifi_screen import (
    ConnectSheet,
    DetailSheet,
    ForgetAlert,
    IncorrectPasswordAlert,
    NetworkRow,
    SectionHeader,
    WiFiScreen,
)


def shown(screen: WiFiScreen) -> dict[str, object]:
    return screen.report()


def rows(screen: WiFiScreen) -> list[tuple[str, bool, str, str]]:
    """(name, in "My Network", lock, bars) for each row shown, top to bottom."""
    result = []
    for row in screen.query_one("#networks", ListView).query(NetworkRow):
        result.append((row.shown_name(), row.has_class("selected"), str(row.query_one(".lock", Label).content),
                       str(row.query_one(".bars", Label).content)))
    return result


def headings(screen: WiFiScreen) -> list[str]:
    """The list's section headings, top to bottom."""
    return [str(item.query_one(Label).content) for item in screen.query_one("#networks", ListView).query(SectionHeader)]


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


def footer(screen: Screen[None]) -> list[tuple[str, str]]:
    """What the footer of `screen` shows: (key, what it does), left to right."""
    return [(key.key_display, key.description) for key in screen.query_one(Footer).query(FooterKey)]


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
        # The heading is the state's otherNetworksHeading: nothing is selected yet.
        assert headings(screen) == ["Networks"]
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
        # The feature's words (the state's incorrectPasswordAlert), as every front end shows them.
        assert app.screen.dialog().shown_message() == "Incorrect Password"
        assert str(app.screen.dialog().query_one("#detail", Label).content) == "The password for “Blob Jr's WiFi” is not correct."
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
        assert headings(screen) == ["My Network", "Other Networks"]  # the second is the state's

        await tap(pilot, screen, "Café Guest")  # the selected network: its details
        await until(pilot, lambda: isinstance(app.screen, DetailSheet), "the detail sheet")
        assert str(app.screen.query_one("#title", Label).content) == "Café Guest"
        # The network's securityLabel, as every screen words it.
        assert str(app.screen.query_one("#facts").content).startswith("Security  Open\n")  # type: ignore[attr-defined]
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


def test_w_turns_wifi_off_and_on_and_the_footer_says_so() -> None:
    """The switch is reachable from the keyboard, and the list's footer says how."""
    app = make_app("wifi", manual_clock=True)

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        await until(pilot, lambda: len(rows(screen)) == 4, "the networks")
        await until(pilot, lambda: ("w", "Wi-Fi on/off") in footer(screen), "w in the footer")
        assert ("i", "Info") in footer(screen)
        await pilot.press("w")
        await until(pilot, lambda: rows(screen) == [], "no networks")
        assert screen.query_one("#off-note", Label).display
        assert screen.query_one("#wifi-switch", Switch).value is False
        await pilot.press("w")
        await until(pilot, lambda: len(rows(screen)) == 4, "the networks again")
        assert screen.query_one("#wifi-switch", Switch).value is True

    drive(app, script)


def test_enter_never_forgets_by_default() -> None:
    """The safe choice has the focus: Done on the detail sheet, Cancel in the forget
    alert (whose Forget is drawn as destructive). Enter, Enter, Enter forgets nothing."""
    app = make_app("wifi", manual_clock=True)

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        await until(pilot, lambda: len(rows(screen)) == 4, "the networks")
        await tap(pilot, screen, "Café Guest")  # open: joined at once
        await until(pilot, lambda: shown(screen)["selected"] == "Café Guest", "Café Guest selected")

        await tap(pilot, screen, "Café Guest")  # its details
        await until(pilot, lambda: isinstance(app.screen, DetailSheet), "the detail sheet")
        await until(pilot, lambda: app.focused is not None, "a focused button")
        assert app.focused is not None and app.focused.id == "done"
        await pilot.press("enter")  # Done: the sheet closes
        await until(pilot, lambda: app.screen is screen, "the list")
        assert shown(screen)["selected"] == "Café Guest"

        await tap(pilot, screen, "Café Guest")
        await until(pilot, lambda: isinstance(app.screen, DetailSheet), "the detail sheet again")
        await click(pilot, "#forget")
        await until(pilot, lambda: isinstance(app.screen, ForgetAlert), "the forget alert")
        alert = app.screen
        assert isinstance(alert, ForgetAlert)
        await until(pilot, lambda: app.focused is not None, "a focused button")
        assert app.focused is alert.dialog().button("cancel")
        assert alert.dialog().button("confirm").variant == "error"
        await pilot.press("enter")  # Cancel
        await until(pilot, lambda: isinstance(app.screen, DetailSheet), "the detail sheet, the alert gone")
        assert shown(screen) == {"screen": "detail", "selected": "Café Guest", "alert": None, "joining": False}

    drive(app, script)


def test_each_screen_shows_its_own_keys() -> None:
    """An alert's footer is its own (esc dismisses it), not the sheet's under it."""
    app = make_app("wifi", manual_clock=True)

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        await until(pilot, lambda: len(rows(screen)) == 4, "the networks")
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, DetailSheet), "the detail sheet")
        sheet = app.screen
        await until(pilot, lambda: ("esc", "Close") in footer(sheet), "the sheet's footer")
        await click(pilot, "#forget")
        await until(pilot, lambda: isinstance(app.screen, ForgetAlert), "the forget alert")
        alert = app.screen
        await until(pilot, lambda: ("esc", "Dismiss") in footer(alert), "the alert's footer")
        assert ("esc", "Close") not in footer(alert)
        assert ("+", "+1 s") in footer(alert)  # the manual clock's key works here too
        region = alert.query_one(Footer).region
        assert region.bottom == alert.size.height and region.width == alert.size.width  # over the sheet's

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
