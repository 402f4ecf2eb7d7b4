"""`find_library_for`: the one library a generated types module (`fusion types --lang
python`) describes, found by its product name and checked by its features. Unlike
`find_library`, it never falls back to the example library: a module for Chores that
loaded FusionExamples would fail later, at `create("todo")`, far from the cause.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ._library import Library
from ._native import LIBRARY_ENV, bundled_library, library_file_name
from .errors import LibraryLoadError


def library_candidates(product: str, module_file: str | os.PathLike[str]) -> list[tuple[str, Path]]:
    """Where `find_library_for` looks, in order, each with how it names the place."""
    file = library_file_name(product)
    package = Path(module_file).resolve().parent
    places = [("beside the package", package / file), ("beside the package", package.parent / file)]
    configured = os.environ.get(LIBRARY_ENV)
    if configured:
        places.append((f"${LIBRARY_ENV}", Path(configured)))
    # The Swift package the generated module sits in (a plugin's frontend/ folder, or
    # this repository's examples): where `swift build` puts the library.
    swift_package = next((folder for folder in package.parents if (folder / "Package.swift").is_file()), None)
    if swift_package is not None:
        places += [("its Swift package's build", swift_package / ".build" / "release" / file),
                   ("its Swift package's build", swift_package / ".build" / "debug" / file)]
    places.append(("bundled in fusionkit", bundled_library().parent / file))
    return places


def find_library_for(product: str, features: Sequence[str], module_file: str | os.PathLike[str]) -> Path:
    """The library of `product` (libProduct.so on Linux) that exports every feature in
    `features`, for the generated module at `module_file`: beside the module's package
    (in its folder, then the folder holding it); then $FUSIONKIT_LIBRARY, used only when
    it exports those features; then .build/release and .build/debug of the Swift package
    the module is in; then a copy bundled in this package. A library that lacks one of
    the features is passed over. Raises LibraryLoadError naming the product to build and
    each place looked at, with why it was passed over."""
    file = library_file_name(product)
    looked: list[str] = []
    seen: set[Path] = set()
    for place, path in library_candidates(product, module_file):
        where = f"{place}: {path}"
        if path.absolute() in seen:
            continue
        seen.add(path.absolute())
        if not path.is_file():
            looked.append(f"{where} (no such file)")
            continue
        try:
            found = Library(path)
            exported = found.features
        except LibraryLoadError as error:
            looked.append(f"{where} ({error})")
            continue
        missing = [name for name in features if name not in exported]
        if not missing:
            return path
        looked.append(f"{where} ({found.summary.library.name} has no {', '.join(missing)})")
    listing = "\n  ".join(looked)
    raise LibraryLoadError(
        f"load(): cannot find {file} exporting {', '.join(features)}; build it with "
        f"`swift build --product {product}` or pass its path. Looked at:\n  {listing}")
