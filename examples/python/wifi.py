#!/usr/bin/env python3
"""wifi.py: the Wi-Fi settings connect flow (seed 003), through the real one-second join.

Taps a secured network, types a wrong password, joins (a second of connecting, on a
library thread), sees the incorrect-password alert, then joins again with "blob". The
join's result arrives through the subscription callback, on the library's thread; the
main thread waits for it on a threading.Condition.

    python3 examples/python/wifi.py
"""
from __future__ import annotations

import sys
import threading
from pathlib import Path

try:
    import fusionkit  # noqa: F401 (found first, for fusion_examples)
except ImportError:  # not installed: use the checkout's copy
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
    import fusionkit  # noqa: F401 (found first, for fusion_examples)

# The library's types, written beside this script by `fusion types --lang python`:
# lib.create("…") gives an instance typed by the feature's state and inputs.
import fusion_examples  # noqa: E402


class Latest:
    """The latest version heard of, for the main thread to wait on."""

    def __init__(self) -> None:
        self.version = 0
        self.changed = threading.Condition()

    def __call__(self, version: int) -> None:  # runs on whichever thread made the change
        with self.changed:
            self.version = version
            self.changed.notify_all()

    def wait_for(self, version: int, timeout: float = 10) -> None:
        with self.changed:
            if not self.changed.wait_for(lambda: self.version >= version, timeout):
                raise TimeoutError(f"no version {version} after {timeout} s")


def describe(state: fusion_examples.WiFiSettingsState) -> str:
    destination = state["destination"]
    connect = destination["connect"] if destination is not None and "connect" in destination else None
    screen = "connect screen" if connect else "detail screen" if destination is not None else "no screen"
    extra = ""
    if connect and connect["isConnecting"]:
        extra += ", connecting"
    if connect and not connect["isJoinEnabled"]:  # the feature's rule, drawn as it says
        extra += ", join disabled"
    if connect and connect["incorrectPasswordAlertIsPresented"]:
        extra += ", incorrect-password alert"
    return f"selected={state['selectedNetworkID']!r}, {screen}{extra}"


def main() -> int:
    lib = fusion_examples.load()
    # No live scan: the list stays as it is while we watch the join.
    with lib.create("wifi", settings={"liveScan": False}) as wifi:
        latest = Latest()
        wifi.subscribe(latest)

        def show(label: str) -> int:
            state, version = wifi.snapshot()
            print(f"{label:<22} v{version:<3} {describe(state)}")
            return version

        show("start")
        state = wifi.state  # the heading, the security words and the bars' scale are the feature's
        print(f"{state['otherNetworksHeading']}:", ", ".join(
            f"{n['name']} ({n['securityLabel']}, {n['signalBars']} of {state['signalBarsMaximum']} bars)"
            for n in state["otherNetworks"]))
        wifi.send({"networkTapped": {"id": "blob"}})
        show("tapped Blob's WiFi")
        wifi.send({"passwordChanged": {"password": "hunter2"}})
        wifi.send("joinButtonTapped")
        latest.wait_for(show("join with hunter2") + 1)  # a second later, on a library thread
        show("after the join")
        wifi.send("incorrectPasswordAlertDismissed")
        wifi.send({"passwordChanged": {"password": "blob"}})
        wifi.send("joinButtonTapped")
        latest.wait_for(show("join with blob") + 1)
        show("after the join")
        state = wifi.state
        joined = state["selectedNetworkID"] == "blob" and state["destination"] is None
        print("joined Blob's WiFi" if joined else "did not join")
    return 0 if joined else 1


if __name__ == "__main__":
    sys.exit(main())
