"""A feature is written once and builds both ways (issue 37, deliverable 1, so far): the
example features' unchanged sources compile under Embedded Swift for wasm32, against the
authoring API built the same way, as two modules like the native build's."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Wasm"))
from build import AUTHORING, EMBEDDED, EMBEDDED_FEATURES, MACROS, TOOLCHAIN, missing, run  # noqa: E402


def test_the_example_features_build_under_embedded_swift(tmp_path: Path) -> None:
    assert not missing(), f"missing: {missing()} (swift build builds the macros; scripts/setup installs the rest)"
    swiftc = str(TOOLCHAIN / "swiftc")
    run([swiftc, *EMBEDDED, "-module-name", "FusionKit", *MACROS, "-emit-module", "-emit-module-path",
         str(tmp_path / "FusionKit.swiftmodule"), *map(str, AUTHORING), "-c", "-o", str(tmp_path / "FusionKit.o")])
    built = run([swiftc, *EMBEDDED, "-module-name", "FusionExamples", *MACROS, "-I", str(tmp_path),
                 *map(str, EMBEDDED_FEATURES), "-c", "-o", str(tmp_path / "FusionExamples.o")])
    assert "warning:" not in built.stderr, built.stderr[-4000:]
    assert (tmp_path / "FusionExamples.o").stat().st_size > 0
