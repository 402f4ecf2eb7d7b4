"""Every fenced code block of the docs is run or compiled, so the docs cannot rot.

The docs are README.md, docs/**/*.md, bindings/*/README.md and the DocC catalogs
(Sources/**/*.docc). A block without a language fails. By language:

- swift: the blocks of one file are type-checked together as one module against the
  built FusionKit, FusionExamples and FusionHost (a block with top-level statements is its
  main.swift); a block starting `// swift-tools-version` is a Package.swift, evaluated by
  `swift package dump-package`. A fragment names its context in a comment before it:
  `<!-- swift wrapper: extension ProfileStore { func example() -> Effect<Action> { … } } -->`;
  a block quoted from a file another test builds says so (`<!-- swift: as in FILE -->`)
  and must stand in that file as it is.
- c: compiled against include/fusionkit.h and the built library, warnings as errors, and
  run (a fragment is put in `main`, after its #include lines; one that uses `counter`
  without declaring it gets a created Counter instance first).
- python: run, from a folder that mirrors the repository (files it writes land there),
  with `fusionkit` importable and, for a fragment that uses `lib` without making it,
  `lib = fusionkit.load()` first.
- sh: each command checked without running what must not run in a test (the test
  script, installs, interactive sessions): `fusion` commands that only read are run and
  must succeed; any other `fusion` command's options are checked against its --help;
  scripts and files the command names must exist (`.venv/bin/…` too, which
  scripts/setup makes); other programs must be installed.
- json: parsed; a scenario (`feature` and `steps`) is also run with `fusion test`.
- js: `node --check` as an ES module; html: its inline module scripts the same.
- java: a public class, compiled against bindings/java (bindings/java/build.sh) and the
  generated types of examples/java with warnings as errors, and its `main` run against
  the built library.
- text: output, with `<!-- output of: COMMAND -->` before it: the command is run and
  each line of the block must be a line of its output; `<!-- output of a run: …;
  checked by TESTFILE -->` names the test that compares it (numbers masked).
"""
from __future__ import annotations

import html.parser
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / ".build" / "debug"
FUSION = BUILD / "fusion"
NODE = shutil.which("node") or "node"


@dataclass(frozen=True)
class Block:
    file: Path
    line: int  # of the block's first line of code, 1-based
    language: str
    code: str
    comment: str  # the HTML comment right before the opening fence, if any

    @property
    def where(self) -> str:
        return f"{self.file.relative_to(ROOT)}:{self.line}"


def doc_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted(ROOT.glob("bindings/*/README.md")),
             *sorted((ROOT / "Sources").rglob("*.docc/**/*.md"))]
    return [file for file in files if file.is_file()]


FENCE = re.compile(r"^(\s*)```(\S*)\s*$")


def blocks_of(file: Path) -> list[Block]:
    lines = file.read_text(encoding="utf-8").split("\n")
    found: list[Block] = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        indent, language = match.group(1), match.group(2)
        end = index + 1
        while end < len(lines) and not re.match(r"^\s*```\s*$", lines[end]):
            end += 1
        assert end < len(lines), f"{file.relative_to(ROOT)}:{index + 1}: a code block is not closed"
        code = "\n".join(line[len(indent):] if line.startswith(indent) else line for line in lines[index + 1:end])
        before = lines[index - 1].strip() if index > 0 else ""
        comment = before[4:-3].strip() if before.startswith("<!--") and before.endswith("-->") else ""
        found.append(Block(file, index + 2, language, code + "\n", comment))
        index = end + 1
    return found


ALL_BLOCKS = [block for file in doc_files() for block in blocks_of(file)]


def by_language(language: str) -> list[Block]:
    return [block for block in ALL_BLOCKS if block.language == language]


def params(blocks: list[Block]) -> list[object]:
    return [pytest.param(block, id=block.where) for block in blocks]


def test_every_block_names_its_language() -> None:
    known = {"swift", "c", "python", "sh", "json", "js", "html", "text", "sql", "java"}
    wrong = [f"{block.where}: {block.language or 'no language'}" for block in ALL_BLOCKS if block.language not in known]
    assert not wrong, "blocks whose language this test cannot check: " + "; ".join(wrong)
    assert len(ALL_BLOCKS) > 40


@pytest.fixture(scope="session")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose entries link to the repository's: relative paths in the docs
    resolve, and what a block writes lands here."""
    folder = tmp_path_factory.mktemp("repo")
    for entry in ROOT.iterdir():
        if entry.name != ".git":
            (folder / entry.name).symlink_to(entry)
    return folder


def run(command: list[str], cwd: Path = ROOT, timeout: int = 120, **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bindings/python")}
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env, **kwargs)  # type: ignore[call-overload,no-any-return]


# -- swift --------------------------------------------------------------------------------

SWIFT_WRAPPER = re.compile(r"^swift wrapper:\s*(.*)$", re.S)
TOP_LEVEL_STATEMENT = re.compile(r"^(let |var |try |print\(|do \{|for |if )", re.M)


def swift_sources(blocks: list[Block]) -> dict[str, str]:
    sources: dict[str, str] = {}
    for number, block in enumerate(blocks):
        code = block.code
        wrapper = SWIFT_WRAPPER.match(block.comment)
        if wrapper:
            before, _, after = wrapper.group(1).partition("…")
            code = "import FusionKit\nimport FusionExamples\n" + before + "\n" + code + "\n" + after + "\n"
        name = "main.swift" if TOP_LEVEL_STATEMENT.search(code) and not wrapper else f"block{number}.swift"
        assert name not in sources, f"{block.where}: a second block with top-level statements in one file"
        sources[name] = f"// {block.where}\n" + code
    return sources


def module_maps() -> list[str]:
    maps = sorted(str(path) for path in BUILD.glob("*.build/module.modulemap"))
    maps += [str(ROOT / "Sources/CFusionKit/include/module.modulemap"), str(ROOT / "Sources/CFFI/module.modulemap")]
    return [flag for path in maps if Path(path).exists() for flag in ("-Xcc", f"-fmodule-map-file={path}")]


QUOTED = re.compile(r"^swift: as in (\S+)$")


def compiled_here(block: Block) -> bool:
    return not block.code.startswith("// swift-tools-version") and not QUOTED.match(block.comment)


@pytest.mark.parametrize("block", params([b for b in by_language("swift") if QUOTED.match(b.comment)]))
def test_quoted_swift_blocks_stand_in_their_files(block: Block) -> None:
    match = QUOTED.match(block.comment)
    assert match
    source = ROOT / match.group(1)
    assert source.is_file(), f"{block.where}: {source} does not exist"
    assert block.code.strip() in source.read_text(encoding="utf-8"), f"{block.where}: not as it is in {source}"


SWIFT_FILES = sorted({block.file for block in by_language("swift") if compiled_here(block)})


@pytest.mark.parametrize("file", SWIFT_FILES, ids=[str(file.relative_to(ROOT)) for file in SWIFT_FILES])
def test_swift_blocks_compile(file: Path, tmp_path: Path) -> None:
    blocks = [block for block in by_language("swift") if block.file == file and compiled_here(block)]
    for name, source in swift_sources(blocks).items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    swiftc = shutil.which("swiftc") or "swiftc"
    result = run([swiftc, "-typecheck", "-swift-version", "6", "-module-name", "DocBlocks",
                  "-I", str(BUILD / "Modules"), *module_maps(), *sorted(str(path) for path in tmp_path.glob("*.swift"))],
                 timeout=300)
    assert result.returncode == 0, f"{file.relative_to(ROOT)}: its Swift blocks do not compile:\n{result.stderr[-4000:]}"


@pytest.mark.parametrize("block", params([b for b in by_language("swift") if b.code.startswith("// swift-tools-version")]))
def test_package_manifests_evaluate(block: Block, tmp_path: Path) -> None:
    (tmp_path / "Package.swift").write_text(block.code, encoding="utf-8")
    swift = shutil.which("swift") or "swift"
    result = run([swift, "package", "dump-package"], cwd=tmp_path, timeout=300)
    assert result.returncode == 0, f"{block.where}: swift package dump-package failed:\n{result.stderr[-3000:]}"
    assert json.loads(result.stdout)["name"]


# -- c ------------------------------------------------------------------------------------

COUNTER_PRELUDE = ('fk_instance counter;\n'
                   'if (fk_create("counter", FK_NUL_TERMINATED, NULL, 0, &counter) != FK_OK) return 1;\n')


def c_program(block: Block) -> str:
    if re.search(r"\bmain\s*\(", block.code):
        return block.code
    includes = [line for line in block.code.splitlines() if line.startswith("#include")]
    body = "\n".join(line for line in block.code.splitlines() if not line.startswith("#include"))
    prelude = COUNTER_PRELUDE if re.search(r"\bcounter\b", body) and "fk_instance counter" not in body else ""
    headers = ["#include <stdio.h>", "#include <string.h>", '#include "fusionkit.h"', *includes]
    return "\n".join(dict.fromkeys(headers)) + "\n\nint main(void) {\n" + prelude + body + "\nreturn 0;\n}\n"


@pytest.mark.parametrize("block", params(by_language("c")))
def test_c_blocks_compile_and_run(block: Block, tmp_path: Path) -> None:
    source = tmp_path / "block.c"
    source.write_text(f"/* {block.where} */\n" + c_program(block), encoding="utf-8")
    cc = os.environ.get("CC") or shutil.which("cc") or "gcc"
    built = run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-variable", "-Wno-unused-but-set-variable",
                 f"-I{ROOT / 'include'}", str(source), f"-L{BUILD}", "-lFusionExamples", f"-Wl,-rpath,{BUILD}",
                 "-o", str(tmp_path / "block")])
    assert built.returncode == 0, f"{block.where}: does not compile:\n{built.stderr[-3000:]}"
    ran = run([str(tmp_path / "block")], cwd=tmp_path)
    assert ran.returncode == 0, f"{block.where}: exited {ran.returncode}:\n{ran.stdout[-2000:]}{ran.stderr[-2000:]}"


# -- python -------------------------------------------------------------------------------

# Blocks that cannot run here, each with why: they are compiled instead.
PYTHON_NOT_RUN = {
    "docs/plugin-libraries.md": "it loads the Chores plugin, which Tests/plugins builds and drives",
}


@pytest.mark.parametrize("block", params(by_language("python")))
def test_python_blocks_run(block: Block, mirror: Path) -> None:
    code = block.code
    if re.search(r"\blib\b", code) and not re.search(r"^lib\s*=", code, re.M):
        code = "import fusionkit\nlib = fusionkit.load()\n" + code
    if re.search(r"\bfusionkit\b", code) and "import fusionkit" not in code:
        code = "import fusionkit\n" + code
    reason = PYTHON_NOT_RUN.get(str(block.file.relative_to(ROOT)))
    if reason:
        compile(code, block.where, "exec")
        return
    result = run([sys.executable, "-c", code], cwd=mirror, timeout=120)
    assert result.returncode == 0, f"{block.where}: failed:\n{result.stdout[-2000:]}{result.stderr[-3000:]}"


# -- sh -----------------------------------------------------------------------------------

# `fusion` commands that only read and print: run, and must succeed.
FUSION_RUN = {"inspect", "send", "test", "replay"}
REPO_DIRS = ("examples/", "Tests/", "docs/", "scripts/", "bindings/", "include/", "Sources/", "Benchmarks/")


def commands(code: str) -> list[str]:
    """The block's commands: continuation lines joined, comments dropped, split at
    `&&`, `||`, `;` and pipes; `VAR=$(command)` gives its command."""
    joined = re.sub(r"\\\n\s*", " ", code)
    found = []
    for line in joined.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        for part in re.split(r"&&|\|\||;|\|", line):
            part = part.strip()
            assigned = re.match(r"^[A-Za-z_]+=\$\((.*)\)$", part)
            if assigned:
                part = assigned.group(1).strip()
            if part:
                found.append(part)
    return found


def made_earlier(block: Block, name: str) -> bool:
    """Whether the block's own commands make `name` (an -o output, a --record file, a
    package from `fusion new`, a build product)."""
    base = name.removeprefix("./")
    return bool(re.search(rf"(-o|--record|--journal)\s+\S*{re.escape(base)}(\s|$)", block.code))


def fusion_help(words: list[str]) -> str:
    result = run([str(FUSION), *words, "--help"])
    assert result.returncode == 0, f"fusion {' '.join(words)} --help: {result.stderr}"
    return result.stdout


def check_command(command: str, block: Block, mirror: Path) -> None:
    where = f"{block.where}: `{command}`"
    words = shlex.split(command)
    while words and re.match(r"^[A-Za-z_]+=", words[0]):
        words = words[1:]
    if not words:
        return
    program, args = words[0], words[1:]
    if program in (".build/debug/fusion", "fusion"):
        subcommand = args[0] if args else ""
        # Run when everything it reads is here: not a library or file the reader builds
        # or writes first (a plugin's .so, a recording made in the lines above).
        inputs_here = all((mirror / arg).exists() for arg in args[1:]
                          if not arg.startswith("-") and ("/" in arg or arg.endswith((".so", ".json"))))
        if subcommand in FUSION_RUN and "--state" not in args and inputs_here:
            result = run([str(FUSION), *args], cwd=mirror)
            assert result.returncode == 0, f"{where}: exited {result.returncode}: {result.stderr[-2000:]}"
            return
        help_text = fusion_help([subcommand])
        for flag in (arg.split("=")[0] for arg in args if arg.startswith("--")):
            assert flag in help_text, f"{where}: fusion {subcommand} has no option {flag}"
        return
    if program.startswith(("scripts/", "./", "/", ".venv/")):
        # .venv/bin/python3 and the like: the checkout's Python, which scripts/setup makes.
        assert (ROOT / program).exists() or made_earlier(block, program), f"{where}: {program} does not exist"
    elif program == "python3" and args[:1] == ["-m"]:
        module = args[1]
        assert run([sys.executable, "-c", f"import importlib.util as u; assert u.find_spec({module!r})"]).returncode == 0, \
            f"{where}: no module {module}"
    elif program == "cd" or program.startswith(".build/"):
        pass  # a folder the block made, or a build product
    else:
        assert shutil.which(program), f"{where}: {program} is not installed"
    for arg in args:
        if arg.startswith(REPO_DIRS) and "*" not in arg:
            assert (ROOT / arg).exists(), f"{where}: {arg} does not exist"


@pytest.mark.parametrize("block", params(by_language("sh")))
def test_shell_blocks_are_checked(block: Block, mirror: Path) -> None:
    found = commands(block.code)
    assert found, f"{block.where}: an empty shell block"
    for command in found:
        check_command(command, block, mirror)


# -- sql ----------------------------------------------------------------------------------

def sql_shape(text: str) -> str:
    """A statement with its parameters ($1, or a Swift interpolation) as `?`, its spaces as one."""
    text = re.sub(r"\\\((?:[^()]|\([^()]*\))*\)", "?", text)
    text = re.sub(r"\$\d+", "?", text)
    return " ".join(text.split())


@pytest.mark.parametrize("block", params(by_language("sql")))
def test_sql_blocks_are_what_the_journal_runs(block: Block) -> None:
    """A statement shown in the docs is one the PostgreSQL journal sends, word for word."""
    statements = set()
    for path in (ROOT / "Sources" / "FusionJournalPostgres").glob("*.swift"):
        text = path.read_text()
        literals = re.findall(r'"""\n(.*?)\n\s*"""', text, re.S) + re.findall(r'"((?:[^"\\\n]|\\.)*)"', text)
        statements |= {sql_shape(literal) for literal in literals}
    assert sql_shape(block.code) in statements, f"{block.where}: no statement of Sources/FusionJournalPostgres is this one"


# -- json, js, html -----------------------------------------------------------------------

@pytest.mark.parametrize("block", params(by_language("json")))
def test_json_blocks_parse(block: Block, tmp_path: Path) -> None:
    text = block.code.replace("…", "")
    value = json.loads(text)
    if isinstance(value, dict) and "feature" in value and "steps" in value:
        scenario = tmp_path / "doc.scenario.json"
        value.pop("$schema", None)
        scenario.write_text(json.dumps(value), encoding="utf-8")
        result = run([str(FUSION), "test", str(scenario)])
        assert result.returncode == 0, f"{block.where}: the scenario does not pass:\n{result.stdout}{result.stderr}"


def node_check(code: str, where: str, tmp_path: Path) -> None:
    module = tmp_path / "block.mjs"
    module.write_text(code, encoding="utf-8")
    result = run([NODE, "--check", str(module)])
    assert result.returncode == 0, f"{where}: not a valid ES module:\n{result.stderr[-2000:]}"


@pytest.mark.parametrize("block", params(by_language("js")))
def test_js_blocks_parse(block: Block, tmp_path: Path) -> None:
    node_check(block.code, block.where, tmp_path)


class _Scripts(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._inside = tag == "script" and ("type", "module") in attrs
        if self._inside:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        self._inside = False

    def handle_data(self, data: str) -> None:
        if self._inside:
            self.scripts[-1] += data


@pytest.mark.parametrize("block", params(by_language("html")))
def test_html_blocks_parse(block: Block, tmp_path: Path) -> None:
    parser = _Scripts()
    parser.feed(block.code)
    parser.close()
    assert parser.scripts, f"{block.where}: no module script"
    for script in parser.scripts:
        node_check(script, block.where, tmp_path)


# -- java ---------------------------------------------------------------------------------

JAVA_DEPS = ":".join(f"/usr/share/java/{name}.jar" for name in ("jna", "jackson-databind", "jackson-core",
                                                                 "jackson-annotations"))


@pytest.fixture(scope="module")
def java_jar() -> str:
    built = run([str(ROOT / "bindings" / "java" / "build.sh")])
    assert built.returncode == 0, f"bindings/java/build.sh failed:\n{built.stdout}{built.stderr}"
    return str(ROOT / built.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("block", params(by_language("java")))
def test_java_blocks_compile_and_run(block: Block, java_jar: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    name = re.search(r"^public (?:final )?class (\w+)", block.code, re.M)
    assert name, f"{block.where}: a Java block is a public class (with a main method to run)"
    source = tmp_path / f"{name.group(1)}.java"
    source.write_text(block.code, encoding="utf-8")
    classpath = f"{java_jar}:{JAVA_DEPS}"
    # The committed generated types (examples/java) are compiled with each block, as an app would.
    generated = sorted(str(path) for path in (ROOT / "examples" / "java").rglob("*.java"))
    compiled = run(["javac", "--release", "17", "-Xlint:all", "-Werror", "-cp", classpath, "-d", str(tmp_path),
                    str(source), *generated])
    assert compiled.returncode == 0, f"{block.where}: does not compile:\n{compiled.stdout}{compiled.stderr}"
    monkeypatch.setenv("FUSIONKIT_LIBRARY", str(BUILD / "libFusionExamples.so"))
    ran = run(["java", "-cp", f"{tmp_path}:{classpath}", name.group(1)])
    assert ran.returncode == 0, f"{block.where}: failed:\n{ran.stdout[-2000:]}{ran.stderr[-3000:]}"


# -- text (output) ------------------------------------------------------------------------

@pytest.mark.parametrize("block", params(by_language("text")))
def test_output_blocks_match_what_is_printed(block: Block) -> None:
    elsewhere = re.match(r"^output of a run: .*; checked by (\S+)$", block.comment)
    if elsewhere:
        checker = ROOT / elsewhere.group(1)
        assert checker.is_file(), f"{block.where}: {checker} does not exist"
        assert str(block.file.relative_to(ROOT)) in checker.read_text(), f"{block.where}: {checker} does not read it"
        return
    match = re.match(r"^output of: (.+)$", block.comment)
    assert match, f"{block.where}: an output block needs <!-- output of: COMMAND --> before it"
    words = shlex.split(match.group(1))
    assert words[0] == "fusion", f"{block.where}: output of {words[0]} cannot be checked here"
    result = run([str(FUSION), *words[1:]])
    printed = set((result.stdout + result.stderr).splitlines())
    missing = [line for line in block.code.splitlines() if line and line not in printed]
    assert not missing, f"{block.where}: not printed by `{match.group(1)}`: {missing}"
