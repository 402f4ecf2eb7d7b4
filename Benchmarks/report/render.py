#!/usr/bin/env python3
"""Writes the measured blocks of the documents from the raw results the benchmarks keep
in Benchmarks/results: every figure, ratio and verdict between a block's markers
(<!-- NAME:begin --> … <!-- NAME:end -->), and docs/patch-scaling.svg, comes from here.

    python3 Benchmarks/report/render.py            # rewrite the blocks from Benchmarks/results
    python3 Benchmarks/report/render.py --check    # exit 1 if any block differs from what the results give
    python3 Benchmarks/report/render.py --results DIR --root DIR   # another run's results, another copy of the docs

A benchmark writes its raw results (every sample), then runs this; Tests/docs runs
--check, so that a hand edit of a measured block, or a result committed without its
block, fails. Under every block goes the provenance of the results it was rendered from
(provenance.sentence: the commit, the command, the machine).

Adding a renderer (a new benchmark's block):
1. The benchmark writes Benchmarks/results/NAME.json through results.keep (or scripts/bench
   stamps it: `measure FILE COMMAND...`), and dependencies.py declares the paths it depends on.
2. A module here, Benchmarks/report/NAME.py, defines DOCUMENT ("docs/….md"), BLOCK (the
   marker's name), RESULTS ("NAME.json") and render(raw) -> str, the block's text from the
   parsed file; or BLOCKS, a list of (document, block, results, render) for several blocks.
   RESULTS may be a tuple of file names: render then gets {file name: parsed file}.
   Verdicts come from verdicts.py (the one rule), numbers are written by figures.py.
3. It is imported and added to MODULES below, the document gets the
   <!-- BLOCK:begin --> <!-- BLOCK:end --> markers, and `python3 Benchmarks/report/render.py`
   fills them; Tests/docs/test_measured_blocks.py then holds the docs to the results.
"""
from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import baseline  # noqa: E402
import clock_records  # noqa: E402
import cluster_load  # noqa: E402
import fusion_bench  # noqa: E402
import group_commit  # noqa: E402
import java_bench  # noqa: E402
import journal_cost  # noqa: E402
import page_bench  # noqa: E402
import patch_plot  # noqa: E402
import provenance  # noqa: E402
import python_bench  # noqa: E402
import reliability  # noqa: E402
import sandbox_bench  # noqa: E402
import time_travel  # noqa: E402
import web_load  # noqa: E402

ROOT = HERE.parents[1]
Render = Callable[[Any], str]
#: The modules that render blocks: each has DOCUMENT, BLOCK, RESULTS and render, or a
#: BLOCKS list of such (document, block, results, render) for several.
MODULES: tuple[ModuleType, ...] = (
    fusion_bench, python_bench, java_bench, web_load, page_bench, baseline, time_travel, journal_cost, group_commit, clock_records, reliability,
    cluster_load, sandbox_bench)


def results_names(results: str | tuple[str, ...]) -> tuple[str, ...]:
    """The results files a block is rendered from."""
    return (results,) if isinstance(results, str) else results


def blocks() -> list[tuple[str, str, str | tuple[str, ...], Render]]:
    found = []
    for module in MODULES:
        if hasattr(module, "BLOCKS"):
            found += module.BLOCKS
        else:
            found.append((module.DOCUMENT, module.BLOCK, module.RESULTS, module.render))
    return found

#: Whole files made from results: (file, results, render).
FILES: tuple[tuple[str, str, Render], ...] = (
    (patch_plot.FILE, fusion_bench.RESULTS, patch_plot.render),
)


def replace_block(text: str, name: str, body: str, where: str) -> str:
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    pattern = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.S)
    if len(pattern.findall(text)) != 1:
        raise SystemExit(f"{where}: expected one {begin} … {end} block")
    return pattern.sub(lambda _: f"{begin}\n{body}\n{end}", text)


def rendered(results: Path, root: Path) -> dict[Path, str]:
    """Every file the results decide, as it should read."""
    files: dict[Path, str] = {}

    def raw(name: str) -> dict[str, Any]:
        path = results / name
        if not path.is_file():
            raise SystemExit(f"no results at {path}: run the benchmark that writes them (scripts/bench)")
        loaded: dict[str, Any] = json.loads(path.read_text())
        return loaded

    for document, block, names, render in blocks():
        path = root / document
        text = files.get(path) or path.read_text()
        loaded = {name: raw(name) for name in results_names(names)}
        body = render(loaded[names] if isinstance(names, str) else loaded)
        said = "\n".join(provenance.sentence(name, each) for name, each in loaded.items())
        files[path] = replace_block(text, block, f"{body}\n\n{said}", str(path))
    for name, results_name, render in FILES:
        files[root / name] = render(raw(results_name))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file differs")
    parser.add_argument("--results", type=Path, default=ROOT / "Benchmarks" / "results")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose docs to write")
    args = parser.parse_args(argv)
    differ = []
    for path, text in rendered(args.results, args.root).items():
        current = path.read_text() if path.exists() else ""
        if current == text:
            continue
        differ.append(path)
        if args.check:
            diff = difflib.unified_diff(current.splitlines(), text.splitlines(), str(path), "from the results",
                                        lineterm="", n=1)
            print("\n".join(list(diff)[:40]))
        else:
            path.write_text(text)
            print(f"wrote {path}")
    if args.check and differ:
        print(f"\n{len(differ)} file(s) differ from what Benchmarks/results gives: "
              f"{', '.join(str(p) for p in differ)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
