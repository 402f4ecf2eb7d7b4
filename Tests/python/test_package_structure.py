"""The package's shape (docs/layout.md): one concept per module, and no import circles
inside the package, so that any module can be read, and imported, on its own."""
from __future__ import annotations

import ast
import builtins
import textwrap
from pathlib import Path

import fusionkit
import fusionkit.scenario

PACKAGE = Path(fusionkit.__file__).parent


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, anywhere in it: at module level, inside
    functions, and under `if TYPE_CHECKING:` too (a type checker follows those, and a
    circle there is a circle in the design)."""
    modules = {_module_name(path, root): path for path in root.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                # `from . import x` imports the module x (the package itself is already
                # loaded); `from .m import y` imports m, and y if y is a module of m.
                named = [f"{origin}.{alias.name}" for alias in node.names]
                targets = named if node.module is None else [origin, *named]
            for target in targets:
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle, each once, as the modules along it."""
    found: list[list[str]] = []
    seen: set[frozenset[str]] = set()

    def visit(start: str, node: str, path: list[str]) -> None:
        for target in sorted(graph[node]):
            if target == start:
                key = frozenset(path)
                if key not in seen:
                    seen.add(key)
                    found.append([*path, start])
            elif target not in path and target > start:
                visit(start, target, [*path, target])

    for start in sorted(graph):
        visit(start, start, [start])
    return found


def test_the_package_has_no_import_circles() -> None:
    graph = import_graph(PACKAGE)
    assert "fusionkit._instance" in graph and "fusionkit.scenario._runner" in graph
    assert cycles(graph) == [], "import circles: " + "; ".join(" -> ".join(c) for c in cycles(graph))


def test_the_check_finds_a_circle(tmp_path: Path) -> None:
    package = tmp_path / "circular"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import thing\n")
    (package / "b.py").write_text(textwrap.dedent("""
        def later():
            from .sub import c  # runs when called: counts
    """))
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "c.py").write_text("from ..a import thing\n")
    assert cycles(import_graph(package)) == [["circular.a", "circular.b", "circular.sub.c", "circular.a"]]


def test_every_error_class_of_the_package_is_a_fusion_error() -> None:
    from fusionkit.scenario import ScenarioError, ScenarioNotFoundError
    for error in (fusionkit.JournalError, ScenarioError, ScenarioNotFoundError, *(getattr(fusionkit.errors, name)
                                                           for name in fusionkit.errors.__all__
                                                           if name.endswith("Error"))):
        assert issubclass(error, fusionkit.FusionError), error
    assert issubclass(ScenarioError, ValueError)  # as before the split


def test_no_module_raises_a_bare_builtin_error() -> None:
    """Every built-in exception the package raises is a FusionError class of its own, but
    TypeError (a wrong Python type), NotImplementedError (a hook a subclass must write)
    and the ValueError `strict_loads` signals to its callers, which turn it into a
    FusionError or the library's refusal."""
    allowed = {"TypeError", "NotImplementedError"}
    signals = {("_text.py", "ValueError")}
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name):
                name = node.exc.func.id
                builtin = getattr(builtins, name, None)
                if isinstance(builtin, type) and issubclass(builtin, BaseException) and name not in allowed \
                        and (str(path.relative_to(PACKAGE)), name) not in signals:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {name}")
    assert found == []
