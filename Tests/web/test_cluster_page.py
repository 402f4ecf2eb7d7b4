"""A page in Chromium through the cluster's nginx (docs/deploy.md): when the bridge
holding its session is killed, the page rejoins through nginx, another bridge takes the
session over from PostgreSQL, and the page shows the same state and keeps working."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bridge import ROOT
from conftest import Browser, Front, close_tabs

sys.path.insert(0, str(ROOT / "deploy"))
import cluster as deployment  # noqa: E402


@pytest.fixture
def cluster_page(chrome: Any, bin_dir: Path, tmp_path: Path, screenshots: Path,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[deployment.Cluster, Browser]]:
    monkeypatch.setenv("FUSION", str(bin_dir / "fusion"))
    monkeypatch.setenv("FUSIONKIT_LIB", str(bin_dir / "libFusionExamples.so"))
    cluster = deployment.Cluster(3, folder=tmp_path)
    chrome.get_log("browser")
    try:
        yield cluster, Browser(chrome, Front(cluster.url), screenshots)  # type: ignore[arg-type]
    finally:
        close_tabs(chrome)
        cluster.stop()


def test_a_page_keeps_its_state_when_its_bridge_is_killed(cluster_page: tuple[deployment.Cluster, Browser]) -> None:
    cluster, b = cluster_page
    b.open("counter.html")
    b.expect_text("status", "open")
    for _ in range(3):
        b.click("increase")
    b.expect_text("value", "3")
    session, holder = cluster.postgres.psql("SELECT id, holder FROM fusion_sessions").split("|")
    victim = next(bridge for bridge in cluster.bridges if holder.endswith(f"port {bridge.port}"))
    victim.kill()
    # The page notices, rejoins through nginx, and another bridge takes the session over.
    now = b.wait_for("another bridge to take the session over",
                     lambda: cluster.postgres.psql(f"SELECT holder FROM fusion_sessions WHERE id = '{session}'"),
                     lambda found: found != holder, timeout=15)
    assert not now.endswith(f"port {victim.port}")
    b.expect_text("status", "open")
    b.expect_text("value", "3")
    b.click("increase")
    b.expect_text("value", "4")
    b.screenshot("cluster-counter-after-failover")
