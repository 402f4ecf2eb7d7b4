#!/usr/bin/env python3
"""Fails when a results file was measured on code older than the code it describes.

    python3 Benchmarks/report/freshness.py [--results DIR] [--repo DIR]

A results file (Benchmarks/results/*.json) is stale when
- it carries no provenance (no recorded commit: nobody can tell what it measured), or its
  commit is not in this repository;
- a commit that changed one of its declared paths (dependencies.py) is not an ancestor of
  the commit it was measured on: `git log -1 -- PATHS` is not contained in it; or
- it was measured with uncommitted changes under one of those paths (the code it measured
  is in no commit).
So measure on a committed tree, then commit the results: a change to the bridge
forces the web-load run to be redone before the results are committed again.
Each stale file is printed with the commit that changed what, and the command that
measures it again; the exit status is 1 if any is stale."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from dependencies import DEPENDENCIES, REMEASURE, REMEASURE_DEFAULT  # noqa: E402

ROOT = HERE.parents[1]


@dataclass(frozen=True)
class Stale:
    results: str
    why: str
    remeasure: str

    def __str__(self) -> str:
        return f"{self.results}: {self.why}\n    measure again: {self.remeasure}"


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)


def _under(path: str, declared: tuple[str, ...]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in declared)


def staleness(name: str, raw: dict[str, Any], declared: tuple[str, ...], repo: Path) -> str | None:
    """Why the results `raw` (file `name`) are stale against `repo`'s HEAD, or None if fresh."""
    recorded = raw.get("provenance", {}).get("commit")
    if not recorded:
        return "no provenance recorded (no commit): measured before results carried it, or not by scripts/bench"
    if _git(repo, "cat-file", "-e", f"{recorded}^{{commit}}").returncode != 0:
        return f"measured on commit {recorded}, which this repository does not have"
    changed = sorted(p for p in raw["provenance"].get("uncommitted", []) if _under(p, declared))
    if changed:
        return (f"measured on {recorded[:12]} with uncommitted changes to what it depends on: "
                f"{', '.join(changed[:5])}{' …' if len(changed) > 5 else ''}")
    last = _git(repo, "log", "-1", "--format=%H", "--", *declared).stdout.strip()
    if not last or _git(repo, "merge-base", "--is-ancestor", last, recorded).returncode == 0:
        return None
    subject = _git(repo, "log", "-1", "--format=%s", last).stdout.strip()
    touched = [p for p in _git(repo, "show", "--name-only", "--format=", last, "--", *declared).stdout.split() if p]
    return (f"measured on {recorded[:12]}, but {last[:12]} (\"{subject[:100]}\") changed "
            f"{', '.join(touched[:5])}{' …' if len(touched) > 5 else ''} since")


def stale_results(results: Path, repo: Path,
                  dependencies: dict[str, tuple[str, ...]] = DEPENDENCIES) -> list[Stale]:
    found = []
    for path in sorted(results.glob("*.json")):
        remeasure = REMEASURE.get(path.name, REMEASURE_DEFAULT)
        declared = dependencies.get(path.name)
        if declared is None:
            found.append(Stale(path.name, "declares no dependencies (Benchmarks/report/dependencies.py)", remeasure))
            continue
        why = staleness(path.name, json.loads(path.read_text()), declared, repo)
        if why:
            found.append(Stale(path.name, why, remeasure))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=ROOT / "Benchmarks" / "results")
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("--skip", action="append", default=[], metavar="FILE",
                        help="a results file not to judge (scripts/test: reliability.json, which the CI run "
                             "itself measures after its tests)")
    args = parser.parse_args(argv)
    stale = [each for each in stale_results(args.results, args.repo) if each.results not in args.skip]
    for each in stale:
        print(each)
    if stale:
        print(f"\n{len(stale)} results file(s) measured before the code they describe changed", file=sys.stderr)
        return 1
    print(f"every results file in {args.results} was measured on the code it describes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
