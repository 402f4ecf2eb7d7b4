"""Fixtures for the web bridge: `fusion serve` as a real process, WebSocket clients,
and a real headless Chromium driven through Selenium."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from bridge import ROOT, Server, StaticSite, serving  # noqa: E402


@pytest.fixture
def serve(fusion: Path) -> Iterator[Callable[..., Server]]:
    """Starts `fusion serve --port 0` with extra flags; every server is stopped after."""
    yield from serving(fusion)


class Front:
    """nginx, as the Browser sees a server: its address, and nothing to stop itself."""

    def __init__(self, url: str) -> None:
        self.url = url + "/"

    def stop(self) -> None:
        pass


@pytest.fixture
def server(serve: Callable[..., Server]) -> Server:
    return serve()


# ---------------------------------------------------------------------------------
# A real headless Chromium, driven through Selenium as a person would use the pages

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SETUP_HINT = "run scripts/setup: it installs chromium, chromium-driver and selenium"
WAIT = 5.0  # seconds an explicit wait gives the page, unless a test says otherwise


@pytest.fixture(scope="session")
def chrome() -> Iterator[Any]:
    """One headless Chromium for the whole run (a fresh server per test gives each test
    its own origin, so its own sessionStorage). Missing pieces fail, never skip."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as error:
        pytest.fail(f"Selenium is not installed ({error}); {SETUP_HINT}", pytrace=False)
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            pytest.fail(f"{path} is missing (Debian package {package}); {SETUP_HINT}", pytrace=False)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    except Exception as error:  # a driver that does not match the browser, a crash…
        pytest.fail(f"headless Chromium did not start: {error}; {SETUP_HINT}", pytrace=False)
    driver.set_page_load_timeout(15)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """Where the tests save what the person sees: $FUSION_SCREENSHOTS, else .build/web-screenshots."""
    folder = Path(os.environ.get("FUSION_SCREENSHOTS") or ROOT / ".build" / "web-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Browser:
    """The shared Chromium pointed at one server, with the few things a test of a page
    does: open a page and wait until it has drawn, find elements by their data-test
    hook, wait for what the page shows, save a screenshot, read the console."""

    def __init__(self, driver: Any, server: Server | StaticSite, screenshots: Path, transport: str = "bridge") -> None:
        self.driver = driver
        self.server = server
        self.screenshots = screenshots
        #: Where the pages run their feature: "bridge" (fusion serve) or "wasm" (in the
        #: page, from static files: every page opened asks for it with ?transport=wasm).
        self.transport = transport
        #: The servers the fixture stops after the test (a test that starts one adds it).
        self.servers = [server]

    # -- Pages ---------------------------------------------------------------------

    def open(self, path: str, ready: bool = True) -> None:
        """Loads a page of the server (in the current tab) and waits for data-ready."""
        path = path.lstrip("/")
        if self.transport == "wasm":
            path += ("&" if "?" in path else "?") + "transport=wasm"
        self.driver.get(self.server.url + path)
        if ready:
            self.wait_ready()

    def reload(self) -> None:
        from selenium.webdriver.support import expected_conditions as EC
        body = self.driver.find_element("css selector", "body")
        self.driver.refresh()
        self.wait_for("the old page to go", lambda: EC.staleness_of(body)(self.driver))
        self.wait_ready()

    def wait_ready(self, timeout: float = WAIT) -> None:
        self.wait_for("body[data-ready=true]",
                      lambda: self.driver.execute_script("return document.body && document.body.dataset.ready") == "true",
                      timeout=timeout)

    # -- Elements --------------------------------------------------------------------

    @staticmethod
    def selector(test: str) -> str:
        """`name` → [data-test="name"]; a selector with any of `[.#: >` is taken as is."""
        return test if any(c in test for c in "[.#: >") else f'[data-test="{test}"]'

    def find(self, test: str, root: Any = None) -> Any:
        return (root or self.driver).find_element("css selector", self.selector(test))

    def find_all(self, test: str, root: Any = None) -> list[Any]:
        return (root or self.driver).find_elements("css selector", self.selector(test))

    def text(self, test: str, root: Any = None) -> str:
        """The element's visible text ("" while it is hidden)."""
        return self.find(test, root).text

    def visible(self, test: str, root: Any = None) -> bool:
        found = self.find_all(test, root)
        return bool(found) and found[0].is_displayed()

    def click(self, test: str, root: Any = None) -> None:
        """Clicks once the element is shown and enabled (a dialog may still be opening)."""
        def clickable() -> Any:
            element = self.find(test, root)
            return element if element.is_displayed() and element.is_enabled() else None
        element = self.wait_for(f"{test} to be clickable", clickable)
        # Scrolled to the middle of the window, as a person would: not under the sticky top bar.
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)
        element.click()

    def type(self, test: str, text: str, replace: bool = False) -> None:
        """Types into a field as a person would (select all first to replace its text)."""
        from selenium.webdriver.common.keys import Keys
        field = self.find(test)
        field.click()
        if replace:
            field.send_keys(Keys.CONTROL, "a")
        field.send_keys(text)

    # -- Waiting ---------------------------------------------------------------------

    def wait_for(self, what: str, probe: Callable[[], Any], check: Callable[[Any], bool] = bool,
                 timeout: float = WAIT) -> Any:
        """Polls probe() until check(value) holds and returns the value; on timeout fails
        with what the page showed last."""
        from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait
        seen: list[Any] = []

        def condition(_: Any) -> Any:
            value = probe()
            seen[:] = [value]
            return (value,) if check(value) else False

        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                                 ignored_exceptions=(NoSuchElementException, StaleElementReferenceException),
                                 ).until(condition)[0]
        except TimeoutException:
            shown = repr(seen[0]) if seen else "nothing (no such element)"
            raise AssertionError(f"waited {timeout} s for {what}; the page shows {shown}") from None

    def expect_text(self, test: str, expected: str, root: Any = None, timeout: float = WAIT) -> str:
        return self.wait_for(f"{test} to show {expected!r}", lambda: self.text(test, root),
                             lambda text: text == expected, timeout)

    def expect_shown(self, test: str, shown: bool = True, root: Any = None, timeout: float = WAIT) -> None:
        self.wait_for(f"{test} to be {'shown' if shown else 'hidden'}",
                      lambda: self.visible(test, root), lambda value: value == shown, timeout)

    def expect_count(self, test: str, count: int, timeout: float = WAIT) -> list[Any]:
        self.wait_for(f"{count} × {test}", lambda: len(self.find_all(test)), lambda n: n == count, timeout)
        return self.find_all(test)

    # -- What the person sees, and what the console says -----------------------------

    def screenshot(self, name: str) -> Path:
        if self.transport != "bridge":
            name = f"{name}-{self.transport}"
        """Saves the window as the person sees it, once animations that end (a dialog
        popping up, an error flashing; not a spinner) have ended."""
        self.wait_for("animations to end", lambda: self.driver.execute_script(
            "return document.getAnimations().filter((a) => a.playState === 'running'"
            " && a.effect && a.effect.getComputedTiming().endTime !== Infinity).length"), lambda n: n == 0)
        path = self.screenshots / f"{name}.png"
        assert self.driver.save_screenshot(str(path)), f"no screenshot saved at {path}"
        return path

    def console(self) -> list[dict[str, Any]]:
        """The browser console since the last call (reading empties it)."""
        return self.driver.get_log("browser")

    def js_errors(self, allowed: tuple[str, ...] = ()) -> list[str]:
        """Console errors, without those about WebSocket connections (a stopped server),
        the favicon the pages do not have, and any containing one of `allowed`."""
        expected = ("WebSocket", "/favicon.ico", *allowed)
        return [entry["message"] for entry in self.console()
                if entry["level"] == "SEVERE" and not any(word in entry["message"] for word in expected)]


def stop_server(server: Server, timeout: float = 2.5) -> bool:
    """Stops a server with SIGTERM; True if it exited within `timeout`. If not, it is
    killed and a warning says so. (With a spare connection Chromium keeps open, which
    never sends a request, `fusion serve` takes 1.5 s: see
    test_browser.py::test_the_server_stops_while_a_connection_sits_unused.)"""
    if server.process.poll() is not None:
        return True
    server.process.send_signal(signal.SIGTERM)
    try:
        server.process.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
        warnings.warn(f"fusion serve on port {server.port} did not stop within {timeout} s of SIGTERM "
                      "(Chromium holds a connection to it that never sent a request); killed it", stacklevel=2)
        return False


def close_tabs(chrome: Any) -> None:
    """Closes every tab but a new blank one: their pages and sockets are gone."""
    chrome.switch_to.new_window("tab")
    fresh = chrome.current_window_handle
    for handle in chrome.window_handles:
        if handle != fresh:
            chrome.switch_to.window(handle)
            chrome.close()
    chrome.switch_to.window(fresh)


@pytest.fixture
def browser(chrome: Any, server: Server, screenshots: Path) -> Iterator[Browser]:
    """The shared Chromium on a fresh server, in a tab of its own with an empty console.
    After the test its tabs are closed (in a new blank one), so their pages and sockets
    are gone, and its servers (`browser.servers`) are stopped. Leaving a page for another
    would keep it, socket open, in the back/forward cache, and the server would wait a
    second for it."""
    chrome.get_log("browser")
    b = Browser(chrome, server, screenshots)
    yield b
    close_tabs(chrome)
    for each in b.servers:
        stop_server(each)


@pytest.fixture(scope="session")
def wasm_pages() -> Path:
    """The example library's WebAssembly module, built from the sources as they are and
    copied beside the demo pages (what scripts/build-wasm does)."""
    sys.path.insert(0, str(ROOT / "Wasm"))
    import build as wasm_build  # Wasm/build.py
    try:
        module = wasm_build.build(ROOT / ".build" / "wasm")
    except RuntimeError as error:
        pytest.fail(f"the WebAssembly module did not build: {error}", pytrace=False)
    copy = wasm_build.PAGES / module.name
    copy.write_bytes(module.read_bytes())
    return copy


@pytest.fixture(params=["bridge", "wasm"])
def page_browser(request: pytest.FixtureRequest, chrome: Any, screenshots: Path) -> Iterator[Browser]:
    """A demo page test run both ways: the feature on `fusion serve`, and the same page
    from static files (`python3 -m http.server` on examples/web: no bridge at all) with
    the feature running in the page as WebAssembly."""
    if request.param == "wasm":
        request.getfixturevalue("wasm_pages")
        site: Server | StaticSite = StaticSite()
    else:
        site = request.getfixturevalue("server")
    chrome.get_log("browser")
    b = Browser(chrome, site, screenshots, transport=request.param)
    yield b
    close_tabs(chrome)
    for each in b.servers:
        if isinstance(each, StaticSite):
            each.stop()
        else:
            stop_server(each)


@pytest.fixture(scope="session")
def bare_library(build_bare_library: Callable[..., Path]) -> Path:
    """Tests/libraries/bare_library.c with a whole manifest that is not JSON."""
    return build_bare_library(broken_manifest=True)
