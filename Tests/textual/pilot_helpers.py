"""Waiting on a Textual app through its pilot: until what the screen shows holds, a click
that waits out the button's press effect, letting queued messages run. Shared by the
Textual tests and the three-renderer test (Tests/web/test_three_renderers.py)."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

Pilot = Any  # textual.pilot.Pilot[None]; kept loose for the helpers' signatures


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
