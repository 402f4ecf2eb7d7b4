"""The demo pages with their feature running in the page (connect({wasm}), docs/wasm.md):
served as static files by `python3 -m http.server` on examples/web, with no bridge at
all. Each page does the same clicks on the bridge and in the page and must show the
same screen after each; a page keeps working once the network is gone; the index and
the generic page read the module's manifest. (test_browser.py runs its page tests both
ways too.)"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from bridge import Server, StaticSite
from conftest import Browser, close_tabs, stop_server
from test_browser import NETWORKS, WIFI, assert_no_js_errors, join, row_ids, shown_error, version

#: The features of the example module: the native library's.
IN_PAGE = ["counter", "answer", "home", "wifi", "profile"]


@pytest.fixture
def both(chrome: Any, server: Server, wasm_pages: Path, screenshots: Path) -> Iterator[tuple[Browser, Browser]]:
    """The same Chromium twice: on `fusion serve`, and on static files with the feature in
    the page. Each in a tab of its own."""
    site = StaticSite()
    chrome.get_log("browser")
    on_bridge = Browser(chrome, server, screenshots)
    in_page = Browser(chrome, site, screenshots, transport="wasm")
    yield on_bridge, in_page
    close_tabs(chrome)
    site.stop()
    stop_server(server)


@pytest.fixture
def in_page(chrome: Any, wasm_pages: Path, screenshots: Path) -> Iterator[Browser]:
    site = StaticSite()
    chrome.get_log("browser")
    b = Browser(chrome, site, screenshots, transport="wasm")
    yield b
    chrome.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    close_tabs(chrome)
    for each in b.servers:
        each.stop()


def screen(b: Browser) -> str:
    """What the person sees of the feature: the page's main part and its open dialogs, as
    text (the top bar, which names the transport and the session, is left out), with the
    clock times of the Profile's request log masked (when, not what)."""
    text = b.driver.execute_script(
        "return [document.querySelector('main'), ...document.querySelectorAll('dialog[open]')]"
        ".map((element) => element.innerText).join('\\n----\\n')")
    return re.sub(r"\b\d{1,2}:\d{2}:\d{2}(?: [AP]M)?", "<time>", text)


def run_both(both: tuple[Browser, Browser], path: str, steps: list[Callable[[Browser], None]]) -> list[str]:
    """Opens `path` on each side, takes the same steps on each, and returns the screens
    the bridge showed after each step, asserting the page showed the same."""
    on_bridge, in_page = both
    seen: dict[str, list[str]] = {}
    for b in (on_bridge, in_page):
        b.driver.switch_to.new_window("tab")
        b.open(path)
        screens = [screen(b)]
        for step in steps:
            step(b)
            screens.append(screen(b))
        seen[b.transport] = screens
        assert_no_js_errors(b)
    for index, (bridge_screen, page_screen) in enumerate(zip(seen["bridge"], seen["wasm"], strict=True)):
        assert page_screen == bridge_screen, f"after step {index} the page shows another screen than the bridge"
    return seen["bridge"]


def click_until(test: str, shown: str) -> Callable[[Browser], None]:
    """A step: click `test`, then wait for the version to move and `shown` to be shown."""
    def step(b: Browser) -> None:
        before = version(b)
        b.click(test)
        b.wait_for(f"{test} to change the state", lambda: version(b), lambda v: v > before)
        b.expect_shown(shown)
    return step


def test_counter_answer_and_home_show_the_same_screens_both_ways(both: tuple[Browser, Browser]) -> None:
    counter = run_both(both, "counter.html", [
        click_until("increase", "value"), click_until("increase", "value"), click_until("decrease", "value"),
        click_until("show", "alert"), click_until("alert-ok", "value"), click_until("reset", "value"),
    ])
    assert "The value is 1." in counter[4]

    def typed(text: str) -> Callable[[Browser], None]:
        def step(b: Browser) -> None:
            before = version(b)
            b.type("answer", text, replace=True)
            b.wait_for("the text in the state", lambda: version(b), lambda v: v >= before + 2)
        return step

    def submitted(b: Browser) -> None:
        b.click("submit")
        b.expect_shown("result", timeout=3)

    answer = run_both(both, "answer.html", [typed("hello"), submitted])
    assert "hello" in answer[-1]
    # A seed makes Home's random numbers the same on both sides (RandomSource is one rule).
    home = run_both(both, "home.html?seed=7", [click_until(tap, "title") for tap in ("tap1", "tap2", "tap1")])
    assert "Tap1 Action" in home[-1]


def test_wifi_shows_the_same_screens_both_ways(both: tuple[Browser, Browser]) -> None:
    def joined(password: str, then: str) -> Callable[[Browser], None]:
        def step(b: Browser) -> None:
            join(b, "blob-jr", "Blob Jr's WiFi", password)
            b.expect_shown(then, timeout=4)
            b.expect_shown("joining", False)
        return step

    def ok(b: Browser) -> None:
        b.click('[data-test="incorrect-password-alert"] [data-test="alert-ok"]')
        b.expect_shown("incorrect-password-alert", False)
        b.click("cancel")
        b.expect_shown("connect-sheet", False)

    def selected(b: Browser) -> None:
        join(b, "blob-jr", "Blob Jr's WiFi", "blob")
        b.expect_shown("connect-sheet", False, timeout=4)
        b.wait_for("blob-jr to leave the rows", lambda: row_ids(b), lambda ids: ids == ["blob", "blob-sr", "cafe"])

    screens = run_both(both, WIFI, [joined("wrong", "incorrect-password-alert"), ok, selected])
    assert "Incorrect Password" in screens[1] and "Blob Jr's WiFi" in screens[-1]
    for b in both:
        b.screenshot("wifi-both-ways")


def test_a_page_keeps_working_once_the_network_is_gone(in_page: Browser) -> None:
    """Loaded once, the page needs no server: the static server is stopped and the
    browser told it is offline, and the counter still counts and Wi-Fi still joins (its
    second of joining timed by the page)."""
    b = in_page
    b.open(WIFI)
    b.wait_for("the four networks", lambda: row_ids(b), lambda ids: ids == NETWORKS)
    b.driver.switch_to.new_window("tab")
    b.open("counter.html")
    b.server.stop()
    b.driver.execute_cdp_cmd("Network.enable", {})
    b.driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                             {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
    assert b.driver.execute_script("return navigator.onLine") is False
    for _ in range(3):
        b.click("increase")
    b.expect_text("value", "3")
    assert b.text("status") == "open" and b.find("transport").get_attribute("data-transport") == "wasm"
    b.screenshot("counter-offline")

    b.driver.switch_to.window(b.driver.window_handles[-2])
    join(b, "blob-jr", "Blob Jr's WiFi", "blob")
    b.expect_shown("joining")
    b.expect_shown("connect-sheet", False, timeout=4)
    b.expect_text('[data-test="selected-network"] [data-test="network-name"]', "Blob Jr's WiFi")
    b.screenshot("wifi-offline")
    assert_no_js_errors(b)


def test_the_index_and_the_generic_page_read_the_modules_manifest(in_page: Browser) -> None:
    b = in_page
    b.open("")
    b.expect_text("library", "FusionExamples 0.1.0")
    cards = b.find_all("feature")
    assert [card.get_attribute("data-name") for card in cards] == IN_PAGE
    assert [chip.text for chip in b.find_all("input-name", cards[0])] == ["increase", "decrease", "reset", "show", "alertDismissed"]
    assert b.text("session") == "this page" and b.text("transport") == "in page"
    b.screenshot("index")

    b.find("generic-link", cards[0]).click()
    b.wait_ready()
    b.expect_text("feature-name", "counter")
    tree = b.find("state-tree")
    b.click("input-increase")
    b.expect_text('[data-path="/value"]', "value: 1", root=tree)
    b.wait_for("the log line", lambda: b.text("log"), lambda text: '→ "increase" ✓ v1' in text)
    b.screenshot("generic-counter")
    assert_no_js_errors(b)


def test_refusals_read_the_same_both_ways(both: tuple[Browser, Browser]) -> None:
    """The module refuses with the native library's statuses and messages."""
    shown = {}
    for b in both:
        b.driver.switch_to.new_window("tab")
        b.open('feature.html?feature=counter&state={"value":"x"}', ready=False)
        b.expect_shown("error")
        shown[b.transport] = shown_error(b)
    assert shown["wasm"] == shown["bridge"]
    assert shown["wasm"][0] == "FK_ERR_INVALID_STATE"


def test_the_profile_shows_the_same_screens_both_ways(both: tuple[Browser, Browser]) -> None:
    """The page answers the Profile's host requests by hand on both sides: the same
    requests open, the same parts load, the same error after a failure, the same retry."""
    def by_hand(b: Browser) -> None:
        b.click("auto-answer")
        b.wait_for("answering by hand", lambda: not b.find("auto-answer").is_selected())

    def load(b: Browser) -> None:
        b.click("load")
        b.expect_count("request", 4)

    def answer_pet(b: Browser) -> None:
        b.click('[data-test="request"][data-kind="fetchPet"] [data-test="answer"]')
        b.wait_for("the pet", lambda: b.text("part-pet"), lambda text: "Mochi" in text)
        b.expect_count("request", 3)

    def fail_family(b: Browser) -> None:
        b.click('[data-test="request"][data-kind="fetchFamily"] [data-test="fail"]')
        b.expect_shown("error")
        b.expect_count("request", 0)

    screens = run_both(both, "profile.html", [by_hand, load, answer_pet, fail_family])
    assert "Could not load the family profile" in screens[-1] and "Mochi" in screens[-1]


def test_a_saved_state_the_module_no_longer_reads_is_forgotten_on_reload(in_page: Browser) -> None:
    """A reload gives the page its instances back from their saved states; a saved state
    the module refuses (a newer library since) is dropped, and the instance starts anew
    instead of the page failing to open."""
    b = in_page
    b.open("counter.html")
    for _ in range(2):
        b.click("increase")
    b.expect_text("value", "2")
    b.driver.get(b.server.url + "style.css")  # leaving saves the page's states
    key = f"fusionkit.local:{b.server.url}FusionExamples.wasm"
    saved = b.driver.execute_script(f"return JSON.parse(sessionStorage.getItem('{key}'))")
    assert saved["counter"]["state"]["value"] == 2 and saved["counter"]["version"] == 2, saved
    b.driver.execute_script(
        f"sessionStorage.setItem('{key}', JSON.stringify({{counter: {{feature: 'counter', state: {{value: 'x'}}, version: 9}}}}))")
    b.open("counter.html")
    b.expect_text("value", "0")
    assert not b.visible("error")
    assert_no_js_errors(b)
