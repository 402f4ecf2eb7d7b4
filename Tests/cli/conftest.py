"""Fixtures for testing the shell client `fusion` the way people use it: one-shot
commands as subprocesses, and the interactive session in a real terminal (tmux)."""
from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
from fusion_cli import Tmux


@pytest.fixture(scope="session")
def examples_library(bin_dir: Path) -> Path:
    return bin_dir / "libFusionExamples.so"


@pytest.fixture(scope="session")
def wrong_abi_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A shared object that says it speaks ABI version 999."""
    directory = tmp_path_factory.mktemp("wrongabi")
    source = directory / "wrong.c"
    source.write_text("#include <stdint.h>\nuint32_t fk_abi_version(void) { return 999; }\n")
    library = directory / "libWrong.so"
    cc = os.environ.get("CC") or shutil.which("cc") or "gcc"
    subprocess.run([cc, "-shared", "-fPIC", str(source), "-o", str(library)], check=True)
    return library


@pytest.fixture
def tmux(tmp_path: Path):
    """A tmux server of its own (unique -L socket), killed after the test."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed (scripts/setup installs it)")
    server = Tmux(f"fusion-test-{os.getpid()}-{uuid.uuid4().hex[:8]}", tmp_path)
    try:
        yield server
    finally:
        server.kill()
