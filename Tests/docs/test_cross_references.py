"""The docs' cross-references hold: every relative link of README.md, docs/, the bindings'
and the examples' READMEs names a file that exists, every `#anchor` a heading there (as
GitHub makes heading anchors), and every repository path the docs, the scripts and the
package's comments cite (`Tests/python/test_types.py`) exists.

A path is checked when it starts at a top-level folder of the repository and names no
placeholder (`examples/python/NAME.py`, `<target>`, `*`); what a reader or a build makes
first (`.build/…`, a `--out` folder) does not start at one of them."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOP = ("Sources", "Tests", "docs", "scripts", "examples", "bindings", "include", "Benchmarks", "deploy", ".ci")


def markdown_files() -> list[Path]:
    files = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *ROOT.glob("bindings/*/README.md"),
             *(ROOT / "examples").rglob("README.md")]
    return sorted(file for file in files if file.is_file() and ".build" not in file.parts)


FENCE = re.compile(r"^\s*```")


def prose(text: str) -> str:
    """The text outside fenced code blocks (a block's lines become empty lines)."""
    lines, inside = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            inside = not inside
            lines.append("")
        else:
            lines.append("" if inside else line)
    return "\n".join(lines)


def without_code_spans(line: str) -> str:
    return re.sub(r"(`+)(.+?)\1", "", line)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text (no markup) in lower case, without
    punctuation but `-` and `_`, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = re.sub(r"(`+)(.+?)\1", r"\2", text)  # code spans: their content
    text = re.sub(r"(\*\*|__|\*|(?<!\w)_|_(?!\w))", "", text)  # emphasis markers
    kept = "".join(char for char in text.lower()
                   if char in " -_" or unicodedata.category(char)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(file: Path) -> set[str]:
    text = prose(file.read_text(encoding="utf-8"))
    found: set[str] = set()
    counts: dict[str, int] = {}
    for match in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M):
        base = slug(match.group(1))
        number = counts.get(base, 0)
        counts[base] = number + 1
        found.add(base if number == 0 else f"{base}-{number}")
    found |= set(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
    return found


LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
HTML_LINK = re.compile(r"<(?:a|img)\s[^>]*?(?:href|src)=\"([^\"]+)\"")


def links(file: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(prose(file.read_text(encoding="utf-8")).split("\n"), 1):
        line = without_code_spans(line)
        for pattern in (LINK, REFERENCE, HTML_LINK):
            found += [(number, match.group(1)) for match in pattern.finditer(line)]
    return found


def external(target: str) -> bool:
    return bool(re.match(r"^[a-z][a-z0-9+.-]*:", target))  # https:, mailto:, doc:


def broken_links(file: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for number, target in links(file):
        if external(target):
            continue
        path, _, anchor = target.partition("#")
        where = f"{file.relative_to(root)}:{number}: {target}"
        resolved = (file.parent / path).resolve() if path else file
        if not resolved.exists():
            problems.append(f"{where}: no such file")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            problems.append(f"{where}: no heading #{anchor} in {resolved.relative_to(root)}")
    return problems


# A repository path: a top-level folder, then path characters; a trailing `:LINE` or
# punctuation is not part of it.
PATH = re.compile(rf"(?<![\w./-])((?:{'|'.join(re.escape(top) for top in TOP)})/[\w./+@-]*)")
PLACEHOLDER = re.compile(r"[*<>{}…$]|(^|/)[A-Z][A-Z_]+(\.\w+)?(/|$)|\.\.\.")


def cited_paths(text: str) -> list[str]:
    paths = []
    for match in PATH.finditer(text):
        path = match.group(1).rstrip(".,;:")
        end = match.end(1)
        if end < len(text) and text[end] in "*<{$…":
            continue  # `Tests/fuzz/corpus/<target>/`, a glob
        if not PLACEHOLDER.search(path):
            paths.append(path)
    return paths


def missing_paths(file: Path, spans: list[tuple[int, str]], root: Path = ROOT) -> list[str]:
    # A package's own README (examples/plugins/chores) cites paths inside that package.
    bases = [root, *(folder for folder in file.parents if folder.is_relative_to(root) and folder != root
                     and (folder / "Package.swift").is_file())]
    return [f"{file.relative_to(root)}:{number}: {path} does not exist"
            for number, text in spans for path in cited_paths(text) if not any((base / path).exists() for base in bases)]


def code_spans(file: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(prose(file.read_text(encoding="utf-8")).split("\n"), 1):
        found += [(number, match.group(2)) for match in re.finditer(r"(`+)(.+?)\1", line)]
    return found


def comment_lines(file: Path) -> list[tuple[int, str]]:
    """The lines of a script or a manifest that cite paths: its comments (in JSON, whose
    comments are "//" entries, every line), so that a renamed test folder is not left
    behind in one."""
    found = []
    for number, line in enumerate(file.read_text(encoding="utf-8").split("\n"), 1):
        comment = re.search(r"()(.*)$" if file.suffix == ".json" else r"(?:^|\s)(#|//)(.*)$", line)
        if comment:
            found.append((number, comment.group(2)))
    return found


MARKDOWN = markdown_files()
SOURCES = sorted([*(path for path in (ROOT / "scripts").iterdir() if path.is_file()), ROOT / ".ci" / "run",
                  ROOT / "Package.swift", *(ROOT / "examples").rglob("tsconfig.json")])


def ids(files: list[Path]) -> list[str]:
    return [str(file.relative_to(ROOT)) for file in files]


def test_the_files_are_found() -> None:
    names = set(ids(MARKDOWN))
    assert {"README.md", "docs/shell.md", "bindings/python/README.md", "examples/textual/README.md"} <= names
    assert "docs/rules/README.md" in names


@pytest.mark.parametrize("file", MARKDOWN, ids=ids(MARKDOWN))
def test_relative_links_and_anchors_resolve(file: Path) -> None:
    problems = broken_links(file)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("file", MARKDOWN, ids=ids(MARKDOWN))
def test_paths_in_code_spans_exist(file: Path) -> None:
    problems = missing_paths(file, code_spans(file))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("file", SOURCES, ids=ids(SOURCES))
def test_paths_in_script_and_manifest_comments_exist(file: Path) -> None:
    problems = missing_paths(file, comment_lines(file))
    assert not problems, "\n".join(problems)


def test_the_readme_is_a_doorway() -> None:
    """What, two commands, a taste of each front end: the manual is docs/."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 150, f"README.md has {lines} lines; move detail into docs/"


# -- sections cited by name: `docs/deploy.md, "Poison inputs"` --------------------------

CITATION = re.compile(r"([\w./-]*(?:\.md|README))[,:]? \"([^\"\n]+)\"")


def sections(file: Path) -> set[str]:
    """A file's headings, and the bold run-in heads its paragraphs and list items start
    with (`**Fencing.** Taking a session over …`), as slugs."""
    text = prose(file.read_text(encoding="utf-8"))
    found = {slug(match.group(1)) for match in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M)}
    return found | {slug(match.group(1)) for match in re.finditer(r"^\s*(?:[-*] )?\*\*(.+?)[.:]?\*\*", text, re.M)}


def broken_citations(file: Path, root: Path = ROOT) -> list[str]:
    problems = []
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return []
    for number, line in enumerate(text.split("\n"), 1):
        for match in CITATION.finditer(line):
            name, section = match.group(1), match.group(2)
            name = "README.md" if name.endswith("README") and not name.endswith(".md") else name
            if name.endswith("DESIGN.md"):
                continue  # ../shared/DESIGN.md lives outside the repository
            cited = next((base / name for base in (root, file.parent) if (base / name).is_file()), None)
            where = f"{file.relative_to(root)}:{number}: {match.group(0)}"
            if cited is None:
                problems.append(f"{where}: no such file")
            elif slug(section) not in sections(cited):
                problems.append(f"{where}: no such section in {cited.relative_to(root)}")
    return problems


@pytest.mark.parametrize("file", MARKDOWN + SOURCES, ids=ids(MARKDOWN + SOURCES))
def test_sections_cited_by_name_exist(file: Path) -> None:
    problems = broken_citations(file)
    assert not problems, "\n".join(problems)


# -- the checker itself: it must be able to fail -----------------------------------------

def test_slugs_are_githubs() -> None:
    assert slug("The shell: `fusion`") == "the-shell-fusion"
    assert slug("Sessions across machines") == "sessions-across-machines"
    assert slug("What it costs (per input)") == "what-it-costs-per-input"
    assert slug("`fk_send`, `fk_state` and *friends*") == "fk_send-fk_state-and-friends"
    assert slug("Front ends — [that render](x.md)") == "front-ends--that-render"
    assert slug("Café 1.0") == "café-10"


def test_the_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "Tests" / "docs").mkdir(parents=True)
    (tmp_path / "docs" / "shell.md").write_text("# The shell: `fusion`\n", encoding="utf-8")
    page = tmp_path / "docs" / "page.md"
    page.write_text("# Title\n\n## A part\n\n[ok](#a-part) [ok](shell.md#the-shell-fusion) [gone](#no-part)\n"
                    "[missing](nowhere.md) [bad anchor](shell.md#nowhere) [web](https://example.com/x.md)\n"
                    "`Tests/types` `Tests/docs` `examples/python/NAME.py` `Tests/fuzz/corpus/<target>/`\n\n"
                    "```sh\nls Tests/types\n```\n", encoding="utf-8")
    problems = broken_links(page, tmp_path)
    assert [problem.split(": ")[1] for problem in problems] == ["#no-part", "nowhere.md", "shell.md#nowhere"]
    assert missing_paths(page, code_spans(page), tmp_path) == ["docs/page.md:7: Tests/types does not exist"]
    script = tmp_path / "script"
    script.write_text("run Tests/gone\n# checks Tests/types and Tests/docs.\n", encoding="utf-8")
    assert missing_paths(script, comment_lines(script), tmp_path) == ["script:2: Tests/types does not exist"]
