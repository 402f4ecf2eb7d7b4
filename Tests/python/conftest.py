"""Shared setup for the tests of the Python package (bindings/python/fusionkit): they
drive the real libFusionExamples.so (the debug build, as Tests/abi does) through the
package, the way a Python programmer uses it."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = ROOT / "bindings" / "python"
# The source tree's package, ahead of any installed copy.
sys.path.insert(0, str(PACKAGE_DIR))

import fusionkit  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "wheel: builds the bundled wheel from the release library; skipped when .build/release lacks it "
        "(unless FUSIONKIT_REQUIRE_WHEEL=1, as scripts/test sets)")


def library_dir() -> Path:
    """The folder of the debug build's libFusionExamples.so, building it if needed."""
    configured = os.environ.get("FUSIONKIT_LIB_DIR")
    if configured:
        return Path(configured)
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.strip()
    path = Path(out)
    if not (path / "libFusionExamples.so").exists():
        subprocess.run(["swift", "build", "--product", "FusionExamples"], cwd=ROOT, check=True)
    return path


@pytest.fixture(scope="session")
def library_path() -> Path:
    return library_dir() / "libFusionExamples.so"


@pytest.fixture(scope="session")
def fusion(library_path: Path) -> Path:
    """The shell client of the same build, for tests of what both front ends share."""
    path = library_path.parent / "fusion"
    if not path.exists():
        subprocess.run(["swift", "build", "--product", "fusion"], cwd=ROOT, check=True)
    return path


@pytest.fixture(scope="session")
def lib(library_path: Path) -> fusionkit.Library:
    return fusionkit.load(library_path)


@pytest.fixture(scope="session")
def cc() -> str:
    return os.environ.get("CC") or shutil.which("cc") or "gcc"


@pytest.fixture(scope="session")
def build_c_library(cc: str, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], Path]:
    """Compiles C source into a shared library (cc -shared -fPIC), for the loader's edge cases."""
    folder = tmp_path_factory.mktemp("clibs")

    def build(name: str, source: str) -> Path:
        c_file = folder / f"{name}.c"
        c_file.write_text(source)
        out = folder / f"lib{name}.so"
        subprocess.run([cc, "-shared", "-fPIC", "-std=c11", "-Wall", "-Werror", f"-I{ROOT / 'include'}", str(c_file),
                        "-o", str(out)], check=True)
        return out

    return build


def make_clean_env(**extra: str) -> dict[str, str]:
    """An environment with nothing that helps the loader (no LD_LIBRARY_PATH, no PYTHONPATH)."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8"}
    env.update(extra)
    return env


@pytest.fixture
def clean_env() -> Callable[..., dict[str, str]]:
    return make_clean_env


@pytest.fixture
def wait_until() -> Callable[..., None]:
    """Polls a condition (effects run on library threads); fails with `what` after `timeout`."""

    def wait(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                pytest.fail(f"timed out waiting for {what}")
            time.sleep(0.005)

    return wait


@pytest.fixture
def main_thread_ident() -> int:
    return threading.get_ident()


@pytest.fixture
def counter(lib: fusionkit.Library) -> Iterator[fusionkit.Instance]:
    with lib.create("counter") as instance:
        yield instance
