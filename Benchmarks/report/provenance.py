#!/usr/bin/env python3
"""Where a results file came from: the commit (its full hash, and whether the tree held
uncommitted changes, and which), the command line, and the machine (CPU, cores, memory,
OS and kernel, Swift and Python). One place: the Python benchmarks stamp their results
through results.keep, and scripts/bench stamps the files the others write (fusion-bench
in Swift, bindings/python/bench.py) by running this file:

    python3 Benchmarks/report/provenance.py FILE -- COMMAND...   # add "provenance" to FILE

The freshness check (Benchmarks/report/freshness.py) reads the commit back; the
renderers say it under every block."""
from __future__ import annotations

import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def commit(cwd: Path = ROOT) -> dict[str, Any]:
    """HEAD's full hash, and the paths that differed from it when measured (tracked
    files changed, or files not yet added; git status's paths)."""
    changed = [line[3:] for line in _git("status", "--porcelain", "--untracked-files=all", cwd=cwd).splitlines()]
    return {"commit": _git("rev-parse", "HEAD", cwd=cwd).strip(), "dirty": bool(changed), "uncommitted": changed}


def _first_line(command: list[str]) -> str:
    if shutil.which(command[0]) is None:
        return "not found"
    done = subprocess.run(command, capture_output=True, text=True)
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if lines else "unknown"


def _memory() -> str:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return f"{int(line.split()[1]) / 2**20:.1f} GiB"
    return "unknown"


def _os() -> str:
    name = platform.system()
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                name = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return name


def machine() -> dict[str, Any]:
    import results  # the CPU's model is read one way for every file

    return {"cpu": results.cpu_model(), "cores": os.cpu_count(), "memory": _memory(), "os": _os(),
            "kernel": platform.release(), "swift": _first_line(["swift", "--version"]),
            "python": platform.python_version()}


def provenance(command: list[str], cwd: Path = ROOT) -> dict[str, Any]:
    """What a results file records about its measurement, taken now."""
    # Paths inside the checkout kept relative to it: the same record reads alike in any clone.
    return {**commit(cwd), "command": [arg.replace(f"{ROOT}/", "") for arg in command],
            "stamped": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "machine": machine()}


def stamp(path: Path, command: list[str]) -> None:
    """Adds the provenance to a results file another program wrote, right after it ran."""
    raw = json.loads(path.read_text())
    raw["provenance"] = provenance(command)
    path.write_text(json.dumps(raw, indent=1) + "\n")


def sentence(name: str, raw: dict[str, Any]) -> str:
    """How a rendered block says where its figures came from (the line under each block)."""
    found = raw.get("provenance")
    if not found:
        return (f"`{name}`: no provenance recorded (measured before results carried their commit); "
                "`Benchmarks/report/freshness.py` counts it as stale.")
    command = " ".join(arg.replace(f"{ROOT}/", "") for arg in found["command"])
    from dependencies import DEPENDENCIES

    declared = DEPENDENCIES.get(name, ())
    touched = [path for path in found.get("uncommitted", [])
               if any(path == d or path.startswith(f"{d}/") for d in declared)]
    dirty = ""
    if touched:
        dirty = f" with uncommitted changes to what it depends on ({', '.join(touched[:3])}{' …' if len(touched) > 3 else ''})"
    elif found.get("dirty"):
        dirty = " (uncommitted changes elsewhere only)"
    m = found["machine"]
    return (f"`{name}`: measured on commit {found['commit'][:12]}{dirty} by `{command}`, on {m['cpu']} "
            f"({m['cores']} cores, {m['memory']}), {m['os']}, Linux {m['kernel']}, {m['swift']}, Python {m['python']}.")


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    stamp(Path(argv[0]), argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
