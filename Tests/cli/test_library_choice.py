"""Which library `fusion` uses when a command names none: one environment variable for
every front end, $FUSIONKIT_LIBRARY, before the example library beside fusion; LIBs given
on the command line before both; the old $FUSION_LIBRARY still read for one release, with
a warning (docs/plugin-libraries.md, "Which library a host loads")."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fusion_cli import clean_env, run

LIBRARY = 4
WARNING = "warning: $FUSION_LIBRARY is deprecated and will stop working in the next release"


@pytest.fixture(scope="module")
def alone(fusion: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of fusion with no library beside it."""
    folder = tmp_path_factory.mktemp("alone")
    shutil.copy(fusion, folder / "fusion")
    return folder / "fusion"


@pytest.fixture(scope="module")
def copy(examples_library: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example library under another name, so that an error's path tells which was used."""
    path = tmp_path_factory.mktemp("copy") / "libCopy.so"
    shutil.copy(examples_library, path)
    return path


def used(fusion: Path, *libraries: str, **variables: str) -> tuple[str, str]:
    """The library a command used, read from the error an unknown feature gives (it names
    the library), and what else fusion wrote on stderr."""
    result = run(fusion, "send", *libraries, "teleporter", env=clean_env(**variables))
    assert result.returncode == 2, result.stderr
    *others, error = result.stderr.strip().splitlines()
    assert error.startswith('error: unknown feature "teleporter"') and error.endswith(")"), error
    return Path(error[error.rindex("(in ") + 4:-1]).name, "\n".join(others)


def test_fusionkit_library_is_read(alone: Path, copy: Path) -> None:
    result = run(alone, "send", "counter", "increase", env=clean_env(FUSIONKIT_LIBRARY=str(copy)))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == '{"value":1,"isReset":false,"alert":null}\n'


def test_precedence_lib_then_fusionkit_library_then_beside(fusion: Path, alone: Path, copy: Path,
                                                          examples_library: Path) -> None:
    # fusion from the build folder, libFusionExamples.so beside it.
    assert used(fusion) == ("libFusionExamples.so", "")
    assert used(fusion, FUSIONKIT_LIBRARY=str(copy)) == ("libCopy.so", "")
    assert used(fusion, str(examples_library), FUSIONKIT_LIBRARY=str(copy)) == ("libFusionExamples.so", "")
    # A wrong setting is an error that names the variable, not a reason to load another library.
    wrong = run(fusion, "send", "counter", env=clean_env(FUSIONKIT_LIBRARY="/nowhere/libGone.so"))
    assert wrong.returncode == LIBRARY and wrong.stdout == ""
    assert "/nowhere/libGone.so" in wrong.stderr and "(named by $FUSIONKIT_LIBRARY)" in wrong.stderr
    # Nothing given, nothing set, nothing beside: the error says where it looked.
    missing = run(alone, "send", "counter", env=clean_env())
    assert missing.returncode == LIBRARY
    assert "no library given" in missing.stderr and "$FUSIONKIT_LIBRARY (not set)" in missing.stderr
    assert str(alone.parent / "libFusionExamples.so") in missing.stderr


def test_the_old_name_still_works_for_one_release_with_a_warning(fusion: Path, alone: Path, copy: Path,
                                                                examples_library: Path) -> None:
    found = run(alone, "send", "counter", "increase", env=clean_env(FUSION_LIBRARY=str(copy)))
    assert found.returncode == 0, found.stderr
    assert found.stderr == WARNING + " (set FUSIONKIT_LIBRARY instead)\n"
    # Read as the new name is: before the library beside fusion.
    assert used(fusion, FUSION_LIBRARY=str(copy)) == ("libCopy.so", WARNING + " (set FUSIONKIT_LIBRARY instead)")
    # Both set: the new name wins, and the warning says the old one is ignored.
    assert used(alone, FUSION_LIBRARY=str(copy), FUSIONKIT_LIBRARY=str(examples_library)) == (
        "libFusionExamples.so", WARNING + " (ignored: FUSIONKIT_LIBRARY is set)")
    # A library given on the command line reads neither: no warning.
    assert used(fusion, str(examples_library), FUSION_LIBRARY=str(copy)) == ("libFusionExamples.so", "")
