"""Fixtures for the cluster tests: a real PostgreSQL, real `fusion serve` bridges and a
real nginx on loopback (deploy/cluster.py, the code behind scripts/cluster), started per
test and stopped after it."""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "deploy"))
sys.path.insert(0, str(ROOT / "Tests" / "web"))
sys.path.insert(0, str(HERE))
import cluster as deployment  # noqa: E402


@pytest.fixture
def make_cluster(bin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., deployment.Cluster]]:
    """`make_cluster(bridges=3, options=[...])`: PostgreSQL, the bridges (the debug build's
    `fusion serve`, the example library) and nginx, in this test's folder."""
    monkeypatch.setenv("FUSION", str(bin_dir / "fusion"))
    monkeypatch.setenv("FUSIONKIT_LIB", str(bin_dir / "libFusionExamples.so"))
    made: list[deployment.Cluster] = []

    def make(bridges: int = 3, options: list[str] | None = None, libraries: list[Path] | None = None) -> deployment.Cluster:
        folder = tmp_path / f"cluster-{len(made) + 1}"
        folder.mkdir()
        cluster = deployment.Cluster(bridges, folder=folder, bridge_options=options, libraries=libraries)
        made.append(cluster)
        return cluster

    yield make
    for cluster in made:
        cluster.stop()
