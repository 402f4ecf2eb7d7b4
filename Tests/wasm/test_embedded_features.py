"""A feature is written once and builds both ways (issue 37, deliverable 1): the example
features' unchanged sources compile under Embedded Swift for wasm32, against the
authoring API built the same way, as two modules like the native build's; and a package
`fusion new` writes builds into a module of its own."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Wasm"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
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


def test_a_fusion_new_scaffold_builds_into_its_own_module_unchanged(tmp_path: Path, fusion: Path) -> None:
    """The package `fusion new` writes builds, as written, into a WebAssembly module of its
    own (its feature and its #exportLibrary line), which answers as the native one does
    (Tests/plugins/test_scaffold.py drives the native build with the same inputs)."""
    import build as wasm_build
    from wasm_library import WasmLibrary

    created = subprocess.run([str(fusion), "new", "Greeter", "--path", str(tmp_path)], capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    sources = sorted((tmp_path / "Greeter" / "Sources" / "Greeter").glob("*.swift"))
    library = WasmLibrary(wasm_build.build(tmp_path / "wasm", sources, module="Greeter"))
    try:
        assert library.feature_names == ["greeter"]
        greeter = library.create("greeter")
        greeter.send_json('{"nameChanged": {"name": "Ada"}}')
        greeter.send_json('"greetTapped"')
        state, version = greeter.snapshot()
        assert state == {"name": "Ada", "greetings": 1, "message": "Hello, Ada!", "canGreet": True} and version == 2
    finally:
        library.close()
