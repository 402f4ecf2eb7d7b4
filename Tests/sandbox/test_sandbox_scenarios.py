"""Same results (issue 38, deliverable 4): every scenario of examples/scenarios passes on
the example library built to WebAssembly and run in WasmKit (libFusionSandbox.so, through
the Python package), with the state's JSON after every step byte for byte the native
library's and the page's (the same module in node, over bindings/web/fusionkit/wasm.js);
and `fusion test` passes them all on the .wasm path."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(ROOT / "Tests" / "wasm"))
from fusionkit import Library  # noqa: E402
from fusionkit.scenario import collect, load  # noqa: E402
from fusionkit.scenario._runner import _Run  # noqa: E402
from test_scenarios_in_wasm import RecordingLibrary  # noqa: E402
from wasm_library import WasmLibrary  # noqa: E402

SCENARIOS = collect(ROOT / "examples" / "scenarios")


@pytest.fixture(scope="module")
def sandboxed(sandbox_library: Path, examples_wasm: Path) -> Library:
    os.environ["FUSIONKIT_SANDBOX_LIBRARY"] = str(sandbox_library)
    return Library(examples_wasm)


@pytest.fixture(scope="module")
def native(bin_dir: Path) -> Library:
    return Library(bin_dir / "libFusionExamples.so")


@pytest.fixture(scope="module")
def page(examples_wasm: Path) -> Iterator[WasmLibrary]:
    library = WasmLibrary(examples_wasm)
    yield library
    library.close()


def test_the_sandbox_describes_the_library_as_the_native_library_does(sandboxed: Library, native: Library) -> None:
    """The features byte for byte; the optional functions are the sandbox's own list."""
    in_sandbox, in_native = json.loads(sandboxed.manifest_json()), json.loads(native.manifest_json())
    assert in_sandbox["features"] == in_native["features"]
    assert in_sandbox["library"] == in_native["library"]
    assert "fk_checkpoint" not in in_sandbox["optionalFunctions"] and "fk_state_patch" in in_sandbox["optionalFunctions"]


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.name for path in SCENARIOS])
def test_each_scenario_passes_in_the_sandbox_with_the_native_and_the_page_bytes(
        path: Path, sandboxed: Library, native: Library, page: WasmLibrary) -> None:
    scenario = load(path)
    runs: dict[str, Any] = {"native": RecordingLibrary(native), "sandbox": RecordingLibrary(sandboxed),
                            "page": RecordingLibrary(page)}
    for name, library in runs.items():
        result = _Run(scenario, library).run()  # type: ignore[arg-type]
        assert result.passed, f"{name}: {result.report()}"
    texts = {name: library.texts for name, library in runs.items()}
    assert len(texts["sandbox"]) == len(texts["native"]) == len(texts["page"]) > 0
    for step, (sandbox, native_text, page_text) in enumerate(zip(texts["sandbox"], texts["native"], texts["page"], strict=True)):
        assert sandbox == native_text == page_text, f"snapshot {step} differs"


def test_fusion_test_passes_every_scenario_on_the_wasm_path(fusion: Path, examples_wasm: Path) -> None:
    result = subprocess.run([str(fusion), "test", str(examples_wasm), str(ROOT / "examples/scenarios")],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(SCENARIOS)} passed, 0 failed" in result.stdout
