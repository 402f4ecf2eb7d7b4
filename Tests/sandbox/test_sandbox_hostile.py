"""A module written by hand against the module contract that breaks it on demand
(Tests/sandbox/Hostile/hostile.c): what it hands the host is checked before anything
passes it on. Found by an outside probe of issue 38's sandbox: a plugin's state text was
spliced unchecked into the bridge's messages (forging another instance's state), the
module's own word chose the status a refusal was reported with (FK_OK, or the sandbox's
own 17), a live instance's missing patch made the bridge silently send nothing, a wrong
export type passed the load and trapped at every call, one random_get of 32 MiB ran 11 s
past a 1 s limit, and the host's warm-up input reached a plugin that takes any input."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "web"))
sys.path.insert(0, str(ROOT / "Wasm"))
import build as wasm_build  # noqa: E402
from bridge import Client, Server  # noqa: E402

SOURCE = Path(__file__).resolve().parent / "Hostile" / "hostile.c"


def build(out: Path, *defines: str) -> Path:
    objects = out.with_suffix(".o")
    wasm_build.run([wasm_build.TOOLCHAIN / "clang", "--target=wasm32-unknown-unknown", "-nostdlib", "-fno-builtin", "-O1",
                    *defines, "-c", SOURCE, "-o", objects])
    wasm_build.run([wasm_build.TOOLCHAIN / "wasm-ld", "--no-entry", "--export-memory=memory", objects, "-o", out])
    return out


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("hostile") / "hostile.wasm")


def send(fusion: Path, module: Path, *inputs: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(fusion), "send", str(module), "hostile", *inputs], capture_output=True, text=True, timeout=60)


def test_the_host_sends_no_input_of_its_own(fusion: Path, hostile: Path) -> None:
    # The module counts every input, even one no feature has: the warm-up at creation
    # must not reach the instance created.
    result = send(fusion, hostile, "ok")
    assert result.returncode == 0 and result.stdout.strip() == '{"value":1}', result.stderr


def test_a_refusal_has_the_status_the_call_returned(fusion: Path, hostile: Path) -> None:
    # fk_send returns 6 while fk_last_error_status says 0: refused, as FK_ERR_UNKNOWN_INPUT.
    result = send(fusion, hostile, "refusedButSaysOK")
    assert result.returncode != 0 and "FK_ERR_UNKNOWN_INPUT: refused" in result.stderr, result.stderr


def test_a_module_cannot_give_the_sandboxs_own_statuses(fusion: Path, hostile: Path) -> None:
    result = send(fusion, hostile, "claimsTrapped")
    assert result.returncode != 0, result.stdout
    assert "broke the module contract: fk_send was refused with the status FK_ERR_PLUGIN_TRAPPED (17)" in result.stderr


@pytest.mark.parametrize("text", ["notJSON", "notUTF8", "forge"])
def test_a_state_that_is_not_one_json_value_never_leaves_the_host(fusion: Path, hostile: Path, text: str) -> None:
    result = send(fusion, hostile, text)
    assert result.returncode != 0 and result.stdout == "", result.stdout
    assert "fk_state returned text that is not one JSON value" in result.stderr, result.stderr


def test_an_export_of_another_type_than_the_contracts_is_refused_at_load(fusion: Path, tmp_path: Path) -> None:
    wrong = build(tmp_path / "wrong.wasm", "-DWRONG_SEND_SIGNATURE")
    result = subprocess.run([str(fusion), "inspect", str(wrong)], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0, result.stdout
    assert "does not follow the module contract" in result.stderr and "its fk_send takes [i32, i32]" in result.stderr


def test_randomness_the_module_asks_for_comes_in_bulk(fusion: Path, hostile: Path) -> None:
    # One random_get of 32 MiB is one operator of fuel: filled byte by byte, it ran 11 s
    # past a 1 s limit.
    began = time.monotonic()
    result = send(fusion, hostile, "randomBig")
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - began < 5


def messages(client: Client, message: dict) -> list[dict]:
    reply, before = client.request(message)
    return [*before, reply, *client.drain(0.3)]


@pytest.mark.parametrize(("text", "said"), [("forge", "returned text that is not one JSON value"),
                                            ("patchSpeaksForTheBridge", "fk_state_patch returned an object of other members"),
                                            ("noPatch", "fk_state_patch gave nothing for a live instance"),
                                            ("notJSON", "not one JSON value")])
def test_the_bridge_passes_on_nothing_a_module_did_not_write_as_the_contract_says(fusion: Path, hostile: Path, text: str,
                                                                                  said: str) -> None:
    server = Server(fusion, str(hostile))
    try:
        with server.connect() as page:  # every frame is read as JSON: one that is not fails here
            page.create("hostile", key="a")
            seen = messages(page, {"type": "send", "instance": "a", "input": "ok"})
            reply, before = page.request({"type": "send", "instance": "a", "input": text})
            seen += [*before, reply, *page.drain(0.3)]
            # No message speaks of another instance, or is of another type than the bridge's.
            assert all(m.get("instance") in (None, "a") for m in seen), seen
            assert all(m["type"] in ("state", "patch", "ok", "error", "failed") for m in seen), seen
            failed = [m for m in seen if m["type"] == "failed"]
            if reply["type"] == "ok":
                # Applied, and its state unreadable: the page is told why at once, before
                # the `ok`, not at its next call.
                assert [m["type"] for m in before] == ["failed"], seen
                assert failed[0]["status"].startswith("FK_ERR_PLUGIN_") and said in failed[0]["message"], failed
            else:
                assert reply["status"] == "FK_ERR_INSTANCE_FAILED" and not failed, seen
            # The instance failed on what it wrote, and says so from then on.
            reply, _ = page.request({"type": "send", "instance": "a", "input": "ok"})
            assert reply["type"] == "error" and reply["status"] == "FK_ERR_INSTANCE_FAILED", reply
            assert said in reply["message"], reply
        code, _, errors = server.stop()
        assert code == 0, errors
    finally:
        if server.process.poll() is None:
            server.process.kill()
