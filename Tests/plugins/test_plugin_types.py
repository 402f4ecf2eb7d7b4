"""The chores plugin's generated front-end types (examples/plugins/chores/frontend) are
what `fusion types` gives for the plugin as built, and they type-check: an outsider's
library gets typed front ends the same way as the examples."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PLUGIN, ROOT

FRONTEND = PLUGIN / "frontend"


@pytest.mark.parametrize("lang", ["ts", "python"])
def test_the_committed_types_are_the_plugins(fusion: Path, chores_library: Path, lang: str) -> None:
    checked = subprocess.run([str(fusion), "types", "--lang", lang, str(chores_library), "--check", str(FRONTEND)],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stderr


def test_typed_python_drives_the_plugin(chores_library: Path, tmp_path: Path) -> None:
    program = tmp_path / "program.py"
    program.write_text(
        "import sys\n"
        "import chores\n"
        "lib = chores.load(sys.argv[1])\n"
        'with lib.create("todo") as todo:\n'
        '    todo.send({"draftChanged": {"text": "milk"}})\n'
        '    state = todo.send_and_read("addTapped")\n'
        '    print(state["visibleItems"][0]["title"], state["activeCount"])\n')
    env = {"MYPYPATH": f"{ROOT / 'bindings' / 'python'}:{FRONTEND}", "PATH": "/usr/bin:/bin"}
    typed = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
                            str(program)], capture_output=True, text=True, timeout=600, env=env)
    assert typed.returncode == 0, typed.stdout
    ran = subprocess.run([sys.executable, str(program), str(chores_library)], capture_output=True, text=True,
                         timeout=60, env={"PYTHONPATH": f"{ROOT / 'bindings' / 'python'}:{FRONTEND}", "PATH": "/usr/bin:/bin"})
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "milk 1\n"
