"""Shared setup for the Textual front end's tests (examples/textual): the app driven
through Textual's pilot, as a person would, against the real libFusionExamples.so
(the debug build; $FUSIONKIT_LIB_DIR or $FUSIONKIT_LIBRARY choose another).

No async plugin is needed: each test runs its coroutine with asyncio.run."""
from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP_DIR = ROOT / "examples" / "textual"
# The app's modules, the checkout's fusionkit ahead of any installed copy, and the
# generated types (fusion_examples).
for path in (ROOT / "examples" / "python", ROOT / "bindings" / "python", APP_DIR):
    sys.path.insert(0, str(path))

if "FUSIONKIT_LIBRARY" not in os.environ:
    configured = os.environ.get("FUSIONKIT_LIB_DIR")
    library = Path(configured) if configured else ROOT / ".build" / "debug"
    if (library / "libFusionExamples.so").exists():
        os.environ["FUSIONKIT_LIBRARY"] = str(library / "libFusionExamples.so")

from app import FusionApp  # noqa: E402
from feature_screen import Options  # noqa: E402

#: Every test and snapshot runs in this terminal size.
SIZE = (80, 30)

Pilot = Any  # textual.pilot.Pilot[None]; kept loose for the helpers' signatures


def make_app(feature: str, **options: Any) -> FusionApp:
    return FusionApp(feature, Options(**options))


def drive(app: FusionApp, script: Callable[[Pilot], Awaitable[None]]) -> None:
    """Runs the app headless at SIZE, lets it settle, then runs `script(pilot)`."""
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await script(pilot)
    asyncio.run(main())


async def until(pilot: Pilot, condition: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    """Lets the app run until `condition()` holds (what the screen shows settles a few
    messages after a key), failing with `what` after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        await pilot.pause()
        try:
            if condition():
                return
        except Exception:  # a widget not mounted yet: look again
            pass
        if loop.time() > deadline:
            raise AssertionError(f"the screen never showed: {what}")
        await pilot.pause(0.01)


async def click(pilot: Pilot, selector: str) -> None:
    """Clicks a widget, then waits out a button's 0.2 s press effect: a button ignores
    clicks during it, and a snapshot would catch it half way."""
    assert await pilot.click(selector), f"nothing to click at {selector}"
    await until(pilot, lambda: not any(screen.query(".-active") for screen in pilot.app.screen_stack),
                "the press effect over")


async def settle(pilot: Pilot, rounds: int = 5) -> None:
    """Lets queued messages run, for checking that something did NOT happen."""
    for _ in range(rounds):
        await pilot.pause()
    await pilot.pause(0.05)


@pytest.fixture
def app_factory() -> Callable[..., FusionApp]:
    return make_app
