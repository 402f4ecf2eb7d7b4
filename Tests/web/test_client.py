"""The web client's modules outside a browser, with node: what it exports, and that
every error it raises is a FusionError (bindings/web/fusionkit/errors.js)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).parent
CLIENT = HERE.parents[1] / "bindings/web"
NODE = shutil.which("node") or "node"  # scripts/setup installs Debian's nodejs


def test_every_module_parses_as_an_es_module() -> None:
    modules = [CLIENT / "fusionkit.js", *sorted((CLIENT / "fusionkit").glob("*.js"))]
    assert len(modules) >= 8
    for module in modules:
        result = subprocess.run([NODE, "--check", str(module)], capture_output=True, text=True)
        assert result.returncode == 0, f"{module}: {result.stderr}"


def test_every_error_the_client_raises_is_a_fusion_error() -> None:
    result = subprocess.run([NODE, str(HERE / "client_errors.mjs")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "ok"


def test_the_input_shorthand_follows_the_shared_vectors() -> None:
    # Tests/vectors/input-shorthand, which the Python and Swift tests read too.
    result = subprocess.run([NODE, str(HERE / "input_vectors.mjs")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith(", 0 failed")


def test_json_patch_follows_the_shared_vectors() -> None:
    # Tests/vectors/json-patch, which the Python, Swift and Java tests read too.
    result = subprocess.run([NODE, str(HERE / "patch_vectors.mjs")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith(", 0 failed")


def test_the_pages_query_values_follow_the_shared_vectors() -> None:
    # examples/web/common.js reads query values by the input shorthand's value rule,
    # as the shell reads field=value (Tests/vectors/input-shorthand, kind "value").
    result = subprocess.run([NODE, str(HERE / "query_vectors.mjs")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith(", 0 failed")


def test_the_instance_key_a_page_gets_without_naming_one() -> None:
    # bridge.instance(feature, {options}) names the instance by the feature and its
    # options (bindings/web/fusionkit/instance-key.js): no page has a rule of its own.
    result = subprocess.run([NODE, str(HERE / "instance_key.mjs")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "ok"
