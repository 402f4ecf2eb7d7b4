"""Fixtures every pytest suite of Tests/ shares: the debug build of the example library
and of `fusion`, built once per run (or taken from $FUSION_BIN_DIR)."""
from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
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


@pytest.fixture(scope="session")
def build_bare_library(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """Builds Tests/libraries/bare_library.c, a FusionKit library in C (see its header):
    `build(version="1.0.0", broken_manifest=False, poison=False)` returns the path of that build."""
    built: dict[tuple[str, bool, bool], Path] = {}

    def build(version: str = "1.0.0", broken_manifest: bool = False, poison: bool = False) -> Path:
        key = (version, broken_manifest, poison)
        if key not in built:
            out = tmp_path_factory.mktemp("bare") / "libBare.so"
            flags = [f'-DBARE_VERSION="{version}"'] + (["-DBARE_BROKEN_MANIFEST"] if broken_manifest else []) \
                + (["-DBARE_POISON"] if poison else [])
            subprocess.run([os.environ.get("CC") or "cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fPIC",
                            "-shared", "-pthread", *flags, f"-I{ROOT / 'include'}",
                            str(ROOT / "Tests" / "libraries" / "bare_library.c"), "-o", str(out)], check=True)
            built[key] = out
        return built[key]

    return build
