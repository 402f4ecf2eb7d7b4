"""Fixtures of the sandbox's tests: libFusionSandbox.so (debug build), the example library
built to WebAssembly, and the faulty test plugin (Tests/sandbox/Faulty) built likewise."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Wasm"))
import build as wasm_build  # noqa: E402

FAULTY_SOURCES = [ROOT / "Tests/sandbox/Faulty/Faulty.swift", ROOT / "Tests/sandbox/Faulty/Library.swift"]


@pytest.fixture(scope="session")
def sandbox_library(bin_dir: Path) -> Path:
    """libFusionSandbox.so of the debug build (built if needed; scripts/test's own build has it)."""
    if not os.environ.get("FUSION_BIN_DIR"):
        subprocess.run(["swift", "build", "--product", "FusionSandbox"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    path = bin_dir / "libFusionSandbox.so"
    assert path.exists(), f"{path} was not built"
    return path


@pytest.fixture(scope="session")
def examples_wasm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert not wasm_build.missing(), f"missing: {wasm_build.missing()}"
    return wasm_build.build(tmp_path_factory.mktemp("examples-wasm"))


@pytest.fixture(scope="session")
def faulty_wasm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert not wasm_build.missing(), f"missing: {wasm_build.missing()}"
    return wasm_build.build(tmp_path_factory.mktemp("faulty-wasm"), FAULTY_SOURCES, "Faulty")


@pytest.fixture(scope="session")
def sandbox_env(sandbox_library: Path) -> dict[str, str]:
    """The environment a Python program needs to run a .wasm plugin through the package."""
    return {**os.environ, "FUSIONKIT_SANDBOX_LIBRARY": str(sandbox_library),
            "PYTHONPATH": str(ROOT / "bindings" / "python")}
