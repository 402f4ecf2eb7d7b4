"""States saved by earlier releases load in this one (issue 42, deliverable 2): files committed
byte for byte as those releases wrote them (Tests/fixtures/saved-states/README.md), restored
the way each was made: a state through the C ABI, a `fusion run --state` file through
`fusion`, a journal's checkpoint through fk_create_with_options. Derived values the old
saves lack (signalBars, signalPercent, isJoinEnabled, ...) are recomputed, and the Wi-Fi
state's version 1 is migrated to 2 (the alerts' words)."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import fusionkit
import pytest
from fusionkit import InvalidStateError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "saved-states"
# The signal each sample network has, as this release derives it from its strength.
SIGNALS = [(3, 90), (2, 60), (1, 30), (2, 50)]
INCORRECT_PASSWORD = {"title": "Incorrect Password", "message": "The password for “Blob Jr's WiFi” is not correct.",
                      "actionLabel": "OK", "cancelLabel": None}
FORGET_CAFE = {"title": "Forget Wi-Fi Network “Café Guest”?",
               "message": "Your device will no longer join this network automatically.",
               "actionLabel": "Forget", "cancelLabel": "Cancel"}


def signals(state: dict[str, Any]) -> list[tuple[int, int]]:
    return [(network["signalBars"], network["signalPercent"]) for network in state["foundNetworks"]]


def test_a_wifi_state_from_before_the_derived_fields_loads_at_its_version(lib: fusionkit.Library) -> None:
    text = (FIXTURES / "wifi-state.json").read_bytes()
    assert b"signalBars" not in text
    with lib.create("wifi", state=text, state_version=1, settings={"liveScan": False}) as wifi:
        state = wifi.state
        assert signals(state) == SIGNALS
        assert [(n["signalBars"], n["signalPercent"]) for n in state["otherNetworks"]] == SIGNALS
        connect = state["destination"]["connect"]
        assert connect["network"]["signalBars"] == 2
        assert connect["isJoinEnabled"] is True and connect["isPasswordEditable"] is True
        assert connect["incorrectPasswordAlertIsPresented"] is True
        assert connect["incorrectPasswordAlert"] == INCORRECT_PASSWORD
        # It goes on from there.
        wifi.send("incorrectPasswordAlertDismissed")
        assert wifi.state["destination"]["connect"]["incorrectPasswordAlertIsPresented"] is False


def test_given_as_current_the_hint_names_what_is_missing_and_the_version_to_give(lib: fusionkit.Library) -> None:
    text = (FIXTURES / "wifi-state.json").read_bytes()
    with pytest.raises(InvalidStateError) as caught:
        lib.create("wifi", state=text)
    # Not the derived signalBars: the alert's words, which version 2 added.
    assert caught.value.message == (
        'the given state does not fit feature "wifi" (state version 2): at $.destination.connect: missing field '
        '"incorrectPasswordAlert"; if it was saved by another version of feature "wifi", give its "stateVersion" '
        "(this library's is 2)")


def test_a_fusion_run_state_file_from_before_the_derived_fields_is_resumed_by_fusion(fusion: Path,
                                                                                      tmp_path: Path) -> None:
    path = tmp_path / "wifi.json"
    shutil.copyfile(FIXTURES / "wifi-run.state.json", path)
    assert json.loads(path.read_text())["stateVersion"] == 1
    run = subprocess.run([str(fusion), "run", "wifi", "--state", str(path)], input=":state\n:quit\n",
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    saved = json.loads(path.read_text())
    assert saved["feature"] == "wifi" and saved["stateVersion"] == 2
    state = saved["state"]
    assert signals(state) == SIGNALS
    detail = state["destination"]["detail"]
    assert detail["network"]["signalBars"] == 2 and detail["network"]["signalPercent"] == 50
    assert detail["forgetAlertIsPresented"] is True
    assert detail["forgetAlert"] == FORGET_CAFE
    # And `fusion send` goes on from the file it wrote.
    send = subprocess.run([str(fusion), "send", "wifi", "--state", str(path), "confirmForgetNetworkButtonTapped"],
                          capture_output=True, text=True, timeout=60)
    assert send.returncode == 0, send.stderr
    assert json.loads(path.read_text())["state"]["destination"] is None


def test_a_checkpoint_at_wifi_state_version_1_is_resumed_through_the_c_abi(lib: fusionkit.Library) -> None:
    lines = (FIXTURES / "wifi-checkpoint.journal").read_bytes().split(b"\n")
    header = json.loads(lines[0].rsplit(b" ", 1)[0])
    record = lines[1].rsplit(b" ", 1)[0]
    assert header["stateVersions"]["wifi"] == 1 and record.startswith(b'{"checkpoint":')
    # The checkpoint as the journal holds it, byte for byte, with the journal's own options.
    more = json.dumps({"settings": header["options"]["settings"], "clock": "manual"}).encode()
    options = record[:-1] + b"," + more[1:]
    with lib.create("wifi", options=options) as wifi:
        assert wifi.version == 4
        connect = wifi.state["destination"]["connect"]
        assert connect["incorrectPasswordAlert"] == INCORRECT_PASSWORD
        assert connect["incorrectPasswordAlertIsPresented"] is True
        wifi.send("passwordChanged", password="blob")
        wifi.send("joinButtonTapped")
        wifi.advance_clock(nanoseconds=1_000_000_000)
        assert wifi.state["selectedNetworkID"] == "blob-jr"
