"""Fixtures for the web bridge: `fusion serve` as a real process, WebSocket clients,
and a real headless Chromium driven through Selenium."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from bridge import ROOT, Server  # noqa: E402


@pytest.fixture(scope="session")
def bin_dir() -> Path:
    configured = os.environ.get("FUSION_BIN_DIR")
    if configured:
        return Path(configured)
    for product in ("FusionExamples", "fusion"):
        subprocess.run(["swift", "build", "--product", product], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    return Path(out)


@pytest.fixture(scope="session")
def fusion(bin_dir: Path) -> Path:
    path = bin_dir / "fusion"
    assert path.exists(), f"{path} was not built"
    return path


@pytest.fixture
def serve(fusion: Path) -> Iterator[Callable[..., Server]]:
    """Starts `fusion serve --port 0` with extra flags; every server is stopped after."""
    servers: list[Server] = []

    def start(*flags: str) -> Server:
        server = Server(fusion, *flags)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def server(serve: Callable[..., Server]) -> Server:
    return serve()
