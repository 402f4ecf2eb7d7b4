"""The profile store (seed 004) with this app as the host: loading on mount, each part
appearing as its answer arrives, a failed part's error with Retry and Dismiss. On the
manual clock with --delay 1, each `+` brings the next answer."""
from __future__ import annotations

from conftest import Pilot, click, drive, make_app, settle, until
from profile_screen import ProfileScreen

LOADED = {
    "pet": "Dubu\ncat, 4 years old",
    "family": "Yuna (mother)\nJoon (father)",
    "preschool": "Maple\nclass Owls, Mr. Seo",
    "babyProfile": "Haneul\nborn 2024-02-29\n84 cm, 11.2 kg",
}
NONE: dict[str, str | None] = dict.fromkeys(LOADED)


def shown(screen: ProfileScreen) -> dict[str, object]:
    return screen.report()


def test_each_part_appears_as_its_answer_arrives() -> None:
    app = make_app("profile", manual_clock=True, delay=1.0)

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        assert isinstance(screen, ProfileScreen)
        await until(pilot, lambda: shown(screen)["loading"] is True, "loading")  # loadAllProfiles on mount
        assert shown(screen) == {"screen": "profile", "loading": True, "parts": NONE,
                                 "pending": ["pet", "family", "preschool", "babyProfile"], "error": None}
        for count, part in enumerate(LOADED, 1):
            await pilot.press("plus")
            await until(pilot, lambda part=part: shown(screen)["parts"][part] is not None, f"the {part}")  # type: ignore[index]
            parts = shown(screen)["parts"]
            assert parts == {name: LOADED[name] if index < count else None for index, name in enumerate(LOADED)}
        await until(pilot, lambda: shown(screen)["loading"] is False, "loaded")
        assert shown(screen) == {"screen": "profile", "loading": False, "parts": LOADED, "pending": [], "error": None}

    drive(app, script)


def test_a_failed_part_shows_the_error_and_retry_loads_again() -> None:
    app = make_app("profile", manual_clock=True, delay=1.0, fail="family")

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        assert isinstance(screen, ProfileScreen)
        await until(pilot, lambda: shown(screen)["loading"] is True, "loading")
        await pilot.press("plus")  # the pet
        await until(pilot, lambda: shown(screen)["parts"]["pet"] is not None, "the pet")  # type: ignore[index]
        await pilot.press("plus")  # the family fails: the others are cancelled
        await until(pilot, lambda: shown(screen)["error"] is not None, "the error")
        assert shown(screen) == {"screen": "profile", "loading": False, "parts": {**NONE, "pet": LOADED["pet"]},
                                 "pending": [], "error": "Could not load the family profile: the server is down"}
        await pilot.press("plus", "plus")  # nothing more comes: the other fetches were cancelled
        await settle(pilot)
        assert shown(screen)["parts"] == {**NONE, "pet": LOADED["pet"]}

        await click(pilot, "#retry")
        await until(pilot, lambda: shown(screen)["error"] is None and shown(screen)["loading"] is True, "loading again")
        await pilot.press("plus", "plus", "plus", "plus")  # fails only once
        await until(pilot, lambda: shown(screen)["loading"] is False, "loaded")
        assert shown(screen) == {"screen": "profile", "loading": False, "parts": LOADED, "pending": [], "error": None}

    drive(app, script)


def test_dismissing_the_error() -> None:
    app = make_app("profile", manual_clock=True, delay=1.0, fail="pet")

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        assert isinstance(screen, ProfileScreen)
        await until(pilot, lambda: shown(screen)["loading"] is True, "loading")
        await pilot.press("plus")
        await until(pilot, lambda: shown(screen)["error"] is not None, "the error")
        await click(pilot, "#dismiss")
        await until(pilot, lambda: shown(screen)["error"] is None, "the error gone")
        assert shown(screen) == {"screen": "profile", "loading": False, "parts": NONE, "pending": [], "error": None}
        await click(pilot, "#load")
        await until(pilot, lambda: shown(screen)["loading"] is True, "loading again")

    drive(app, script)


def test_answers_on_real_time_arrive_from_the_library() -> None:
    """Without --manual-clock the host answers on Textual timers after --delay."""
    app = make_app("profile", delay=0.05)

    async def script(pilot: Pilot) -> None:
        screen = app.feature_screen
        assert isinstance(screen, ProfileScreen)
        await until(pilot, lambda: shown(screen)["parts"] == LOADED, "every part", timeout=10)
        await until(pilot, lambda: shown(screen)["loading"] is False, "loaded")

    drive(app, script)
