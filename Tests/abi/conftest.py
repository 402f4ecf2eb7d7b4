"""Shared helpers for the tests that use the library the way C and Python users do:
compile C programs against include/fusionkit.h, link libFusionExamples.so, run them."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "include"
# scripts/test-reliability runs these tests again against an instrumented library
# (FUSIONKIT_LIB_DIR=.build-asan/debug, FUSIONKIT_SANITIZER=address; or thread): the C
# programs are then built with the toolchain's clang and the same sanitizer.
SANITIZER = os.environ.get("FUSIONKIT_SANITIZER")
# What needs the plain library: valgrind (which cannot run beside a sanitizer) and
# loading into a program that is not instrumented (the sanitizer runtime must come first).
plain_build_only = pytest.mark.skipif(bool(SANITIZER), reason="needs the uninstrumented library")


def library_dir() -> Path:
    """The folder of the debug build's libFusionExamples.so, building it if needed."""
    configured = os.environ.get("FUSIONKIT_LIB_DIR")
    if configured:
        # Absolute: it becomes the programs' RUNPATH, and some run in another folder.
        return Path(configured).resolve()
    out = subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    path = Path(out)
    if not (path / "libFusionExamples.so").exists():
        subprocess.run(["swift", "build", "--product", "FusionExamples"], cwd=ROOT, check=True)
    return path


@pytest.fixture(scope="session")
def lib_dir() -> Path:
    return library_dir()


@pytest.fixture(scope="session")
def library(lib_dir: Path) -> Path:
    return lib_dir / "libFusionExamples.so"


@pytest.fixture(scope="session")
def compile_c(lib_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """Compiles a C file against the header and the library, warnings as errors."""
    out_dir = tmp_path_factory.mktemp("c")
    cc = os.environ.get("CC") or shutil.which("cc") or "gcc"
    instrument: list[str] = []
    if SANITIZER:
        # The sanitizer runtime must be the one the Swift toolchain built the library with.
        toolchain = Path(shutil.which("swift") or "swift").resolve().parent
        cc = str(toolchain / "clang")
        # lld: gold warns about every symbol of the sanitizer runtime it cannot export.
        instrument = [f"-fsanitize={SANITIZER}", "-g", "-fno-omit-frame-pointer", "-fuse-ld=lld"]
        if SANITIZER == "thread":
            # TSan's runtime intercepts libdispatch, so it needs the toolchain's copy.
            runtime = toolchain.parent / "lib/swift/linux"
            instrument += [f"-L{runtime}", "-ldispatch", "-lBlocksRuntime", f"-Wl,-rpath,{runtime}"]

    def build(source: Path, *extra: str, library: str = "FusionExamples") -> Path:
        exe = out_dir / source.stem
        subprocess.run(
            [cc, *instrument, "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-pthread", f"-I{INCLUDE}",
             str(source), f"-L{lib_dir}", f"-l{library}", f"-Wl,-rpath,{lib_dir}", *extra, "-o", str(exe)],
            check=True,
        )
        return exe

    return build


def clean_env() -> dict[str, str]:
    """An environment with nothing that helps the loader: no LD_LIBRARY_PATH or the like."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8"}
    # The sanitizers' settings (suppressions, options) are not loader help: pass them on.
    env.update({k: v for k, v in os.environ.items() if k in ("ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS")})
    return env


def valgrind(exe: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Runs under memcheck; fails on any invalid access and on definite or indirect leaks."""
    return subprocess.run(
        ["valgrind", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect",
         # Deep enough to reach the frame the suppressions name (describing a feature
         # recurses once per nested type of its state).
         "--num-callers=100", f"--suppressions={ROOT / 'Tests/abi/valgrind.supp'}", str(exe), *args],
        capture_output=True, text=True, env=clean_env(), timeout=600,
    )
