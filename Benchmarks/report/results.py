"""What every benchmark writes alongside its samples (Benchmarks/results/*.json): when,
on which CPU, the provenance, and the file itself. One place, so that the results read alike."""
from __future__ import annotations

import datetime
import json
import platform
import sys
from pathlib import Path
from typing import Any


def measured_now() -> str:
    """The time of a measurement, UTC, to the second: "2026-11-25T12:00:00Z"."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo ("AMD EPYC"), or the machine's kind."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def filesystem(folder: Path) -> str:
    """The type of the file system that holds `folder` ("ext4"), from /proc/mounts."""
    best, kind = "", "unknown"
    for line in Path("/proc/mounts").read_text().splitlines():
        _, mount, fstype, *_ = line.split()
        if str(folder).startswith(mount) and len(mount) > len(best):
            best, kind = mount, fstype
    return kind


def keep(path: Path, raw: dict[str, Any]) -> None:
    """Writes a benchmark's results to `path` (its folder made if need be), with their
    provenance: the commit, this command line and the machine (provenance.py)."""
    import provenance

    raw = {**raw, "provenance": provenance.provenance(["python3", *sys.argv])}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(raw, indent=1) + "\n")
    print(f"wrote {path}")
