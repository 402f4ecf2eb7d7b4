"""The app is typed: `mypy --strict` passes over examples/textual with the checkout's
fusionkit and the generated fusion_examples (Textual ships its types), and ruff finds
nothing in it or in these tests."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import APP_DIR, ROOT


def test_mypy_strict(tmp_path: Path) -> None:
    env = {**os.environ, "MYPYPATH": f"{ROOT / 'bindings' / 'python'}:{ROOT / 'examples' / 'python'}"}
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
                             str(APP_DIR)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "examples/textual", "Tests/textual"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
