"""`fusion new` as a new user runs it: the package it writes builds and its test passes
with no edits, and every host drives the library it builds."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import fusionkit
from conftest import ROOT, library_file_name, swift_build


def test_the_scaffold_builds_passes_its_test_and_is_driven_by_every_host(tmp_path: Path, fusion: Path, examples_library: Path) -> None:
    created = subprocess.run([str(fusion), "new", "Greeter", "--path", str(tmp_path)], capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    package = tmp_path / "Greeter"
    assert "swift build" in created.stdout and "fusion run .build/debug/" in created.stdout
    manifest = (package / "Package.swift").read_text()
    # What the README tells outsiders to write: two product lines and the dependency.
    assert f'.package(name: "FusionKit", path: "{ROOT}")' in manifest
    assert manifest.count(".product(name:") == 3  # FusionKit + FusionABI, and FusionKit for the tests
    assert "#exportLibrary(" in (package / "Sources/Greeter/Library.swift").read_text()
    assert (package / "README.md").exists() and (package / ".gitignore").exists()

    # Its test first: `swift test` builds with testing on, after which `swift build`
    # compiles nothing again (the other way round, everything is compiled twice).
    tested = subprocess.run(["swift", "test"], cwd=package, capture_output=True, text=True)
    assert tested.returncode == 0, tested.stdout[-3000:] + tested.stderr[-3000:]
    assert "3 tests" in tested.stdout and "passed" in tested.stdout
    library = swift_build(package) / library_file_name("Greeter")

    shell = subprocess.run([str(fusion), "send", "--json", str(library), "greeter", "nameChanged", "name=Ada", "greetTapped"],
                           capture_output=True, text=True)
    assert shell.returncode == 0, shell.stderr
    assert json.loads(shell.stdout)["state"] == {"name": "Ada", "greetings": 1, "message": "Hello, Ada!", "canGreet": True}

    python = fusionkit.load(library)
    with python.create("greeter") as greeter:
        greeter.send("nameChanged", name="Ada")
        assert greeter.send_and_read("greetTapped")["message"] == "Hello, Ada!"
    # Beside the example library, in one process.
    examples = fusionkit.load(examples_library)
    with examples.create("counter") as counter:
        assert counter.send_and_read("increase")["value"] == 1

    # frontend/: the types `fusion new` wrote are what `fusion types` gives for the built
    # library, and the typed uses beside them run and pass both checkers.
    for lang in ("ts", "python"):
        checked = subprocess.run([str(fusion), "types", "--lang", lang, str(library), "--check", str(package / "frontend")],
                                 capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
    app = subprocess.run([sys.executable, "frontend/app.py"], cwd=package, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": ""})
    assert app.returncode == 0, app.stderr
    assert app.stdout == "Hello, Ada! (1 greeting)\n"
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "mypy"), "frontend/app.py"],
                          cwd=package, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MYPYPATH": str(ROOT / "bindings" / "python")})
    assert mypy.returncode == 0, mypy.stdout
    tsc = subprocess.run(["tsc", "-p", "frontend"], cwd=package, capture_output=True, text=True, timeout=600)
    assert tsc.returncode == 0, tsc.stdout


def test_new_refuses_what_it_cannot_do(tmp_path: Path, fusion: Path) -> None:
    bad_name = subprocess.run([str(fusion), "new", "9lives", "--path", str(tmp_path)], capture_output=True, text=True)
    assert bad_name.returncode == 64 and "Swift identifier" in bad_name.stderr
    (tmp_path / "Taken").mkdir()
    taken = subprocess.run([str(fusion), "new", "Taken", "--path", str(tmp_path)], capture_output=True, text=True)
    assert taken.returncode == 1 and "exists already" in taken.stderr
    half = subprocess.run([str(fusion), "new", "X", "--fusionkit-url", "https://example.com/FusionKit.git"], capture_output=True, text=True)
    assert half.returncode == 64 and "go together" in half.stderr


def test_new_can_depend_on_a_url_and_version(tmp_path: Path, fusion: Path) -> None:
    created = subprocess.run([str(fusion), "new", "Remote", "--path", str(tmp_path), "--fusionkit-url",
                              "https://example.com/team/FusionKit.git", "--fusionkit-version", "0.2.0"], capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    manifest = (tmp_path / "Remote" / "Package.swift").read_text()
    assert '.package(url: "https://example.com/team/FusionKit.git", from: "0.2.0")' in manifest
    assert '.product(name: "FusionABI", package: "FusionKit")' in manifest
    # The typed front end finds FusionKit's declarations where SwiftPM checks it out.
    config = json.loads((tmp_path / "Remote" / "frontend" / "tsconfig.json").read_text())
    assert config["compilerOptions"]["paths"]["/fusionkit.js"] == ["../.build/checkouts/FusionKit/bindings/web/fusionkit.d.ts"]
    # The manifest is valid Swift that SwiftPM reads (no network: dump-package only parses).
    dumped = subprocess.run(["swift", "package", "dump-package"], cwd=tmp_path / "Remote", capture_output=True, text=True)
    assert dumped.returncode == 0, dumped.stderr
    assert json.loads(dumped.stdout)["name"] == "Remote"
