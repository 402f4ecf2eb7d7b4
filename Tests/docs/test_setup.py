"""The scripts' Python is the checkout's .venv, never the system's: Debian's python3 is
externally managed and refuses `pip install` (PEP 668), and lacks the packages the tests
use. scripts/setup makes .venv; each script that runs Python sources scripts/venv.sh."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(path for path in (ROOT / "scripts").iterdir() if path.is_file() and path.suffix != ".txt")
# A line that runs Python: python3 itself, or a Python program run by its shebang.
RUNS_PYTHON = re.compile(r"(^|[\s;|&(])(python3?|\S+\.py)(\s|$)")


def code_lines(script: Path) -> list[tuple[int, str]]:
    """The script's lines without comments, heredocs' bodies included (they are Python)."""
    found = []
    for number, line in enumerate(script.read_text(encoding="utf-8").split("\n"), 1):
        code = re.sub(r"(^|\s)#.*$", "", line).strip()
        if code:
            found.append((number, code))
    return found


@pytest.mark.parametrize("script", SCRIPTS, ids=[path.name for path in SCRIPTS])
def test_scripts_run_python_only_from_the_venv(script: Path) -> None:
    lines = code_lines(script)
    sourced = next((number for number, code in lines if code == ". scripts/venv.sh"), None)
    for number, code in lines:
        if re.search(r"\bpip\b", code):
            assert code.startswith(".venv/bin/python3 -m pip "), f"{script.name}:{number}: pip outside .venv: {code}"
        if RUNS_PYTHON.search(code) and script.name not in ("setup", "venv.sh"):
            assert sourced is not None and sourced < number, \
                f"{script.name}:{number} runs Python before sourcing scripts/venv.sh: {code}"


def test_every_python_script_is_found() -> None:
    """The check above reads the scripts that run Python: it must see them as such."""
    runs = {script.name for script in SCRIPTS if any(RUNS_PYTHON.search(code) for _, code in code_lines(script))}
    assert {"test", "lint", "bench", "cluster", "build-wheel", "test-reliability"} <= runs


def requirement_names() -> list[str]:
    lines = (ROOT / "scripts" / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return [re.split(r"[<>=!~\[; ]", line.strip(), maxsplit=1)[0] for line in lines
            if line.strip() and not line.startswith("#")]


def test_the_venv_is_the_python_of_the_scripts_and_has_every_requirement() -> None:
    probe = subprocess.run(["bash", "-c", '. scripts/venv.sh && python3 -c "import sys; print(sys.prefix)"'],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert Path(probe.stdout.strip()) == ROOT / ".venv"
    names = requirement_names()
    assert "pytest" in names and "textual" in names
    listed = subprocess.run([str(ROOT / ".venv/bin/python3"), "-c",
                             "import importlib.metadata as m, sys; "
                             "print('\\n'.join(d.metadata['Name'].lower() for d in m.distributions()))"],
                            capture_output=True, text=True, check=True, timeout=60).stdout.split()
    missing = [name for name in names if name.lower() not in listed]
    assert not missing, f"scripts/requirements.txt lists what .venv lacks (run scripts/setup): {missing}"

