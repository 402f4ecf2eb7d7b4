"""The command line: one command runs the app, finding fusionkit and the generated
types in the checkout when nothing is installed."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from app import FusionApp, parse
from conftest import APP_DIR, ROOT, Pilot, drive, until
from feature_screen import Options


def test_the_script_runs_from_the_checkout_without_installing_anything() -> None:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run([sys.executable, str(APP_DIR / "app.py"), "--help"], cwd="/", env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "{wifi,counter,profile}" in result.stdout and "--manual-clock" in result.stdout
    assert (ROOT / "examples" / "python" / "fusion_examples" / "__init__.py").exists()


def test_options() -> None:
    assert parse([]) == ("wifi", Options())
    assert parse(["profile", "--manual-clock", "--delay", "1.5", "--fail", "babyProfile"]) == (
        "profile", Options(manual_clock=True, delay=1.5, fail="babyProfile"))
    assert parse(["wifi", "--live-scan"]) == ("wifi", Options(live_scan=True))
    for wrong in (["nope"], ["profile", "--fail", "cat"], ["profile", "--delay", "-1"]):
        with pytest.raises(SystemExit):
            parse(wrong)


def test_the_clock_key_is_shown_only_on_the_manual_clock() -> None:
    for manual in (True, False):
        app = FusionApp("counter", Options(manual_clock=manual))

        async def script(pilot: Pilot, app: FusionApp = app, manual: bool = manual) -> None:
            await until(pilot, lambda: ("plus" in app.screen.active_bindings) is manual, "the + binding")
            await pilot.press("plus")  # on the system clock nothing happens (and nothing breaks)

        drive(app, script)
