"""Signing in, in Chromium, through the cluster's nginx with TLS (docs/deploy.md, "TLS"):
bridges started with --auth jwt refuse a page that has no token, and the page says so;
the login app behind nginx's /login sets the token's cookie (Secure, HttpOnly,
SameSite=Strict) and sends the browser back to the profile, which now opens a session
and says who is signed in."""
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


def ignore_certificate_errors(chrome: Any, ignore: bool) -> None:
    """The shared Chromium takes the run's self-signed certificate (as a person clicks
    through the warning once), for this test only: set back after it."""
    chrome.execute_cdp_cmd("Security.setIgnoreCertificateErrors", {"ignore": ignore})


@pytest.fixture
def signed_cluster(chrome: Any, bin_dir: Path, tmp_path: Path, screenshots: Path,
                   monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[deployment.Cluster, Browser]]:
    """Two bridges with --auth jwt, the login app, and nginx serving https, before the
    shared Chromium; its cookies are cleared after, so no other test's page sends them."""
    monkeypatch.setenv("FUSION", str(bin_dir / "fusion"))
    monkeypatch.setenv("FUSIONKIT_LIB", str(bin_dir / "libFusionExamples.so"))
    cluster = deployment.Cluster(2, folder=tmp_path, tls=True, auth=True)
    chrome.get_log("browser")
    try:
        ignore_certificate_errors(chrome, True)
        yield cluster, Browser(chrome, Front(cluster.url), screenshots)  # type: ignore[arg-type]
    finally:
        close_tabs(chrome)
        chrome.execute_cdp_cmd("Network.clearBrowserCookies", {})
        ignore_certificate_errors(chrome, False)
        cluster.stop()


def test_a_page_gets_a_session_only_once_signed_in(signed_cluster: tuple[deployment.Cluster, Browser]) -> None:
    cluster, b = signed_cluster
    assert b.server.url.startswith("https://127.0.0.1:")
    # No token yet: the bridge refuses the socket (4001), and the page says why.
    b.open("profile.html", ready=False)
    b.expect_shown("server-error", timeout=10)
    b.expect_text('[data-test="server-error"] .error-status', "BRIDGE_UNAUTHENTICATED")
    assert "sign in first" in b.text('[data-test="server-error"] .error-message')
    b.expect_text("status", "closed")
    assert b.text("session") == "–"
    assert not b.visible("signed-in")
    b.screenshot("sign-in-refused")
    assert cluster.postgres.psql("SELECT count(*) FROM fusion_sessions") == "0"

    # The team's login, on the same origin: the error area's Sign in link leads there.
    assert b.visible("sign-in")
    b.click("sign-in")
    b.wait_for("the login page", lambda: b.driver.current_url, lambda url: url == cluster.url + "/login")
    b.type("login-user", "alice")
    b.type("login-password", "blob")
    b.screenshot("sign-in-form")
    b.click("login-submit")
    # Redirected to the profile, which now opens a session of Alice's.
    b.wait_for("the profile page", lambda: b.driver.current_url, lambda url: url == cluster.url + "/profile.html")
    b.wait_ready(timeout=10)
    b.expect_text("status", "open")
    b.expect_text("signed-in", "Signed in as Alice Example")
    assert not b.visible("server-error")
    # The cookie the login set: the page's scripts cannot read it, and it goes only over https.
    cookie = b.driver.get_cookie("fusion_token")
    assert cookie and cookie["secure"] and cookie["httpOnly"] and cookie["sameSite"] == "Strict", cookie
    assert "fusion_token" not in b.driver.execute_script("return document.cookie")
    assert cluster.postgres.psql("SELECT owner FROM fusion_sessions") == "alice"

    # Load profiles: the page answers the four requests by itself (auto-answer is on).
    b.click("load")
    for part in ("pet", "family", "preschool", "babyProfile"):
        b.wait_for(f"the {part} card to load", lambda part=part: b.find(f"part-{part}").get_attribute("data-loaded"),
                   lambda loaded: loaded == "true", timeout=10)
    b.expect_shown("loading", False)
    assert not b.visible("error")
    b.screenshot("sign-in-profile-loaded")
    assert b.js_errors(allowed=("FusionError: sign in first",)) == []
