"""Every fenced code block of the docs is run or compiled, so the docs cannot rot.

The docs are README.md, docs/**/*.md, bindings/*/README.md, examples/*/README.md and the
DocC catalogs (Sources/**/*.docc). A block without a language fails. By language:

- swift: the blocks of one file are type-checked together as one module against the
  built FusionKit, FusionExamples and FusionHost (a block with top-level statements is its
  main.swift); a block starting `// swift-tools-version` is a Package.swift, evaluated by
  `swift package dump-package`. A fragment names its context in a comment before it:
  `<!-- swift wrapper: extension ProfileStore { func example() -> Effect<Action> { … } } -->`;
  a block quoted from a file another test builds says so (`<!-- swift: as in FILE -->`)
  and must stand in that file as it is.
- c: compiled against include/fusionkit.h and the built library, warnings as errors, and
  run (a fragment is put in `main`, after its #include lines; one that uses `counter`
  without declaring it gets a created Counter instance first). A `printf(…);  /* RESULT */`
  line must print RESULT (its first line), `...` standing for any text.
- python: run, from a folder that mirrors the repository (files it writes land there),
  with `fusionkit` importable and, for a fragment that uses `lib` without making it,
  `lib = fusionkit.load()` first. A `print(…)  # RESULT` line must print RESULT (the first
  line it prints), `...` standing for any text.
- sh: run with bash (`set -eo pipefail`, stdin empty, HOME a fresh folder) in a scratch
  clone of the checkout, the doc's blocks one after another in the same clone; `fusion` is
  the suite's debug build on PATH ($FUSION_BIN_DIR, also the clone's .build/debug), so
  nothing is built again. A command (as `commands` splits a block) that cannot run here is
  in NOT_RUN with its reason: the README's two commands (CI runs them), servers,
  full-screen programs, builds and installs; those are checked without running (the
  program or script exists, the repository paths it names exist, a `fusion` command's
  options are in its --help), and an entry that no longer names a command of its doc fails.
  A trailing comment that starts like JSON (`{`, `[`, `"`, a number) is what that command
  prints, exactly, `...` standing for any text: `fusion send counter increase  # {"value":1,...}`.
- sql: exactly a statement (a string literal) of Sources/FusionJournalPostgres, its
  parameters and line breaks included.
- json: parsed; a scenario (`feature` and `steps`) is also run with `fusion test`.
- js: `node --check` as an ES module; html: its inline module scripts the same.
- java: a public class, compiled against bindings/java (bindings/java/build.sh) and the
  generated types of examples/java with warnings as errors, and its `main` run against
  the built library.
- text: output. `<!-- output of: COMMAND -->` before it: the `fusion` COMMAND is run and
  its output (stdout, then stderr) must be the block, line for line and in order; where
  output varies, `…` stands for any text within a line, and a line that is only `…` for
  any number of lines. `<!-- output of a run: DESCRIPTION; checked by FILE -->`: FILE
  compares the block with a run's output, and counts only if it reads the block by its
  marker: FILE holds the doc's path and `output of a run: DESCRIPTION`, which no other
  block of the doc has.
"""
from __future__ import annotations

import difflib
import html.parser
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass, replace
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
             *sorted(ROOT.glob("examples/*/README.md")), *sorted((ROOT / "Sources").rglob("*.docc/**/*.md"))]
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
    # FusionKit's macros (@JSONCoded, @ExportLibrary), as SwiftPM hands them to its own targets.
    macros = ["-load-plugin-executable", f"{BUILD / 'FusionMacros-tool'}#FusionMacros"]
    result = run([swiftc, "-typecheck", "-swift-version", "6", "-module-name", "DocBlocks", *macros,
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


C_RESULT = re.compile(r"^(\s*)printf\(.*;\s*/\*\s*(.*?)\s*\*/\s*$")


@pytest.mark.parametrize("block", params(by_language("c")))
def test_c_blocks_compile_and_run(block: Block, tmp_path: Path) -> None:
    """Each block compiles and runs; a `printf(…);  /* RESULT */` line prints RESULT (its
    first line), `...` standing for any text."""
    lines, results = [], []
    for line in block.code.splitlines():
        result = C_RESULT.match(line)
        if result:
            lines.append(f'{result.group(1)}printf("\\x1e%d\\n", {len(results)});')
            results.append((line.strip(), result.group(2)))
        lines.append(line)
    source = tmp_path / "block.c"
    source.write_text(f"/* {block.where} */\n" + c_program(replace(block, code="\n".join(lines) + "\n")),
                      encoding="utf-8")
    cc = os.environ.get("CC") or shutil.which("cc") or "gcc"
    # A block about the sandbox links libFusionSandbox.so, which exports the same ABI.
    library = "FusionSandbox" if "fusionkit_sandbox.h" in block.code else "FusionExamples"
    if not (BUILD / f"lib{library}.so").exists():
        subprocess.run(["swift", "build", "--product", library], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    built = run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-variable", "-Wno-unused-but-set-variable",
                 f"-I{ROOT / 'include'}", str(source), f"-L{BUILD}", f"-l{library}", f"-Wl,-rpath,{BUILD}",
                 "-o", str(tmp_path / "block")])
    assert built.returncode == 0, f"{block.where}: does not compile:\n{built.stderr[-3000:]}"
    ran = run([str(tmp_path / "block")], cwd=tmp_path)
    assert ran.returncode == 0, f"{block.where}: exited {ran.returncode}:\n{ran.stdout[-2000:]}{ran.stderr[-2000:]}"
    printed = marked_outputs(ran.stdout)
    for number, (line, shown) in enumerate(results):
        first = printed[number].split("\n", 1)[0]
        assert result_pattern(shown, "...").fullmatch(first), \
            f"{block.where}: `{line}` prints\n  {first}\nnot what its comment says:\n  {shown}"


# -- results: what a block says a command prints -------------------------------------------

def result_pattern(shown: str, elision: str) -> re.Pattern[str]:
    """What a result comment or an output block matches: the text as shown, where
    `elision` stands for any text of one line."""
    return re.compile(".*?".join(re.escape(part) for part in shown.split(elision)))


def lines_pattern(shown: str) -> re.Pattern[str]:
    """An output block as a pattern over the printed lines, in order: a line that is only
    `…` stands for any number of lines, and `…` within a line for any text of that line."""
    parts = []
    for line in shown.rstrip("\n").split("\n"):
        if line == "…":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r"[^\n]*?".join(re.escape(part) for part in line.split("…")) + r"\n")
    return re.compile("".join(parts))


def differs(shown: str, printed: str) -> str:
    return "\n".join(difflib.unified_diff(shown.splitlines(), printed.splitlines(), "shown", "printed", lineterm=""))


MARK = "\x1e"  # printed before each line whose result the test compares


def marked_outputs(stdout: str) -> dict[int, str]:
    """The output after each mark, by the mark's number."""
    outputs: dict[int, str] = {}
    for chunk in stdout.split(MARK)[1:]:
        number, _, output = chunk.partition("\n")
        outputs[int(number)] = output
    return outputs


# -- python -------------------------------------------------------------------------------

def python_results(code: str) -> list[tuple[int, str]]:
    """(line number, result) of each `print(…)  # RESULT` line: what it prints, `...` for
    any text."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            line = token.line.strip()
            if line.startswith("print(") and not line.startswith("#"):
                found.append((token.start[0], token.string[1:].strip()))
    return found


@pytest.fixture(scope="session")
def chores_built() -> Path:
    """examples/plugins/chores built as docs/plugin-libraries.md says (its own package;
    Tests/plugins builds it the same way): a Python block there loads it."""
    subprocess.run(["swift", "build", "--product", "Chores"], cwd=ROOT / "examples/plugins/chores", check=True,
                   capture_output=True)
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT / "examples/plugins/chores", check=True,
                         capture_output=True, text=True).stdout.strip()
    return Path(out)


@pytest.mark.parametrize("block", params(by_language("python")))
def test_python_blocks_run(block: Block, mirror: Path, request: pytest.FixtureRequest) -> None:
    """Each block runs, and each `print(…)  # RESULT` line prints its result."""
    if "libChores" in block.code:
        request.getfixturevalue("chores_built")
    lines = block.code.splitlines()
    results = python_results(block.code)
    for number, (line, _) in reversed(list(enumerate(results))):
        indent = re.match(r"\s*", lines[line - 1]).group(0)  # type: ignore[union-attr]
        lines.insert(line - 1, f"{indent}print({MARK + str(number)!r}, flush=True)")
    code = "\n".join(lines) + "\n"
    if re.search(r"\blib\b", code) and not re.search(r"^lib\s*=", code, re.M):
        code = "import fusionkit\nlib = fusionkit.load()\n" + code
    if re.search(r"\bfusionkit\b", code) and "import fusionkit" not in code:
        code = "import fusionkit\n" + code
    result = run([sys.executable, "-c", code], cwd=mirror, timeout=120)
    assert result.returncode == 0, f"{block.where}: failed:\n{result.stdout[-2000:]}{result.stderr[-3000:]}"
    printed = marked_outputs(result.stdout)
    for number, (line, shown) in enumerate(results):
        first = printed[number].split("\n", 1)[0]
        assert result_pattern(shown, "...").fullmatch(first), \
            f"{block.where}: line {line} prints\n  {first}\nnot what its comment says:\n  {shown}"


# -- sh -----------------------------------------------------------------------------------

# Commands of the docs' shell blocks that the test does not run, by doc and command (as
# `commands` gives it), each with why. They are still checked without running (below); an
# entry that is no longer a command of its doc fails.
BUILT_BY_THE_SUITE = "the suite's build is the clone's .build/debug ($FUSION_BIN_DIR): building again takes minutes"
CLUSTER = "the cluster (bridges, PostgreSQL, nginx), running until stopped: Tests/cluster starts and stops it"
TEXTUAL = "a full-screen Textual app: Tests/textual drives it with Textual's pilot"
NCURSES = "a full-screen ncurses program: Tests/abi/test_ncurses.py drives it in tmux"
GREETER = "needs libGreeter.so, which `swift build` of a new package makes in minutes (Tests/plugins/test_scaffold.py)"
MINE = "./libMine.so stands for the reader's own library"
WASM = ("builds the module from a fresh clone's own debug build (minutes); Tests/wasm and Tests/web build it from "
        "the same sources with Wasm/build.py, which the script runs")
SANDBOXED = ("needs the module scripts/build-wasm makes (minutes in a fresh clone); Tests/sandbox runs these "
             "commands on the module it builds")
NOT_RUN: dict[tuple[str, str], str] = {
    ("docs/plugin-libraries.md", "scripts/build-wasm"): WASM,
    ("docs/plugin-libraries.md", "fusion inspect .build/wasm/FusionExamples.wasm"): SANDBOXED,
    ("docs/plugin-libraries.md", "fusion run .build/wasm/FusionExamples.wasm counter"): SANDBOXED,
    ("docs/plugin-libraries.md", "fusion serve --plugin-time-limit 250ms --plugin-memory-limit 32MiB .build/wasm/FusionExamples.wasm"):
        SANDBOXED,
    ("README.md", "scripts/demo"): "CI runs it first (.ci/run, stdin empty); it builds and starts every front end",
    ("README.md", "scripts/test"): "CI runs it (.ci/run): it is every test, this one included",
    ("README.md", ".venv/bin/python3 examples/textual/app.py wifi"): TEXTUAL,
    ("README.md", "./wifi_screen"): NCURSES,
    ("docs/c.md", "swift build --product FusionExamples"): BUILT_BY_THE_SUITE,
    ("docs/c.md", "./wifi_screen"): NCURSES,
    ("docs/deploy.md", "scripts/cluster --bridges 3 --port 8080"): CLUSTER,
    ("docs/front-ends.md", "scripts/build-wasm"): WASM,
    ("docs/wasm.md", "scripts/build-wasm"): WASM,
    ("docs/deploy.md", "scripts/cluster --tls --auth"): CLUSTER,
    ("docs/front-ends.md", "java -cp .build/java/fusionkit.jar:/usr/share/java/jna.jar:/usr/share/java/jackson-databind.jar"
                           ":/usr/share/java/jackson-core.jar:/usr/share/java/jackson-annotations.jar:.build/java/tests "
                           "wifiscreen.WifiScreen"):
        "a Swing window: Tests/java's SwingScreenTest drives it under Xvfb (scripts/test-java)",
    ("docs/java.md", "swift build --product FusionExamples"): BUILT_BY_THE_SUITE,
    ("docs/java.md", "scripts/test-java"): "the Java test suite: scripts/test runs it",
    ("docs/plugin-libraries.md", "swift build"): GREETER,
    ("docs/plugin-libraries.md", "swift test"): GREETER,
    ("docs/plugin-libraries.md", "fusion run .build/debug/libGreeter.so greeter"): GREETER,
    ("docs/python.md", "swift build --product FusionExamples"): BUILT_BY_THE_SUITE,
    ("docs/python.md", "pip install bindings/python"):
        "installs into the Python running the tests; Tests/python/test_wheel.py installs it into a new venv",
    ("docs/reliability.md", "scripts/test-reliability"): "sanitizer builds, fuzzing and the full soak: CI runs it (.ci/run)",
    ("docs/scenarios.md", "R=$(swift build -c release --product FusionExamples --show-bin-path)"):
        "a release build and a benchmark for a quiet machine: scripts/bench runs them",
    ("docs/scenarios.md", "cc -O2 -Iinclude Benchmarks/time-travel/time_travel_bench.c -L$R -lFusionExamples "
                          "-Wl,-rpath,$R -o /tmp/tt"): "needs the release build above",
    ("docs/scenarios.md", "Benchmarks/time-travel/run.py --bench /tmp/tt --runs 3"):
        "a benchmark for a quiet machine: scripts/bench runs it",
    ("docs/security.md", "fusion serve --auth jwt --jwt-key secret.key --jwt-audience fusion --jwt-claim name"):
        "secret.key is the reader's signing key; Tests/auth starts the bridge with its own",
    ("docs/shell.md", "scripts/install"): "builds the release fusion and links it into ~/.local/bin; the test's fusion "
                                          "is the suite's debug build, on PATH",
    ("docs/typed-front-ends.md", "fusion types --lang ts ./libMine.so --out web/types"): MINE,
    ("docs/typed-front-ends.md", "fusion types --lang python ./libMine.so --out app"): MINE,
    ("docs/typed-front-ends.md", "fusion types --lang ts ./libMine.so --check web/types"): MINE,
    ("docs/web.md", "swift build"): BUILT_BY_THE_SUITE,
    ("docs/web.md", "fusion serve ./libMine.so --port 0 --static my-pages/"): MINE,
    ("examples/textual/README.md", "scripts/setup"):
        "installs system packages and the .venv: CI runs it (scripts/test); the test uses the .venv it made",
    ("examples/textual/README.md", ".venv/bin/python3 examples/textual/app.py"): TEXTUAL,
    ("examples/textual/README.md", ".venv/bin/python3 examples/textual/app.py counter"): TEXTUAL,
    ("examples/textual/README.md", ".venv/bin/python3 examples/textual/app.py profile --delay 1 --fail family"): TEXTUAL,
    ("examples/textual/README.md", ".venv/bin/python3 examples/textual/app.py wifi --manual-clock"): TEXTUAL,
}

SEPARATOR = re.compile(r"&&|\|\||;|\|")


def logical_lines(code: str) -> list[tuple[str, str]]:
    """(command line, trailing comment) of each line of a block, continuation lines joined."""
    found = []
    for line in re.sub(r"\\\n\s*", " ", code).splitlines():
        parts = re.split(r"(?:^|\s)#", line, maxsplit=1)
        command, comment = parts[0].strip(), (parts[1].strip() if len(parts) > 1 else "")
        if command:
            found.append((command, comment))
    return found


def commands(code: str) -> list[str]:
    """The block's commands: split at `&&`, `||`, `;` and pipes."""
    return [part.strip() for line, _ in logical_lines(code) for part in SEPARATOR.split(line) if part.strip()]


def is_result(comment: str) -> bool:
    """A trailing comment that starts like JSON (`{`, `[`, `"`, a number) is what the command
    prints, `...` standing for any text."""
    return bool(re.match(r'^[{\["]|^-?\d', comment))


def fusion_help(words: list[str]) -> str:
    result = run([str(FUSION), *words, "--help"])
    assert result.returncode == 0, f"fusion {' '.join(words)} --help: {result.stderr}"
    return result.stdout


def check_without_running(command: str, block: Block) -> None:
    """A command the test does not run: its program exists (or is installed), the repository
    paths it names exist, and a `fusion` command's options are in its --help."""
    where = f"{block.where}: `{command}`"
    assigned = re.match(r"^[A-Za-z_]+=\$\((.*)\)$", command)  # VAR=$(COMMAND): COMMAND
    words = shlex.split(assigned.group(1) if assigned else command)
    while words and re.match(r"^[A-Za-z_]+=", words[0]):
        words = words[1:]
    program, args = words[0], words[1:]
    if program in ("fusion", ".build/debug/fusion"):
        help_text = fusion_help(args[:1])
        for flag in (arg.split("=")[0] for arg in args if arg.startswith("--")):
            assert flag in help_text, f"{where}: fusion {args[0]} has no option {flag}"
    elif program.startswith(("scripts/", ".venv/", "Benchmarks/")):
        assert (ROOT / program).exists(), f"{where}: {program} does not exist"
    elif not program.startswith("./"):
        assert shutil.which(program), f"{where}: {program} is not installed"
    for arg in args:
        if arg.startswith(REPO_DIRS) and "*" not in arg and ".build/" not in arg:
            assert (ROOT / arg).exists(), f"{where}: {arg} does not exist"


REPO_DIRS = ("examples/", "Tests/", "docs/", "scripts/", "bindings/", "include/", "Sources/", "Benchmarks/")


def test_every_command_not_run_is_in_its_doc() -> None:
    """The list of commands not run names only commands the docs have."""
    present = {(str(block.file.relative_to(ROOT)), command) for block in by_language("sh")
               for command in commands(block.code)}
    stale = [f"{doc}: `{command}`" for doc, command in NOT_RUN if (doc, command) not in present]
    assert not stale, "NOT_RUN names commands no doc has any more: " + "; ".join(stale)


@pytest.fixture(scope="module")
def scratch_clones() -> dict[Path, Path]:
    """The scratch clone of each doc whose shell blocks ran, by doc (see scratch_clone)."""
    return {}


def scratch_clone(doc: Path, clones: dict[Path, Path], bin_dir: Path, folder: Path) -> Path:
    """A clone of the checkout as it stands (its uncommitted changes and new files too, so
    the tree matches the build), made when the doc's first shell block runs: the doc's blocks
    run in it in order, as a reader runs them. Its .build/debug is the suite's build, .venv
    the checkout's, examples/plugins/chores/.build the plugin's build in the checkout."""
    if doc not in clones:
        clone = folder / "clone"
        subprocess.run(["git", "clone", "--quiet", "--shared", str(ROOT), str(clone)], check=True)
        changes = subprocess.run(["git", "diff", "HEAD", "--binary"], cwd=ROOT, check=True, capture_output=True).stdout
        if changes:
            subprocess.run(["git", "apply", "--whitespace=nowarn"], cwd=clone, input=changes, check=True)
        new_files = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                                   capture_output=True, text=True).stdout.split("\0")
        for name in filter(None, new_files):
            if (ROOT / name).is_file():
                (clone / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, clone / name)
        (clone / ".build").mkdir()
        (clone / ".build" / "debug").symlink_to(bin_dir)
        (clone / ".venv").symlink_to(ROOT / ".venv")
        (clone / "examples/plugins/chores/.build").symlink_to(ROOT / "examples/plugins/chores/.build")
        (folder / "home").mkdir()
        clones[doc] = clone
    return clones[doc]


# A server (`fusion serve`, `python3 -m http.server`) is started, its first line printed,
# and stopped: it started. (Python writes that line at once, as it does to a terminal.)
SERVE_BRIEFLY = """
serve_briefly() {
    local fifo pid line=""
    fifo=$(mktemp -u) && mkfifo "$fifo"
    PYTHONUNBUFFERED=1 "$@" >"$fifo" 2>&1 &
    pid=$!
    exec 3<"$fifo" && rm "$fifo"
    read -t 60 -r line <&3 || true
    if ! kill -0 "$pid" 2>/dev/null; then
        printf '%s\\n' "$line" && cat <&3 && wait "$pid" && echo "stopped by itself"
        return 1
    fi
    kill "$pid" && wait "$pid" || true
    exec 3<&-
    printf '%s\\n' "$line"
}
"""


def shell_script(block: Block) -> tuple[str, list[tuple[int, str, str]]]:
    """The block as a bash script: commands not run are `:` (a no-op), servers are served
    briefly, and a numbered mark is printed before each line; with the (number, command
    line, result) of lines with a result."""
    doc = str(block.file.relative_to(ROOT))
    script = ["set -eo pipefail", SERVE_BRIEFLY]
    results = []
    for number, (line, comment) in enumerate(logical_lines(block.code)):
        served = False
        for part in (part.strip() for part in SEPARATOR.split(line)):
            if part and (doc, part) in NOT_RUN:
                assert not is_result(comment), f"{block.where}: `{line}` shows a result the test cannot check"
                line = line.replace(part, ": " + part, 1)
            elif part.startswith(("fusion serve", "python3 -m http.server")):
                line = line.replace(part, "serve_briefly " + part, 1)
                served = True
        if is_result(comment) or (served and comment.startswith("Serving ")):
            results.append((number, line, comment))
        script += [f"printf '{MARK}%s\\n' {number}", line]
    return "\n".join(script) + "\n", results


@pytest.mark.parametrize("block", params(by_language("sh")))
def test_shell_blocks_run(block: Block, bin_dir: Path, scratch_clones: dict[Path, Path],
                          tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Each shell block runs in a scratch clone (its doc's blocks in order, stdin empty),
    but for the commands NOT_RUN lists, which are checked without running; a command with
    a result comment prints that."""
    doc = str(block.file.relative_to(ROOT))
    found = commands(block.code)
    assert found, f"{block.where}: an empty shell block"
    for command in found:
        if (doc, command) in NOT_RUN:
            check_without_running(command, block)
    if all((doc, command) in NOT_RUN for command in found):
        return
    if "libChores" in block.code:
        request.getfixturevalue("chores_built")
    clone = scratch_clone(block.file, scratch_clones, bin_dir, tmp_path)
    script, results = shell_script(block)
    home = clone.parent / "home"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(home),
           "PYTHONPATH": str(clone / "bindings/python")}
    ran = subprocess.run(["bash", "-c", script], cwd=clone, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, timeout=300)
    assert ran.returncode == 0, f"{block.where}: exited {ran.returncode}:\n{script}\n{ran.stdout[-3000:]}" \
                                f"{ran.stderr[-3000:]}"
    printed = marked_outputs(ran.stdout)
    for number, line, shown in results:
        output = printed[number].rstrip("\n")
        assert result_pattern(shown, "...").fullmatch(output), \
            f"{block.where}: `{line}` prints\n  {output}\nnot what its comment says:\n  {shown}"


# -- sql ----------------------------------------------------------------------------------

def swift_string_literals(text: str) -> set[str]:
    """The multi-line string literals of Swift source as their value (the closing
    delimiter's indentation removed), and the one-line literals."""
    literals = set()
    for body, indent in re.findall(r'"""\n(.*?)\n([ \t]*)"""', text, re.S):
        literals.add("\n".join(line.removeprefix(indent) for line in body.split("\n")))
    literals |= set(re.findall(r'"((?:[^"\\\n]|\\.)*)"', text))
    return literals


@pytest.mark.parametrize("block", params(by_language("sql")))
def test_sql_blocks_are_what_the_journal_runs(block: Block) -> None:
    """A statement shown in the docs is one the PostgreSQL journal sends, exactly: its
    parameters, words and line breaks as the source has them."""
    statements = set()
    for path in (ROOT / "Sources" / "FusionJournalPostgres").glob("*.swift"):
        statements |= swift_string_literals(path.read_text(encoding="utf-8"))
    assert block.code.rstrip("\n") in statements, f"{block.where}: no statement of Sources/FusionJournalPostgres is this one"


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

CHECKED_ELSEWHERE = re.compile(r"^(output of a run: .*); checked by (\S+)$")


@pytest.mark.parametrize("block", params(by_language("text")))
def test_output_blocks_match_what_is_printed(block: Block) -> None:
    """`<!-- output of: COMMAND -->`: COMMAND's output (stdout, then stderr), line for line
    and in order, `…` standing for what varies (see lines_pattern).
    `<!-- output of a run: DESCRIPTION; checked by FILE -->`: FILE compares it, and reads it
    by its marker: FILE holds the doc's path and `output of a run: DESCRIPTION`, which
    names this block only."""
    doc = str(block.file.relative_to(ROOT))
    elsewhere = CHECKED_ELSEWHERE.match(block.comment)
    if elsewhere:
        marker, checker = elsewhere.group(1), ROOT / elsewhere.group(2)
        assert checker.is_file(), f"{block.where}: {checker} does not exist"
        text = checker.read_text(encoding="utf-8")
        assert doc in text and marker in text, f"{block.where}: {checker} does not read it by `{doc}` and `{marker}`"
        same = [other.where for other in ALL_BLOCKS if other is not block and other.file == block.file
                and other.comment.startswith(marker + ";")]
        assert not same, f"{block.where}: its marker also names {same}"
        return
    match = re.match(r"^output of: (.+)$", block.comment)
    assert match, f"{block.where}: an output block needs <!-- output of: COMMAND --> before it"
    words = shlex.split(match.group(1))
    assert words[0] == "fusion", f"{block.where}: output of {words[0]} cannot be checked here"
    result = run([str(FUSION), *words[1:]])
    printed = result.stdout + result.stderr
    assert lines_pattern(block.code).fullmatch(printed), \
        f"{block.where}: not what `{match.group(1)}` prints:\n{differs(block.code, printed)}"
