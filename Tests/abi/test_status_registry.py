"""Every status code of include/fusionkit.h is produced by the real library in a C
program of Tests/abi/c that compares the returned status with it exactly, and that
program is run by a test of test_c_abi.py that fails when any of its checks does.
A code added to the header without such a program fails here."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from status_producers import ROOT, asserts_exactly, function_of, takes_fixture

HEADER = ROOT / "include/fusionkit.h"
PROGRAMS = ROOT / "Tests/abi/c"
RUNNER = Path(__file__).parent / "test_c_abi.py"
# The library's names for its codes (fk_status_name).
NAMES = ROOT / "Sources/FusionKit/Runtime/FusionError.swift"


def header_codes() -> dict[str, int]:
    return {name: int(number) for name, number in re.findall(r"^#define (FK_ERR_[A-Z0-9_]+)\s+(\d+)", HEADER.read_text(), re.M)}


def without_comments(c: str) -> str:
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", c, flags=re.S))


def compares_exactly(c: str, code: str) -> bool:
    """`… == FK_ERR_X` (a check, an if), a row of bad_inputs.c's table (`fn, FK_ERR_X, {…}`)
    or of json_refusals.c's expect(…, FK_ERR_X, "words")."""
    c = without_comments(c)
    return bool(re.search(rf"==\s*{code}\b|\b{code}\s*==|,\s*{code},\s*\{{|\bexpect\([^;]*,\s*{code},\s*\"", c))


def runners() -> dict[Path, list[str]]:
    """Each C program, with the tests of test_c_abi.py that run it and fail on a failed
    check (they name its constant and assert the exit status 0 exactly)."""
    module = ast.parse(RUNNER.read_text())
    constants: dict[str, Path] = {}
    for node in module.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            text = ast.unparse(node.value)
            found = re.search(r"['\"](Tests/abi/c/[\w.]+\.c)['\"]", text)
            if found:
                constants[node.targets[0].id] = ROOT / found.group(1)
    ran: dict[Path, list[str]] = {}
    for node in module.body:
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
            continue
        named = {each.id for each in ast.walk(node) if isinstance(each, ast.Name)} & set(constants)
        if named and takes_fixture(RUNNER, node.name, "compile_c") and asserts_exactly(RUNNER, node.name, 0):
            for constant in named:
                ran.setdefault(constants[constant], []).append(node.name)
    return ran


def test_the_library_names_every_code_of_the_header() -> None:
    names = set(re.findall(r'return "(FK_ERR_[A-Z0-9_]+)"', NAMES.read_text())) - {"FK_ERR_UNKNOWN_STATUS"}
    codes = header_codes()
    assert len(codes) >= 16 and sorted(codes.values()) == list(range(1, len(codes) + 1)), codes
    assert names == set(codes), names ^ set(codes)


def test_every_status_code_is_produced_by_the_real_library_and_compared_exactly() -> None:
    ran = runners()
    assert PROGRAMS / "faults.c" in ran, ran
    missing = []
    for code in header_codes():
        producers = [path.name for path in sorted(PROGRAMS.glob("*.c")) if path in ran and compares_exactly(path.read_text(), code)]
        if not producers:
            missing.append(code)
    assert not missing, f"no C program run by test_c_abi.py compares a status with these exactly: {missing}"


def test_the_check_reads_comparisons_not_mentions() -> None:
    """What compares_exactly takes for an assertion, and what it does not."""
    assert compares_exactly('check(fk_send(c, "x", 1) == FK_ERR_BUSY, "busy");', "FK_ERR_BUSY")
    assert compares_exactly('{"create: NULL", create_null, FK_ERR_NULL_ARGUMENT, {"feature"}},', "FK_ERR_NULL_ARGUMENT")
    assert not compares_exactly('/* gives FK_ERR_BUSY == nothing */ check(ok, "FK_ERR_BUSY");', "FK_ERR_BUSY")
    assert not compares_exactly("if (status != FK_ERR_BUSY) bad++;", "FK_ERR_BUSY")
    assert function_of(RUNNER, "test_injected_faults_give_internal_and_unsettled")
