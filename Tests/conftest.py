"""Fixtures every pytest suite of Tests/ shares: the debug build of the example library
and of `fusion`, built once per run (or taken from $FUSION_BIN_DIR)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def bin_dir() -> Path:
    """The debug bin dir with `fusion` and libFusionExamples.so, built if needed."""
    configured = os.environ.get("FUSION_BIN_DIR")
    if configured:
        return Path(configured)
    for product in ("FusionExamples", "fusion"):
        subprocess.run(["swift", "build", "--product", product], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return Path(subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.strip())


@pytest.fixture(scope="session")
def fusion(bin_dir: Path) -> Path:
    path = bin_dir / "fusion"
    assert path.exists(), f"{path} was not built"
    return path
