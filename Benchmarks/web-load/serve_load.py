"""One load run against a fresh `fusion serve`: the bridge started with the given flags,
Benchmarks/web-load/web_load.c run against it on loopback, the bridge stopped. Shared
by the web-load benchmark (run.py) and the group-commit one (Benchmarks/journal)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_once(fusion: str, loader: str, library: str, sessions: int, interval: int, inputs: int,
             flags: tuple[str, ...] = (), wait: str = "sleep", loader_library: str | None = None,
             loader_trace: str | None = None) -> tuple[dict[str, Any], str]:
    """What web_load measured (the loader sleeping between sends, or with `wait="spin"`
    polling), and what the bridge wrote on stderr until it stopped. `loader_library`: the
    native library the loader measures its in-process baseline on, when the bridge serves
    another (a .wasm plugin); `library` by default. `loader_trace`: a file for web_load's
    --trace (stall_trace.py)."""
    server = subprocess.Popen(
        [fusion, "serve", library, "--port", "0", "--max-sessions", str(sessions * 2),
         "--static", str(ROOT / "examples/web"), *flags],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.search(r":(\d+)/", line)
        if found is None:
            sys.exit(f"fusion serve did not start: {line!r}")
        port = int(found.group(1))
        result = subprocess.run(
            [loader, "--port", str(port), "--server-pid", str(server.pid), "--library", loader_library or library,
             "--sessions", str(sessions), "--inputs", str(inputs), "--interval-ms", str(interval), "--seconds", "120", "--wait", wait,
             *(("--trace", loader_trace) if loader_trace else ())],
            capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            sys.exit(f"web_load failed ({result.returncode}): {result.stderr}{result.stdout}")
        measured: dict[str, Any] = json.loads(result.stdout)
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    return measured, err
