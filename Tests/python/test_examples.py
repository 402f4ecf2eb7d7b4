"""The example scripts, run as a newcomer runs them: `python3 examples/python/NAME.py`."""
from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"


def run(name: str, env: dict[str, str], *args: str, cwd: Path = ROOT) -> list[str]:
    result = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), *args], capture_output=True, text=True,
                            env=env, cwd=cwd, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


@pytest.fixture
def env(library_path: Path, clean_env: Callable[..., dict[str, str]]) -> dict[str, str]:
    return clean_env(FUSIONKIT_LIBRARY=str(library_path))


def test_counter(env: dict[str, str]) -> None:
    out = run("counter", env)
    assert out[0] == "FusionExamples 0.1.0, ABI 1"
    assert "state v0: {'value': 0, 'isReset': False, 'alert': None}" in out
    assert "state v4: {'value': 1, 'isReset': False, 'alert': 'The value is 1.'}" in out
    assert "state v6: {'value': 0, 'isReset': True, 'alert': None}" in out
    assert any(line.startswith('  refused: FK_ERR_UNKNOWN_INPUT: unknown input "jump"') for line in out)
    assert out[-2] == "state v7: {'value': 1, 'isReset': False, 'alert': None}"
    assert out[-1] == "told about 6 changes, the last at version 6"


def test_counter_finds_the_library_by_itself(clean_env: Callable[..., dict[str, str]], tmp_path: Path) -> None:
    # No $FUSIONKIT_LIBRARY, run from elsewhere: the checkout holding the package is searched.
    out = run("counter", clean_env(), cwd=tmp_path)
    assert out[-1] == "told about 6 changes, the last at version 6"


def test_answer(env: dict[str, str]) -> None:
    out = run("answer", env)
    assert [line.split()[0] for line in out] == ["start", "typed", "typed", "submitting", "after", "dismissed"]
    assert out[3].endswith("submitting=True submitted=None")
    assert out[4].startswith("after half a second") and out[4].endswith("submitted='blue'")


def test_home_repeats_with_a_seed(env: dict[str, str]) -> None:
    first = run("home", env, "7")
    assert first == run("home", env, "7")
    assert first[0] == "home, seeded with 7"
    assert first[2].split()[:2] == ["viewDidLoad", "'ViewDidLoad"]
    assert first[2].split()[-1].rstrip("'").isdigit()


def test_wifi(env: dict[str, str]) -> None:
    out = run("wifi", env)
    after = [line for line in out if line.startswith("after the join")]
    assert len(after) == 2
    assert after[0].endswith("selected=None, connect screen, incorrect-password alert")
    assert after[1].endswith("selected='blob', no screen")
    # Signal bars and whether Join is enabled are the feature's, read from the state.
    assert out[1] == ("Networks: Blob's WiFi (Secured, 3 of 3 bars), Blob Jr's WiFi (Secured, 2 of 3 bars), "
                      "Blob Sr's WiFi (Secured, 1 of 3 bars), Café Guest (Open, 2 of 3 bars)"), out[1]
    joining = [line for line in out if line.startswith("join with")]
    assert len(joining) == 2 and all(line.endswith("connect screen, connecting, join disabled") for line in joining)
    assert out[-1] == "joined Blob's WiFi"


def test_profile_answers_the_host_requests_itself(env: dict[str, str]) -> None:
    out = "\n".join(run("profile", env))
    for kind in ("fetchPet", "fetchFamily", "fetchPreschool", "fetchBabyProfile"):
        assert f"'kind': '{kind}'" in out
        assert f"answered {kind}" in out
    assert "loaded: pet={'name': 'Dubu', 'species': 'cat', 'age': 4} school='Maple' baby='Haneul'" in out
    assert "failed: error='Could not load the family profile: the server is down'" in out
    assert out.count("'event': 'cancel'") == 3
    assert out.endswith("cancelled requests: 3")
