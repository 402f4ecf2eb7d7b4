"""The example plugin (examples/plugins/chores, its own package) and libFusionExamples.so
loaded at once: in one Python process, one fusion process and one C program. Each keeps
its own features, instances, errors and callbacks; a feature name both have is qualified
or refused naming both."""
from __future__ import annotations

import json
import re
import subprocess
import threading
from pathlib import Path

import fusionkit
import pytest

HERE = Path(__file__).parent


def test_python_loads_both_and_keeps_them_apart(chores_library: Path, examples_library: Path) -> None:
    chores = fusionkit.load(chores_library)
    examples = fusionkit.load(examples_library)
    assert chores.features == ("todo", "counter")
    assert "todo" not in examples.features and "counter" in examples.features
    # The same feature name in both libraries: two different features.
    with chores.create("counter") as tally, examples.create("counter") as counter:
        assert set(tally.state) != set(counter.state)
        counter.send("increase")
        tally.send("tapped")
        assert counter.state["value"] == 1 and tally.state["count"] == 1
        # Errors name the library's own inputs.
        with pytest.raises(fusionkit.UnknownInputError) as refused:
            tally.send("increase")
        assert "tapped" in refused.value.message and "alertDismissed" not in refused.value.message
    with pytest.raises(fusionkit.UnknownFeatureError):
        examples.create("todo")


def test_python_two_threads_drive_one_instance_of_each_at_once(chores_library: Path, examples_library: Path) -> None:
    chores = fusionkit.load(chores_library)
    examples = fusionkit.load(examples_library)
    todo = chores.create("todo")
    counter = examples.create("counter")
    heard = {"todo": 0, "counter": 0}
    lock = threading.Lock()

    def hear(name: str):
        def callback(version: int) -> None:
            with lock:
                heard[name] += 1
        return callback

    todo.subscribe(hear("todo"))
    counter.subscribe(hear("counter"))
    rounds = 300

    def drive_todo() -> None:
        for n in range(rounds):
            todo.send("draftChanged", text=f"item {n}")
            todo.send("addTapped")

    def drive_counter() -> None:
        for _ in range(rounds):
            counter.send("increase")

    threads = [threading.Thread(target=drive_todo), threading.Thread(target=drive_counter)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(todo.state["items"]) == rounds and todo.version == 2 * rounds
    assert counter.state["value"] == rounds and counter.version == rounds
    assert heard == {"todo": 2 * rounds, "counter": rounds}
    todo.close()
    counter.close()


def run_fusion(fusion: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(fusion), *map(str, args)], capture_output=True, text=True, timeout=60)


def test_fusion_names_several_libraries_and_qualifies_shared_names(fusion: Path, chores_library: Path, examples_library: Path) -> None:
    both = (chores_library, examples_library)
    listing = run_fusion(fusion, "inspect", *both)
    assert listing.returncode == 0, listing.stderr
    assert "Chores 1.1.0" in listing.stdout and "FusionExamples 0.1.0" in listing.stdout
    # A name only one library has needs no qualification.
    todo = run_fusion(fusion, "send", *both, "todo", "draftChanged", "text=milk", "addTapped", "--json")
    assert todo.returncode == 0, todo.stderr
    assert json.loads(todo.stdout)["state"]["items"][0]["title"] == "milk"
    # "counter" is in both: refused, naming both, until qualified.
    ambiguous = run_fusion(fusion, "send", *both, "counter")
    assert ambiguous.returncode == 2
    assert 'feature "counter" is in both Chores' in ambiguous.stderr
    assert "Chores/counter or FusionExamples/counter" in ambiguous.stderr
    tally = run_fusion(fusion, "send", *both, "Chores/counter", "tapped", "tapped")
    assert tally.returncode == 0 and json.loads(tally.stdout)["count"] == 2
    counter = run_fusion(fusion, "send", *both, "FusionExamples/counter", "increase")
    assert counter.returncode == 0 and json.loads(counter.stdout)["value"] == 1
    inspect = run_fusion(fusion, "inspect", *both, "Chores/counter")
    assert inspect.returncode == 0 and "tapped" in inspect.stdout and "increase" not in inspect.stdout
    unknown = run_fusion(fusion, "send", *both, "Nope/counter")
    assert unknown.returncode == 2 and "the libraries: Chores, FusionExamples" in unknown.stderr


def test_a_c_program_dlopens_both_and_drives_them_from_two_threads(tmp_path: Path, cc: str, chores_library: Path, examples_library: Path) -> None:
    program = tmp_path / "side_by_side"
    include = Path(__file__).resolve().parents[2] / "include"
    subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{include}", str(HERE / "c" / "side_by_side.c"),
                    "-o", str(program), "-ldl", "-pthread"], check=True)
    result = subprocess.run([str(program), str(chores_library), str(examples_library)],
                            capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "passed" in result.stdout and "0 failed" in result.stdout, result.stdout


def test_the_plugins_own_spec_passes(chores_library: Path) -> None:
    """examples/plugins/chores' Input/State spec, as its author runs it: swift test."""
    result = subprocess.run(["swift", "test"], cwd=chores_library.parents[2], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert re.search(r"Test run with \d+ tests in \d+ suites passed", result.stdout), result.stdout[-2000:]
