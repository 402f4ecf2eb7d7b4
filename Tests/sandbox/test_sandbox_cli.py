"""The shell client drives a .wasm library as a native one (issue 38, deliverable 1): the
REPL, `send`, `types` and `inspect` on the example library built to WebAssembly give what
they give on libFusionExamples.so (`test` and `serve`: test_sandbox_scenarios.py and
test_sandbox_bridge.py)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


def fusion_out(fusion: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(fusion), *args], input=stdin, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("lang", ["ts", "python", "java"])
def test_types_from_the_module_are_the_native_librarys(fusion: Path, bin_dir: Path, examples_wasm: Path, lang: str) -> None:
    native = fusion_out(fusion, "types", "--lang", lang, str(bin_dir / "libFusionExamples.so"))
    sandboxed = fusion_out(fusion, "types", "--lang", lang, str(examples_wasm))
    assert native.returncode == 0 and sandboxed.returncode == 0, native.stderr + sandboxed.stderr
    assert sandboxed.stdout == native.stdout


def test_the_repl_runs_the_module_as_the_native_library(fusion: Path, bin_dir: Path, examples_wasm: Path) -> None:
    script = "increase\nincrease\ndecrease\nshow\n"
    native = fusion_out(fusion, "run", str(bin_dir / "libFusionExamples.so"), "counter", stdin=script)
    sandboxed = fusion_out(fusion, "run", str(examples_wasm), "counter", stdin=script)
    assert native.returncode == 0 and sandboxed.returncode == 0, native.stderr + sandboxed.stderr
    assert sandboxed.stdout == native.stdout and '"value":1' in sandboxed.stdout.replace(" ", "")


def test_send_and_inspect_name_the_sandbox(fusion: Path, examples_wasm: Path) -> None:
    sent = fusion_out(fusion, "send", str(examples_wasm), "wifi", "screenAppeared", '{"networkTapped":{"id":"cafe"}}')
    assert sent.returncode == 0, sent.stderr
    inspected = fusion_out(fusion, "inspect", str(examples_wasm))
    assert inspected.returncode == 0 and "sandboxed (WebAssembly in WasmKit)" in inspected.stdout
    for feature in ("counter", "answer", "home", "wifi", "profile"):
        assert f"\n{feature}\n" in inspected.stdout, inspected.stdout
