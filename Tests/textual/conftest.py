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
from pilot_helpers import Pilot, click, settle, until  # noqa: E402, F401 (the tests import them from here)

#: Every test and snapshot runs in this terminal size.
SIZE = (80, 30)


def make_app(feature: str, **options: Any) -> FusionApp:
    return FusionApp(feature, Options(**options))


def drive(app: FusionApp, script: Callable[[Pilot], Awaitable[None]]) -> None:
    """Runs the app headless at SIZE, lets it settle, then runs `script(pilot)`."""
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await script(pilot)
    asyncio.run(main())


@pytest.fixture
def app_factory() -> Callable[..., FusionApp]:
    return make_app
