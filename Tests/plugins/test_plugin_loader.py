"""The chores plugin's generated `chores.load()`, with no path, opens the chores library
and never another: not FusionExamples from $FUSIONKIT_LIBRARY or from FusionKit's own
.build (issue 42: it did, and `create("todo")` failed later with UnknownFeatureError).
Where there is no chores library, the error names the one to build."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PLUGIN, ROOT

FRONTEND = PLUGIN / "frontend"
PROGRAM = ('import chores\n'
           'lib = chores.load()\n'
           'print(lib.path)\n'
           'print(",".join(lib.features))\n')


def load_chores(frontend: Path, cwd: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    """Runs `chores.load()` with the package found in `frontend`, as a user's script does."""
    env = {"PYTHONPATH": f"{ROOT / 'bindings' / 'python'}:{frontend}", "PATH": "/usr/bin:/bin", **variables}
    return subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60, env=env, cwd=cwd)


def loaded(result: subprocess.CompletedProcess[str]) -> tuple[Path, str]:
    assert result.returncode == 0, result.stderr
    path, features = result.stdout.splitlines()
    return Path(path).resolve(), features


@pytest.mark.parametrize("setting", ["unset", "examples"])
def test_load_opens_the_plugins_own_build(chores_library: Path, examples_library: Path, tmp_path: Path,
                                         setting: str) -> None:
    # The committed frontend/ in the plugin's package, run from elsewhere: its package's
    # .build, whatever $FUSIONKIT_LIBRARY names.
    variables = {"FUSIONKIT_LIBRARY": str(examples_library)} if setting == "examples" else {}
    path, features = loaded(load_chores(FRONTEND, tmp_path, **variables))
    # The debug build the fixture made (or a release build, which comes first, if one is there).
    assert path.name == chores_library.name and path.is_relative_to((PLUGIN / ".build").resolve())
    assert features == "todo,counter"


def test_load_takes_the_environment_only_for_a_library_with_the_features(chores_library: Path, examples_library: Path,
                                                                       tmp_path: Path) -> None:
    # The generated package copied out of any Swift package: nothing beside it, no build.
    shutil.copytree(FRONTEND / "chores", tmp_path / "app" / "chores")
    path, _ = loaded(load_chores(tmp_path / "app", tmp_path, FUSIONKIT_LIBRARY=str(chores_library)))
    assert path == chores_library.resolve()

    refused = load_chores(tmp_path / "app", tmp_path, FUSIONKIT_LIBRARY=str(examples_library))
    assert refused.returncode == 1 and refused.stdout == ""
    message = refused.stderr
    assert "load(): cannot find libChores.so exporting todo, counter; build it with " \
           "`swift build --product Chores` or pass its path" in message
    assert f"$FUSIONKIT_LIBRARY: {examples_library} (FusionExamples has no todo)" in message
    assert f"beside the package: {tmp_path / 'app' / 'libChores.so'} (no such file)" in message

    unset = load_chores(tmp_path / "app", tmp_path)
    assert unset.returncode == 1 and "cannot find libChores.so" in unset.stderr
    assert "FusionExamples" not in unset.stderr


def test_a_library_beside_the_package_comes_first(chores_library: Path, tmp_path: Path) -> None:
    shutil.copytree(FRONTEND / "chores", tmp_path / "app" / "chores")
    os.symlink(chores_library, tmp_path / "app" / "libChores.so")
    other = tmp_path / "elsewhere" / "libChores.so"
    other.parent.mkdir()
    os.symlink(chores_library, other)
    result = load_chores(tmp_path / "app", tmp_path, FUSIONKIT_LIBRARY=str(other))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == str(tmp_path / "app" / "libChores.so")
