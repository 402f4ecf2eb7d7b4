"""Shipping: the wheel from scripts/build-wheel carries the release library and the Swift
runtime (RUNPATH $ORIGIN), installs into a fresh virtual environment, and drives the
Counter with the toolchain's runtime folder hidden from the loader; LD_DEBUG=libs shows
that nothing resolves from the toolchain. And `pip install bindings/python` installs the
package alone, which then finds a checkout's library."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RELEASE_LIBRARY = ROOT / ".build" / "release" / "libFusionExamples.so"
TOOLCHAIN = Path("/opt/swift")
SWIFT_RUNTIME = TOOLCHAIN / "usr" / "lib" / "swift" / "linux"

# In CI (scripts/test) a missing release build is a failure, not a skip.
REQUIRED = os.environ.get("FUSIONKIT_REQUIRE_WHEEL") == "1"
needs_release = pytest.mark.skipif(not RELEASE_LIBRARY.is_file() and not REQUIRED,
                                   reason="no release build: swift build -c release --product FusionExamples")

DRIVE_COUNTER = """
import fusionkit, sys
lib = fusionkit.load()
print("library", lib.path)
with lib.create("counter") as counter:
    heard = []
    counter.subscribe(heard.append)
    for input in ("increase", "increase", "show"):
        counter.send(input)
    try:
        counter.send("jump")
    except fusionkit.UnknownInputError as error:
        print("refused", error.status)
    print("state", counter.snapshot(), heard)
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert RELEASE_LIBRARY.is_file(), "scripts/test builds the release library before these tests"
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run([str(ROOT / "scripts/build-wheel"), "--no-build", "--out", str(out)], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    path = Path(result.stdout.strip().splitlines()[-1])
    assert path.is_file() and path.parent == out
    return path


def make_venv(folder: Path, *options: str) -> Path:
    subprocess.run([sys.executable, "-m", "venv", *options, str(folder)], check=True, timeout=300)
    return folder / "bin" / "python"


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with only the wheel installed (no index, no network)."""
    python = make_venv(tmp_path_factory.mktemp("venv") / "venv")
    result = subprocess.run([str(python), "-m", "pip", "install", "--no-index", "--quiet", str(wheel)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return python


def hiding_works() -> bool:
    """Whether a private mount namespace can lay an empty folder over the toolchain's runtime."""
    if shutil.which("unshare") is None or not SWIFT_RUNTIME.is_dir():
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c",
                            f"mount -t tmpfs none {SWIFT_RUNTIME} && test ! -e {SWIFT_RUNTIME}/libswiftCore.so"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


def run_hidden(python: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Runs `code` with LD_DEBUG=libs and a clean environment; where possible, with the
    toolchain's runtime folder replaced by an empty one (tmpfs) in a private mount
    namespace, so that a library still pointing there could not load at all."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "LANG": "C.UTF-8", "LD_DEBUG": "libs"}
    command = [str(python), "-c", code]
    if hiding_works():
        command = ["unshare", "-m", "sh", "-c", f'mount -t tmpfs none {SWIFT_RUNTIME} && exec "$@"', "sh", *command]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


@needs_release
@pytest.mark.wheel
def test_the_wheel_carries_the_library_and_the_swift_runtime(wheel: Path) -> None:
    assert re.fullmatch(r"fusionkit-0\.1\.0-py3-none-linux_[a-z0-9_]+\.whl", wheel.name), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        bundled = {Path(name).name for name in names if name.startswith("fusionkit/_lib/")}
        assert "fusionkit/py.typed" in names
        # Every library the release build resolves from the toolchain, and the library itself.
        ldd = subprocess.run(["ldd", str(RELEASE_LIBRARY)], check=True, capture_output=True, text=True).stdout
        from_toolchain = {line.split()[0] for line in ldd.splitlines() if str(TOOLCHAIN) in line}
        assert "libswiftCore.so" in from_toolchain
        assert bundled == from_toolchain | {"libFusionExamples.so"}
        folder = wheel.parent / "unpacked"
        archive.extractall(folder)
    for name in bundled:
        dynamic = subprocess.run(["readelf", "-d", str(folder / "fusionkit/_lib" / name)], check=True,
                                 capture_output=True, text=True).stdout
        runpaths = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[(.*)\]", dynamic)
        assert runpaths == ["$ORIGIN"], f"{name}: {runpaths}"


@needs_release
@pytest.mark.wheel
def test_the_installed_wheel_runs_the_counter_without_the_toolchain(installed: Path, tmp_path: Path) -> None:
    result = run_hidden(installed, DRIVE_COUNTER, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    out = result.stdout.splitlines()
    site = Path(subprocess.run([str(installed), "-c", "import fusionkit, os; print(os.path.dirname(fusionkit.__file__))"],
                               check=True, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"},
                               cwd=tmp_path).stdout.strip())
    bundle = site / "_lib"
    # Found by default: the library bundled in the installed package, not a checkout's.
    assert out[0] == f"library {bundle / 'libFusionExamples.so'}"
    assert out[1] == "refused FK_ERR_UNKNOWN_INPUT"
    assert out[2] == "state ({'value': 2, 'isReset': False, 'alert': 'The value is 2.'}, 3) [1, 2, 3]"

    # The loader's own account: every Swift library came from the bundle, none from the toolchain.
    log = result.stderr
    assert str(TOOLCHAIN) not in log, [line for line in log.splitlines() if str(TOOLCHAIN) in line][:5]
    for name in ("libFusionExamples.so", "libswiftCore.so", "libswift_Concurrency.so", "libdispatch.so"):
        assert re.search(rf"calling init: {re.escape(str(bundle / name))}$", log, flags=re.M), name
    assert re.search(rf"search path={re.escape(str(bundle))}\s+\(RUNPATH from file {re.escape(str(bundle))}/", log)
    if hiding_works():
        # And the hiding itself held: in that namespace the toolchain's runtime is empty.
        probe = run_hidden(installed, f"import os; print(os.listdir({str(SWIFT_RUNTIME)!r}))", cwd=tmp_path)
        assert probe.stdout.strip() == "[]"


@needs_release
@pytest.mark.wheel
def test_the_release_library_itself_still_needs_the_toolchain(tmp_path: Path) -> None:
    """The control for the test above: the same program against the unbundled release
    library resolves the Swift runtime from the toolchain (and, hidden, cannot load)."""
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'bindings/python')!r})\n"
            f"import os; os.environ['FUSIONKIT_LIBRARY'] = {str(RELEASE_LIBRARY)!r}\n" + DRIVE_COUNTER)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8", "LD_DEBUG": "libs"}
    visible = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                             timeout=120)
    assert visible.returncode == 0, visible.stderr[-3000:]
    assert f"calling init: {SWIFT_RUNTIME / 'libswiftCore.so'}" in visible.stderr
    if hiding_works():
        hidden = run_hidden(Path(sys.executable), code, cwd=tmp_path)
        assert hidden.returncode != 0
        assert "libswiftCore.so: cannot open shared object file" in hidden.stderr


@pytest.fixture(scope="module")
def source_install(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """`pip install bindings/python` into a fresh environment. The environment sees the
    packages of the one running the tests (setuptools and wheel: scripts/setup puts them in
    .venv) so that building needs no network; a stock Debian's own Python has neither."""
    folder = tmp_path_factory.mktemp("source-venv")
    python = make_venv(folder / "venv")
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "outer.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    source = folder / "src"
    shutil.copytree(ROOT / "bindings/python", source, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info",
                                                                                      "__pycache__", "_lib"))
    result = subprocess.run([str(python), "-m", "pip", "install", "--no-index", "--no-build-isolation", "--quiet",
                             str(source)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    yield python


def test_pip_install_of_the_source_finds_the_checkouts_library(source_install: Path, library_path: Path,
                                                              clean_env: Callable[..., dict[str, str]],
                                                              tmp_path: Path) -> None:
    where = subprocess.run([str(source_install), "-c", "import fusionkit, pathlib; "
                            "p = pathlib.Path(fusionkit.__file__).parent; print(p); "
                            "print((p / 'py.typed').is_file(), (p / '_lib').exists())"],
                           capture_output=True, text=True, env=clean_env(), cwd=tmp_path, check=True).stdout.split()
    assert "site-packages" in where[0] and where[1:] == ["True", "False"]
    # From inside the checkout, the installed package finds its .build; elsewhere, $FUSIONKIT_LIBRARY.
    inside = subprocess.run([str(source_install), "-c", DRIVE_COUNTER], capture_output=True, text=True,
                            env=clean_env(), cwd=ROOT / "Tests", timeout=120)
    assert inside.returncode == 0, inside.stderr
    assert inside.stdout.splitlines()[0] in (f"library {ROOT}/.build/release/libFusionExamples.so",
                                             f"library {ROOT}/.build/debug/libFusionExamples.so")
    elsewhere = subprocess.run([str(source_install), "-c", DRIVE_COUNTER], capture_output=True, text=True,
                               env=clean_env(FUSIONKIT_LIBRARY=str(library_path)), cwd=tmp_path, timeout=120)
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert elsewhere.stdout.splitlines()[0] == f"library {library_path}"
    assert elsewhere.stdout.splitlines()[-1].startswith("state ({'value': 2")
