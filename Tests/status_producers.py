"""What the status registries (FK_ERR_*, BRIDGE_*, CLIENT_*, close codes, `fusion` exit
statuses) ask of the test they name for each status: that its body produces the
status and asserts it exactly, read from the test's syntax tree, not its name.

A test asserts a value exactly when, in an `assert` of its body (nested functions
included), an `==` comparison has the value on one side: the literal itself, a
module constant bound to it, an element of a tuple, list or dict literal there, or a
parameter of the test that a `pytest.mark.parametrize` row gives the value (for None,
`is None` too). Passing the
value to a helper of the same module that asserts its parameter that way counts too
(`assert_one_line_error(result, USAGE, ...)`). A skipped or xfail test produces nothing.
"""
from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@cache
def _module(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def _constants(module: ast.Module) -> dict[str, Any]:
    """Module-level names bound to literals: `OK = 0`, `OK, USAGE = 0, 64`."""
    found: dict[str, Any] = {}
    for node in module.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant):
            found[target.id] = value.value
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            for name, each in zip(target.elts, value.elts, strict=True):
                if isinstance(name, ast.Name) and isinstance(each, ast.Constant):
                    found[name.id] = each.value
    return found


def _functions(module: ast.Module) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in module.body if isinstance(node, ast.FunctionDef)}


def _decorator_name(decorator: ast.expr) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target)


def _is_skipped(test: ast.FunctionDef) -> bool:
    return any(_decorator_name(d).endswith(("mark.skip", "mark.skipif", "mark.xfail")) for d in test.decorator_list)


def _parametrized(test: ast.FunctionDef, constants: dict[str, Any], value: Any) -> set[str]:
    """The test's parameters that some parametrize row sets to `value`."""
    names: set[str] = set()
    for decorator in test.decorator_list:
        if not (isinstance(decorator, ast.Call) and _decorator_name(decorator).endswith("mark.parametrize")):
            continue
        if len(decorator.args) < 2 or not isinstance(decorator.args[0], ast.Constant):
            continue
        params = [name.strip() for name in str(decorator.args[0].value).split(",")]
        rows = decorator.args[1]
        if not isinstance(rows, (ast.List, ast.Tuple)):
            continue
        for row in rows.elts:
            cells = row.elts if isinstance(row, ast.Tuple) and len(params) > 1 else [row]
            for name, cell in zip(params, cells, strict=False):
                if _is_value(cell, constants, value, set()):
                    names.add(name)
    return names


def _is_value(node: ast.expr, constants: dict[str, Any], value: Any, names: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) is type(value) and node.value == value
    if isinstance(node, ast.Name):
        return node.id in names or (node.id in constants and type(constants[node.id]) is type(value)
                                    and constants[node.id] == value)
    return False


def _holds_value(node: ast.expr, constants: dict[str, Any], value: Any, names: set[str]) -> bool:
    """The value itself, or directly an element of a tuple, list or dict literal."""
    if _is_value(node, constants, value, names):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_is_value(element, constants, value, names) for element in node.elts)
    if isinstance(node, ast.Dict):
        return any(_is_value(element, constants, value, names) for element in node.values)
    return False


def _asserts_equal(body: ast.AST, constants: dict[str, Any], value: Any, names: set[str]) -> bool:
    """An `assert` below `body` with an `==` whose side holds the value."""
    for statement in ast.walk(body):
        if not isinstance(statement, ast.Assert):
            continue
        for node in ast.walk(statement.test):
            exact = (ast.Eq, ast.Is) if value is None else (ast.Eq,)
            if (isinstance(node, ast.Compare) and all(isinstance(op, exact) for op in node.ops)
                    and any(_holds_value(side, constants, value, names) for side in (node.left, *node.comparators))):
                return True
    return False


def _helpers_asserting(module: ast.Module) -> dict[str, set[int]]:
    """Module functions (not tests) that assert one of their parameters exactly: the
    positions of those parameters."""
    helpers: dict[str, set[int]] = {}
    for name, function in _functions(module).items():
        if name.startswith("test_"):
            continue
        params = [arg.arg for arg in function.args.args]
        positions = {i for i, param in enumerate(params) if _asserts_equal(function, {}, object(), {param})}
        if positions:
            helpers[name] = positions
    return helpers


def _passes_to_helper(body: ast.AST, helpers: dict[str, set[int]], constants: dict[str, Any], value: Any,
                      names: set[str]) -> bool:
    for node in ast.walk(body):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
            if any(i < len(node.args) and _is_value(node.args[i], constants, value, names) for i in helpers[node.func.id]):
                return True
    return False


def function_of(path: Path, name: str) -> ast.FunctionDef:
    """The module-level test `name` of `path`; fails if there is none."""
    functions = _functions(_module(path))
    assert name in functions, f"no test {name} in {path.relative_to(ROOT)}"
    return functions[name]


def asserts_exactly(path: Path, name: str, value: Any) -> bool:
    """Whether test `name` of `path` (not skipped) asserts `value` exactly (see above)."""
    module = _module(path)
    test = function_of(path, name)
    if _is_skipped(test):
        return False
    constants = _constants(module)
    names = _parametrized(test, constants, value)
    return (_asserts_equal(test, constants, value, names)
            or _passes_to_helper(test, _helpers_asserting(module), constants, value, names))


def takes_fixture(path: Path, name: str, *fixtures: str) -> bool:
    """Whether test `name` takes one of `fixtures`: how it produces what it asserts
    (a real `fusion`, a real server, a real Chromium)."""
    return any(arg.arg in fixtures for arg in function_of(path, name).args.args)
