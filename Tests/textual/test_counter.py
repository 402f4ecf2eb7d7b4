"""The counter (seed 000): its buttons and keys, and the alert the state's `alert` holds."""
from __future__ import annotations

from conftest import Pilot, click, drive, make_app, until
from counter_screen import CounterAlert, CounterScreen


def shown(app_screen: CounterScreen) -> dict[str, object]:
    return app_screen.report()


def test_buttons_keys_and_the_alert() -> None:
    app = make_app("counter")

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        assert isinstance(screen, CounterScreen)
        await until(pilot, lambda: shown(screen)["value"] == "0", "0")
        await click(pilot, "#increase")
        await click(pilot, "#increase")
        await until(pilot, lambda: shown(screen)["value"] == "2", "2")
        await click(pilot, "#decrease")
        await until(pilot, lambda: shown(screen)["value"] == "1", "1")
        await pilot.press("up", "up")  # the keys send the same inputs
        await until(pilot, lambda: shown(screen)["value"] == "3", "3")

        await click(pilot, "#show")
        await until(pilot, lambda: isinstance(app.screen, CounterAlert), "the alert")
        await until(pilot, lambda: shown(screen)["alert"] == "The value is 3.", "the alert's text")
        await pilot.press("enter")  # OK
        await until(pilot, lambda: app.screen is screen, "the alert gone")
        assert shown(screen) == {"screen": "counter", "value": "3", "reset": False, "alert": None}

        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, CounterAlert), "the alert again")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "the alert gone again")

        await click(pilot, "#reset")
        await until(pilot, lambda: shown(screen)["value"] == "0", "reset to 0")
        assert shown(screen) == {"screen": "counter", "value": "0", "reset": True, "alert": None}

    drive(app, script)
