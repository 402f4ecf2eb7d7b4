"""libFusionSandbox.so's exports in step with the headers: every function of
include/fusionkit.h but those include/fusionkit_sandbox.h names as not exported, plus
fk_sandbox_open, which that header declares; nothing else."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def declared(header: Path) -> set[str]:
    return set(re.findall(r"^[^*/#\n][^;(]*?\b(fk_[a-z_]+)\s*\(", header.read_text(), re.M))


def test_the_sandbox_library_exports_what_its_headers_say(sandbox_library: Path) -> None:
    sandbox_header = (ROOT / "include/fusionkit_sandbox.h").read_text()
    listed = sandbox_header.split("Not exported:", 1)[1].split("(optional", 1)[0]
    absent = set(re.findall(r"fk_[a-z_]+", listed))
    expected = (declared(ROOT / "include/fusionkit.h") - absent) | declared(ROOT / "include/fusionkit_sandbox.h")
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(sandbox_library)], capture_output=True, text=True,
                             check=True).stdout
    exported = {line.split()[-1] for line in symbols.splitlines() if re.search(r" T fk_", line)}
    assert "fk_sandbox_open" in expected and absent
    assert exported == expected, (sorted(exported - expected), sorted(expected - exported))
