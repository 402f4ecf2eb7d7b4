"""SVG snapshots of each screen (pytest-textual-snapshot's `snap_compare`), at a fixed
terminal size on the manual clock. After a deliberate change to what a screen shows,
regenerate with `pytest Tests/textual --snapshot-update`, look at the SVGs under
__snapshots__, and commit them."""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from conftest import SIZE, Pilot, click, make_app, until
from counter_screen import CounterAlert
from textual.widgets import Input
from wifi_screen import ConnectSheet, DetailSheet, ForgetAlert, IncorrectPasswordAlert, NetworkRow, WiFiScreen

Compare = Callable[..., bool]


def steady(script: Callable[[Pilot], Awaitable[None]]) -> Callable[[Pilot], Awaitable[None]]:
    """Runs `script`, lets every animation finish (the Wi-Fi switch slides on; on a busy
    machine a picture taken at once caught it half way), then stops the text cursors
    blinking so that the picture is the same every time."""
    async def run_before(pilot: Pilot) -> None:
        await script(pilot)
        await pilot.wait_for_scheduled_animations()
        for screen in pilot.app.screen_stack:
            for field in screen.query(Input):
                field.cursor_blink = False
        await pilot.pause()
    return run_before


async def networks_shown(pilot: Pilot) -> WiFiScreen:
    screen = pilot.app.feature_screen
    assert isinstance(screen, WiFiScreen)
    await until(pilot, lambda: len(screen.query(NetworkRow)) == 4, "the networks")
    return screen


async def joining(pilot: Pilot) -> None:
    screen = await networks_shown(pilot)
    await pilot.press("down", "enter")  # Blob Jr's WiFi
    await until(pilot, lambda: isinstance(pilot.app.screen, ConnectSheet), "the connect sheet")
    await pilot.press(*"hunter2")
    await click(pilot, "#join")
    await until(pilot, lambda: screen.report()["joining"] is True, "joining")


def test_wifi_list(snap_compare: Compare) -> None:
    async def script(pilot: Pilot) -> None:
        await networks_shown(pilot)

    assert snap_compare(make_app("wifi", manual_clock=True), terminal_size=SIZE, run_before=steady(script))


def test_wifi_connect_sheet_joining(snap_compare: Compare) -> None:
    assert snap_compare(make_app("wifi", manual_clock=True), terminal_size=SIZE, run_before=steady(joining))


def test_wifi_incorrect_password_alert(snap_compare: Compare) -> None:
    async def script(pilot: Pilot) -> None:
        await joining(pilot)
        await pilot.press("plus")
        await until(pilot, lambda: isinstance(pilot.app.screen, IncorrectPasswordAlert), "the alert")

    assert snap_compare(make_app("wifi", manual_clock=True), terminal_size=SIZE, run_before=steady(script))


def test_wifi_detail_sheet(snap_compare: Compare) -> None:
    async def script(pilot: Pilot) -> None:
        await networks_shown(pilot)
        await pilot.press("i")  # Blob's WiFi, highlighted first
        await until(pilot, lambda: isinstance(pilot.app.screen, DetailSheet), "the detail sheet")

    assert snap_compare(make_app("wifi", manual_clock=True), terminal_size=SIZE, run_before=steady(script))


def test_wifi_forget_alert(snap_compare: Compare) -> None:
    """Cancel focused, Forget drawn as destructive, the alert's own footer."""
    async def script(pilot: Pilot) -> None:
        await networks_shown(pilot)
        await pilot.press("i")  # Blob's WiFi
        await until(pilot, lambda: isinstance(pilot.app.screen, DetailSheet), "the detail sheet")
        await click(pilot, "#forget")
        await until(pilot, lambda: isinstance(pilot.app.screen, ForgetAlert), "the alert")

    assert snap_compare(make_app("wifi", manual_clock=True), terminal_size=SIZE, run_before=steady(script))


def test_counter_with_its_alert(snap_compare: Compare) -> None:
    async def script(pilot: Pilot) -> None:
        await pilot.press("up", "up", "up", "s")
        await until(pilot, lambda: isinstance(pilot.app.screen, CounterAlert), "the alert")

    assert snap_compare(make_app("counter", manual_clock=True), terminal_size=SIZE, run_before=steady(script))


def profile_after(presses: int, **options: Any) -> Callable[[Pilot], Awaitable[None]]:
    async def script(pilot: Pilot) -> None:
        screen = pilot.app.feature_screen
        await until(pilot, lambda: screen.report()["loading"] is True, "loading")
        for _ in range(presses):
            await pilot.press("plus")
        await until(pilot, lambda: screen.report()["loading"] is False, "settled")
    return script


def test_profile_loaded(snap_compare: Compare) -> None:
    app = make_app("profile", manual_clock=True, delay=1.0)
    assert snap_compare(app, terminal_size=SIZE, run_before=steady(profile_after(4)))


def test_profile_with_an_error(snap_compare: Compare) -> None:
    app = make_app("profile", manual_clock=True, delay=1.0, fail="family")
    assert snap_compare(app, terminal_size=SIZE, run_before=steady(profile_after(2)))
