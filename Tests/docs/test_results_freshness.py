"""The freshness rule (Benchmarks/report/freshness.py) on a scratch git repository: a
results file is stale once a commit it does not contain changed a path it depends on,
when it carries no provenance, or when it measured uncommitted changes to those paths."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))

import dependencies  # noqa: E402
import freshness  # noqa: E402
import provenance  # noqa: E402

DEPENDS = {"bench.json": ("src/bridge", "bench")}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()


def commit_file(repo: Path, path: str, text: str, message: str) -> str:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    git(repo, "add", path)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def measure(repo: Path) -> Path:
    """Results as scripts/bench leaves them: stamped with the repository's state now."""
    results = repo / "results"
    results.mkdir(exist_ok=True)
    (results / "bench.json").write_text(json.dumps({"provenance": provenance.commit(repo)}))
    return results


def repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text("results/\n")
    git(repo, "add", ".gitignore")
    commit_file(repo, "src/bridge/serve.swift", "v1", "the bridge")
    commit_file(repo, "src/other/tool.swift", "v1", "another target")
    return repo


def stale(repo: Path, results: Path) -> list[freshness.Stale]:
    return freshness.stale_results(results, repo, DEPENDS)


def test_results_measured_on_the_latest_change_are_fresh(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    results = measure(repo)
    assert stale(repo, results) == []
    # A change elsewhere leaves them fresh.
    commit_file(repo, "src/other/tool.swift", "v2", "the other target changed")
    assert stale(repo, results) == []


def test_a_change_to_a_declared_path_makes_them_stale_and_says_which(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    results = measure(repo)
    measured = git(repo, "rev-parse", "HEAD")
    changed = commit_file(repo, "src/bridge/serve.swift", "v2", "the bridge got slower")
    [found] = stale(repo, results)
    text = str(found)
    assert found.results == "bench.json"
    assert measured[:12] in text and changed[:12] in text and "the bridge got slower" in text
    assert "src/bridge/serve.swift" in text and "measure again: scripts/bench" in text
    # Measured again on that commit: fresh.
    assert stale(repo, measure(repo)) == []


def test_results_without_provenance_are_stale(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    results = repo / "results"
    results.mkdir()
    (results / "bench.json").write_text(json.dumps({"measured": "2026-11-25T12:00:00Z"}))
    [found] = stale(repo, results)
    assert "no provenance" in found.why


def test_uncommitted_changes_to_a_declared_path_make_them_stale(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    (repo / "src/bridge/serve.swift").write_text("edited, not committed")
    results = measure(repo)
    [found] = stale(repo, results)
    assert "uncommitted changes" in found.why and "src/bridge/serve.swift" in found.why
    # Uncommitted changes elsewhere do not.
    git(repo, "checkout", "--", "src/bridge/serve.swift")
    (repo / "src/other/tool.swift").write_text("edited, not committed")
    assert stale(repo, measure(repo)) == []


def test_a_commit_the_repository_lacks_and_an_undeclared_file_are_stale(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    results = measure(repo)
    (results / "bench.json").write_text(json.dumps({"provenance": {"commit": "0" * 40, "uncommitted": []}}))
    (results / "other.json").write_text(json.dumps({"provenance": provenance.commit(repo)}))
    whys = {found.results: found.why for found in stale(repo, results)}
    assert "does not have" in whys["bench.json"] and "declares no dependencies" in whys["other.json"]


def test_the_check_exits_1_on_a_stale_file(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    results = repo / "results"
    results.mkdir()
    (results / "fusion-bench.json").write_text("{}")
    done = subprocess.run([sys.executable, str(ROOT / "Benchmarks/report/freshness.py"), "--results", str(results),
                           "--repo", str(repo)], capture_output=True, text=True)
    assert done.returncode == 1 and "fusion-bench.json: no provenance" in done.stdout


def test_every_committed_results_file_declares_its_dependencies() -> None:
    names = {path.name for path in (ROOT / "Benchmarks" / "results").glob("*.json")}
    assert names <= set(dependencies.DEPENDENCIES), names - set(dependencies.DEPENDENCIES)
    for name, paths in dependencies.DEPENDENCIES.items():
        missing = [p for p in paths if not (ROOT / p).exists()]
        assert not missing, f"{name} depends on paths that do not exist: {missing}"


def test_a_block_says_its_commit_and_whether_it_measured_uncommitted_code() -> None:
    machine = {"cpu": "AMD EPYC", "cores": 2, "memory": "23.5 GiB", "os": "Debian", "kernel": "6.1",
               "swift": "Swift 6.3.1", "python": "3.11.2"}
    found = {"commit": "a" * 40, "dirty": True, "uncommitted": ["docs/web.md"], "machine": machine,
             "command": [str(ROOT / "Benchmarks/web-load/run.py"), "--runs", "3"]}
    said = provenance.sentence("web-load.json", {"provenance": found})
    assert said.startswith("`web-load.json`: measured on commit aaaaaaaaaaaa (uncommitted changes elsewhere only) "
                           "by `Benchmarks/web-load/run.py --runs 3`, on AMD EPYC (2 cores, 23.5 GiB)")
    found["uncommitted"] = ["Sources/FusionWeb/Bridge.swift"]
    assert "with uncommitted changes to what it depends on (Sources/FusionWeb/Bridge.swift)" in \
        provenance.sentence("web-load.json", {"provenance": found})
    assert "no provenance recorded" in provenance.sentence("web-load.json", {})
