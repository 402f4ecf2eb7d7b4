"""Finding scenario files: `collect` (folders searched for `*.scenario.json`),
`scenario_id`, and `params` for pytest."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ._model import SUFFIX, ScenarioNotFoundError


def collect(*paths: str | os.PathLike[str]) -> list[Path]:
    """The scenario files of `paths`, in the order given: a file as it is; a folder's
    `*.scenario.json`, searched recursively (skipping names that start with "."), sorted
    by their path as text, as `fusion test` lists them. FileNotFoundError for a path
    that does not exist."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found += sorted(_search(path), key=str)
        elif path.exists():
            found.append(path)
        else:
            raise ScenarioNotFoundError(f"no such scenario file or folder: {path}")
    return found


def _search(folder: Path) -> list[Path]:
    found: list[Path] = []
    for entry in folder.iterdir():
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            found += _search(entry)
        elif entry.name.endswith(SUFFIX) and entry.is_file():
            found.append(entry)
    return found


def scenario_id(path: str | os.PathLike[str]) -> str:
    """A scenario's name as a test id: its file name without `.scenario.json`."""
    name = Path(path).name
    return name[:-len(SUFFIX)] if name.endswith(SUFFIX) and len(name) > len(SUFFIX) else Path(path).stem


def params(*paths: str | os.PathLike[str]) -> list[Any]:
    """`collect(*paths)` as `pytest.param(path, id=…)`, for `pytest.mark.parametrize`
    (the id is the file's name without `.scenario.json`)."""
    import pytest  # only when asked: the package does not need pytest
    return [pytest.param(path, id=scenario_id(path)) for path in collect(*paths)]
