"""Fixtures for plugins written outside FusionKit: the example plugin package
(examples/plugins/chores) built as its own package, the example library, fusion."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "plugins" / "chores"
sys.path.insert(0, str(ROOT / "bindings" / "python"))


def swift_build(package: Path, *args: str) -> Path:
    """Builds a package (its own .build folder) and returns its debug bin folder."""
    subprocess.run(["swift", "build", *args], cwd=package, check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=package, check=True,
                         capture_output=True, text=True).stdout.strip()
    return Path(out)


def library_file_name(name: str) -> str:
    import fusionkit._native
    return fusionkit._native.library_file_name(name)


@pytest.fixture(scope="session")
def examples_library(bin_dir: Path) -> Path:
    return bin_dir / library_file_name("FusionExamples")


@pytest.fixture(scope="session")
def chores_library() -> Path:
    """examples/plugins/chores built as an outsider builds it: `swift build` in its folder.
    With its tests (as Tests/web builds it): its own spec's `swift test` then compiles
    nothing again."""
    path = swift_build(PLUGIN, "--build-tests") / library_file_name("Chores")
    assert path.exists(), f"{path} was not built"
    return path


@pytest.fixture(scope="session")
def cc() -> str:
    return os.environ.get("CC") or shutil.which("cc") or "gcc"
