"""The handshake fuzzed: random and hostile Sec-WebSocket-Protocol lists, cookies,
Authorization headers, tokens (correctly signed ones with absurd times among them),
origins, query strings and heads past the 80 KiB limit, over raw sockets. The cases and
what each must get are Tests/fuzz/handshake.py's, which scripts/test-reliability runs for
FUZZ_SECONDS; here a fixed number of seeded cases, so a failure repeats."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "fuzz"))
from handshake import Bridge, run  # noqa: E402

CASES = 400


def test_the_handshake_keeps_its_promises_to_whatever_anyone_sends(fusion: Path, tmp_path: Path) -> None:
    bridge = Bridge(fusion, tmp_path)
    try:
        result = run(bridge, seed=26, cases=CASES)
    finally:
        errors = bridge.stop()
    assert result["cases"] == CASES and result["claims"] > CASES // 4 and result["headers"] > CASES // 4, result
    assert "Fatal error" not in errors, errors[-3000:]
