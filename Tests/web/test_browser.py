"""The demo pages (examples/web) in a real headless Chromium, used as a person would:
load a page, click, type, and check what the page shows (visible text, what is shown
or hidden, what is disabled), through the pages' data-test hooks. Each test gets its
own `fusion serve`; those on `page_browser` run twice, the second time from static
files with the feature running in the page (?transport=wasm; test_in_page.py has the
rest of that side). Screenshots of what the person sees land in $FUSION_SCREENSHOTS
(default .build/web-screenshots)."""
from __future__ import annotations

import re
import signal
import socket
import subprocess
import time
import urllib.request
from typing import TYPE_CHECKING

import pytest
from bridge import Server
from conftest import stop_server

if TYPE_CHECKING:
    from conftest import Browser

FEATURES = ["counter", "answer", "home", "wifi", "profile"]


def version(b: Browser) -> int:
    return int(b.text("version"))


def session_id(b: Browser) -> str:
    """The whole session id (the page shows 8 digits and keeps the rest in the title)."""
    element = b.find("session")
    shown, full = element.text, element.get_attribute("title")
    assert re.fullmatch(r"[0-9a-f]{32}", full or ""), full
    assert shown == f"{full[:8]}…", (shown, full)
    return full


def shown_error(b: Browser) -> tuple[str, str]:
    """The error area's status and message, as shown."""
    return b.text('[data-test="error"] .error-status'), b.text('[data-test="error"] .error-message')


def assert_no_js_errors(b: Browser, *allowed: str) -> None:
    errors = b.js_errors(allowed)
    assert not errors, f"the browser console has errors: {errors}"


# ---------------------------------------------------------------------------------
# Counter, Answer, Home


def test_counter_counts_shows_its_alert_and_resets(page_browser: Browser) -> None:
    b = page_browser
    b.open("counter.html")
    b.expect_text("status", "open")
    b.expect_text("value", "0")
    assert b.text("is-reset") == "isReset: false"
    assert not b.visible("alert")
    start = version(b)

    b.click("increase")
    b.click("increase")
    b.click("decrease")
    b.expect_text("value", "1")
    after_clicks = version(b)
    assert after_clicks > start

    b.click("show")
    b.expect_shown("alert")
    b.expect_text("alert-message", "The value is 1.")
    b.screenshot("counter-alert")
    b.click("alert-ok")
    b.expect_shown("alert", False)
    assert b.text("value") == "1"

    b.click("reset")
    b.expect_text("value", "0")
    b.expect_text("is-reset", "isReset: true")
    assert b.find("is-reset").get_attribute("data-value") == "true"
    assert version(b) > after_clicks
    # A change after a reset is no longer a reset.
    b.click("increase")
    b.expect_text("value", "1")
    b.expect_text("is-reset", "isReset: false")
    assert_no_js_errors(b)


def test_answer_enables_submit_when_typed_then_submits(page_browser: Browser) -> None:
    b = page_browser
    b.open("answer.html")
    submit = b.find("submit")
    assert not submit.is_enabled(), "Submit is enabled before anything was typed"
    assert not b.visible("result") and not b.visible("submitting")

    # Spaces only: still nothing to submit (the feature decides). Three inputs, three
    # versions: once the page shows version 3 it has drawn what the feature made of them.
    start = version(b)
    b.type("answer", "   ")
    b.wait_for("three versions more", lambda: version(b), lambda v: v == start + 3)
    assert not submit.is_enabled()

    b.type("answer", "hello", replace=True)
    b.wait_for("Submit to be enabled", submit.is_enabled)
    b.click("submit")
    # Submitting takes half a second: the page shows it meanwhile.
    b.expect_shown("submitting")
    assert "Submitting…" in b.text("submitting")
    assert not submit.is_enabled() and submit.text == "Submitting…"

    b.expect_shown("result", timeout=3)
    b.expect_text("result-text", "hello")
    b.expect_shown("submitting", False)
    assert submit.text == "Submit" and not submit.is_enabled()
    assert b.find("answer").get_attribute("value") == ""  # the feature cleared the answer
    b.screenshot("answer-result")

    b.click("dismiss-result")
    b.expect_shown("result", False)
    assert_no_js_errors(b)


def test_home_shows_view_did_load_then_each_tap(page_browser: Browser) -> None:
    b = page_browser
    b.open("home.html")
    b.expect_text("title", "ViewDidLoad Action")
    assert re.fullmatch(r"Number \d+", b.text("desc")), b.text("desc")

    b.click("tap1")
    b.expect_text("title", "Tap1 Action")
    assert re.fullmatch(r"Tap1 Number \d+", b.text("desc")), b.text("desc")
    b.screenshot("home")

    b.click("tap2")
    b.expect_text("title", "Tap2 Action")
    assert re.fullmatch(r"Tap2 Number \d+", b.text("desc")), b.text("desc")

    # A reload sends viewDidLoad again; the feature decides a view loads once per
    # instance, so the reloaded page shows what the instance showed, at the same version.
    before = version(b)
    b.reload()
    b.expect_text("title", "Tap2 Action")
    assert version(b) == before
    assert not b.find_all('[data-test="viewDidLoad"]')  # a lifecycle event, not a button
    assert_no_js_errors(b)


# ---------------------------------------------------------------------------------
# Wi-Fi (the live scan off: networks stay put)

WIFI = "wifi.html?liveScan=false"
NETWORKS = ["blob", "blob-jr", "blob-sr", "cafe"]


def row_ids(b: Browser) -> list[str]:
    return [row.get_attribute("data-id") for row in b.find_all("network-row")]


def tap_network(b: Browser, network: str) -> None:
    b.click(f'[data-test="network-row"][data-id="{network}"] [data-test="network-name"]')


def join(b: Browser, network: str, name: str, password: str) -> float:
    """Taps a secured network, types the password and taps Join (not waiting for the end);
    returns when Join was about to be tapped (time.monotonic())."""
    tap_network(b, network)
    b.expect_shown("connect-sheet")
    b.expect_text("connect-name", name)
    b.type("password", password, replace=True)
    b.wait_for("the password to be typed", lambda: b.find("password").get_attribute("value"),
               lambda value: value == password)
    tapped = time.monotonic()
    b.click("join")
    return tapped


def connect_blob_jr(b: Browser) -> None:
    join(b, "blob-jr", "Blob Jr's WiFi", "blob")
    b.expect_shown("connect-sheet", False, timeout=4)
    b.expect_text('[data-test="selected-network"] [data-test="network-name"]', "Blob Jr's WiFi")


def test_wifi_connects_after_a_wrong_password(page_browser: Browser) -> None:
    b = page_browser
    b.open(WIFI)
    b.wait_for("the four networks", lambda: row_ids(b), lambda ids: ids == NETWORKS)
    assert not b.find_all("selected-network")
    assert b.find("wifi-toggle").is_selected()
    names = [b.text("network-name", row) for row in b.find_all("network-row")]
    assert names == ["Blob's WiFi", "Blob Jr's WiFi", "Blob Sr's WiFi", "Café Guest"]
    secured = {row.get_attribute("data-id"): bool(b.find_all("lock", row)) for row in b.find_all("network-row")}
    assert secured == {"blob": True, "blob-jr": True, "blob-sr": True, "cafe": False}
    # The bars are the feature's (network.signalBars), drawn as given.
    bars = {row.get_attribute("data-id"): b.find("signal", row).get_attribute("data-level") for row in b.find_all("network-row")}
    assert bars == {"blob": "3", "blob-jr": "2", "blob-sr": "1", "cafe": "2"}
    # As many bars as the state's signalBarsMaximum, the lit ones as signalBars; the
    # words and the heading are the state's too (securityLabel, otherNetworksHeading).
    lit = {row.get_attribute("data-id"): [bar.get_attribute("class") == "lit" for bar in
                                          b.find("signal", row).find_elements("css selector", "i")]
           for row in b.find_all("network-row")}
    assert lit["blob-sr"] == [True, False, False] and lit["blob"] == [True, True, True]
    labels = {row.get_attribute("data-id"): b.find("signal", row).get_attribute("aria-label") for row in b.find_all("network-row")}
    assert labels["blob"] == "Secured, signal 3 of 3" and labels["cafe"] == "Open, signal 2 of 3"
    assert b.find("networks-heading").get_attribute("textContent") == "Networks"

    # A wrong password: joining for a second, then the alert.
    tapped = join(b, "blob-jr", "Blob Jr's WiFi", "wrong")
    b.expect_shown("joining")
    assert "Joining…" in b.text("joining")
    assert not b.find("password").is_enabled() and not b.find("join").is_enabled()
    assert not b.visible("incorrect-password-alert")
    b.expect_shown("incorrect-password-alert", timeout=4)
    assert time.monotonic() - tapped >= 1.0, "the alert came before joining took its second"
    # The feature's words (the state's incorrectPasswordAlert), as every front end shows them.
    assert b.find("incorrect-password-alert").text.split("\n") == [
        "Incorrect Password", "The password for “Blob Jr's WiFi” is not correct.", "OK"]
    b.expect_shown("joining", False)
    b.screenshot("wifi-connect-alert")
    b.click('[data-test="incorrect-password-alert"] [data-test="alert-ok"]')
    b.expect_shown("incorrect-password-alert", False)
    assert b.visible("connect-sheet"), "OK on the alert closed the sheet too"
    assert b.find("password").is_enabled() and b.find("join").is_enabled()

    # The right one: the sheet closes and the network is the selected one.
    b.type("password", "blob", replace=True)
    b.wait_for("the new password", lambda: b.find("password").get_attribute("value"), lambda v: v == "blob")
    b.click("join")
    b.expect_shown("joining")
    b.expect_shown("connect-sheet", False, timeout=4)
    selected = b.find("selected-network")
    assert selected.get_attribute("data-id") == "blob-jr"
    assert b.text("network-name", selected) == "Blob Jr's WiFi"
    assert "✓" in selected.text
    b.wait_for("blob-jr to leave the other rows", lambda: row_ids(b), lambda ids: ids == ["blob", "blob-sr", "cafe"])
    assert b.find("networks-heading").get_attribute("textContent") == "Other Networks"
    assert not b.visible("incorrect-password-alert")
    b.screenshot("wifi-selected")
    assert_no_js_errors(b)


def test_wifi_forgets_after_confirmation_and_toggles(page_browser: Browser) -> None:
    b = page_browser
    b.open(WIFI)
    connect_blob_jr(b)

    # Tapping the selected network opens its details; Done closes them.
    b.click('[data-test="selected-network"] [data-test="network-name"]')
    b.expect_shown("detail-sheet")
    b.expect_text("detail-name", "Blob Jr's WiFi")
    assert b.text("detail-security") == "Secured"
    assert b.text("detail-signal") == "60 %"
    assert b.text("detail-id") == "blob-jr"
    b.click("done")
    b.expect_shown("detail-sheet", False)

    # The info button opens them too; Forget asks first, Cancel keeps the network.
    b.click('[data-test="selected-network"] [data-test="info-button"]')
    b.expect_shown("detail-sheet")
    b.click("forget")
    b.expect_shown("forget-alert")
    assert "Forget Wi-Fi Network “Blob Jr's WiFi”?" in b.text("forget-alert")
    b.screenshot("wifi-forget-confirm")
    b.click("cancel-forget")
    b.expect_shown("forget-alert", False)
    assert b.visible("detail-sheet")
    assert b.find("selected-network").get_attribute("data-id") == "blob-jr"

    b.click("forget")
    b.expect_shown("forget-alert")
    b.click("confirm-forget")
    b.expect_shown("forget-alert", False)
    b.expect_shown("detail-sheet", False)
    b.wait_for("no selected network", lambda: len(b.find_all("selected-network")), lambda n: n == 0)
    b.wait_for("blob-jr back among the rows", lambda: row_ids(b), lambda ids: ids == NETWORKS)

    # Wi-Fi off hides the networks; on shows them again.
    b.click("wifi-toggle")
    b.expect_shown("networks-section", False)
    assert not b.find("wifi-toggle").is_selected()
    b.click("wifi-toggle")
    b.expect_shown("networks-section")
    assert b.find("wifi-toggle").is_selected()
    b.wait_for("the networks again", lambda: [r.get_attribute("data-id") for r in b.find_all("network-row") if r.is_displayed()],
               lambda ids: ids == NETWORKS)
    assert_no_js_errors(b)


def advance_page_clock(b: Browser, server: Server, seconds: float) -> None:
    """Moves the manual clock of the page's one instance, through a second connection to
    the page's session; returns once the woken effects have settled (`advanceClock`)."""
    with server.connect(session_id(b)) as client:
        (instance,) = [entry["instance"] for entry in client.welcome["instances"]]
        reply, _ = client.call(type="advanceClock", instance=instance, seconds=seconds)
        assert reply["type"] == "ok", reply


def test_wifi_cancel_during_a_join_selects_nothing(browser: Browser, server: Server) -> None:
    b = browser
    # On a manual clock, the join's second passes when the test says so, not by waiting.
    b.open(WIFI + "&clock=manual")
    join(b, "blob-jr", "Blob Jr's WiFi", "blob")
    b.expect_shown("joining")
    b.click("cancel")
    b.expect_shown("connect-sheet", False)
    cancelled = version(b)
    advance_page_clock(b, server, 2)  # past the join's end: a join still running would select now
    assert version(b) == cancelled, "the cancelled join changed the state"
    assert not b.find_all("selected-network"), "a cancelled join still selected the network"
    assert row_ids(b) == NETWORKS
    assert not b.visible("connect-sheet") and not b.visible("incorrect-password-alert")

    # The same second, not cancelled, joins: the clock above did move the feature's time.
    join(b, "blob-jr", "Blob Jr's WiFi", "blob")
    b.expect_shown("joining")
    advance_page_clock(b, server, 1)
    b.expect_shown("connect-sheet", False)
    b.expect_text('[data-test="selected-network"] [data-test="network-name"]', "Blob Jr's WiFi")
    assert_no_js_errors(b)


# ---------------------------------------------------------------------------------
# Profile: the page plays the host's network

PARTS = ["part-pet", "part-family", "part-preschool", "part-babyProfile"]


def part_loading(b: Browser, part: str) -> bool:
    card = b.find(part)
    skeleton = b.find_all(".skeleton", card)
    shows = bool(skeleton) and skeleton[0].is_displayed()
    assert shows == (card.get_attribute("data-loading") == "true"), part
    return shows


def test_profile_loads_by_hand_fails_and_retries(page_browser: Browser) -> None:
    b = page_browser
    b.open("profile.html")
    auto = b.find("auto-answer")
    assert auto.is_selected()
    auto.click()
    assert not auto.is_selected()
    for part in PARTS:
        assert b.find(part).text.endswith("Not loaded yet."), b.find(part).text

    b.click("load")
    b.expect_shown("loading")
    for part in PARTS:
        b.wait_for(f"{part} loading", lambda part=part: part_loading(b, part))
    requests = b.expect_count("request", 4)
    assert [r.get_attribute("data-kind") for r in requests] == ["fetchPet", "fetchFamily", "fetchPreschool", "fetchBabyProfile"]

    b.click('[data-test="request"][data-kind="fetchPet"] [data-test="answer"]')
    b.wait_for("the pet", lambda: b.text("part-pet"), lambda text: "Mochi" in text)
    assert not part_loading(b, "part-pet")
    assert all(part_loading(b, part) for part in PARTS[1:])
    b.expect_count("request", 3)

    b.click('[data-test="request"][data-kind="fetchFamily"] [data-test="fail"]')
    b.expect_shown("error")
    b.expect_text("error-message", "Could not load the family profile: fetchFamily failed: the network is unreachable")
    for part in PARTS[1:]:
        b.wait_for(f"{part} to stop loading", lambda part=part: not part_loading(b, part))
    b.expect_shown("loading", False)
    b.expect_count("request", 0)
    assert "Mochi" in b.text("part-pet")
    log = b.text("request-log")
    assert "answered fetchPet" in log and "failed fetchFamily" in log and "cancelled by the feature" in log, log
    assert not b.visible("server-error")
    b.screenshot("profile-error")

    # Retry with the page answering by itself: everything arrives.
    b.find("auto-answer").click()
    b.click("retry")
    b.expect_shown("error", False)
    expected = {"part-pet": "Mochi", "part-family": "Jiwoo", "part-preschool": "Sunflower Preschool",
                "part-babyProfile": "Seoyeon"}
    for part, text in expected.items():
        b.wait_for(f"{part} to show {text}", lambda part=part: b.text(part), lambda shown, text=text: text in shown,
                   timeout=4)
    assert not any(part_loading(b, part) for part in PARTS)
    b.expect_shown("loading", False)
    assert not b.visible("error") and not b.visible("server-error")
    b.screenshot("profile-loaded")
    assert_no_js_errors(b)


# ---------------------------------------------------------------------------------
# Sessions: a reload keeps the state, another tab has its own


def test_a_reload_keeps_the_state(page_browser: Browser) -> None:
    b = page_browser
    b.open("counter.html")
    for _ in range(3):
        b.click("increase")
    b.expect_text("value", "3")
    # On the bridge the session keeps the instance; in the page, the tab keeps its state.
    session = session_id(b) if b.transport == "bridge" else None
    seen = version(b)
    b.reload()
    b.expect_text("value", "3")
    assert session is None or session_id(b) == session
    assert version(b) == seen

    b.open(WIFI)  # the same tab: the same session
    assert session is None or session_id(b) == session
    connect_blob_jr(b)
    b.reload()
    selected = b.find("selected-network")
    assert selected.get_attribute("data-id") == "blob-jr"
    assert b.text("network-name", selected) == "Blob Jr's WiFi"
    assert row_ids(b) == ["blob", "blob-sr", "cafe"]
    assert session is None or session_id(b) == session
    assert_no_js_errors(b)


def test_a_second_tab_has_its_own_instance(browser: Browser) -> None:
    b = browser
    b.open("counter.html")
    b.click("increase")
    b.click("increase")
    b.expect_text("value", "2")
    first_tab, first_session = b.driver.current_window_handle, session_id(b)
    first_version = version(b)

    b.driver.switch_to.new_window("tab")
    b.open("counter.html")
    b.expect_text("value", "0")
    second_session = session_id(b)
    assert second_session != first_session
    b.click("decrease")
    b.expect_text("value", "-1")

    b.driver.switch_to.window(first_tab)
    assert b.text("value") == "2" and version(b) == first_version
    b.click("increase")
    b.expect_text("value", "3")

    b.driver.switch_to.window([h for h in b.driver.window_handles if h != first_tab][0])
    assert b.text("value") == "-1"
    assert session_id(b) == second_session
    assert_no_js_errors(b)


# ---------------------------------------------------------------------------------
# The index and the generic page


def test_index_lists_the_features_and_the_generic_page_drives_one(browser: Browser, server: Server) -> None:
    b = browser
    b.open("")
    b.expect_text("library", "FusionExamples 0.1.0")
    cards = b.find_all("feature")
    assert [card.get_attribute("data-name") for card in cards] == FEATURES
    for card, name in zip(cards, FEATURES, strict=True):
        assert b.text("feature-name", card) == name
        assert b.text("summary", card)
        assert b.find_all("input-name", card)
        assert b.find("demo-link", card).get_attribute("href") == f"{server.url}{name}.html"
        assert b.find("generic-link", card).get_attribute("href") == f"{server.url}feature.html?feature={name}"
    counter = cards[0]
    assert [chip.text for chip in b.find_all("input-name", counter)] == ["increase", "decrease", "reset", "show", "alertDismissed"]
    b.screenshot("index")

    # The counter's generic page, through its link.
    b.find("generic-link", counter).click()
    b.wait_ready()
    assert b.driver.current_url == f"{server.url}feature.html?feature=counter"
    b.expect_text("feature-name", "counter")
    assert b.text("instance-id") == "counter" and b.text("options") == "none"
    cases = [form.get_attribute("data-name") for form in b.find_all("input-case")]
    assert cases == ["increase", "decrease", "reset", "show", "alertDismissed"]
    for case in cases:
        assert b.text(f"input-{case}") == case
    tree = b.find("state-tree")
    b.expect_text('[data-path="/value"]', "value: 0", root=tree)
    assert b.text('[data-path="/isReset"]', tree) == "isReset: false"
    assert b.text('[data-path="/alert"]', tree) == "alert: null"

    b.click("input-increase")
    b.expect_text('[data-path="/value"]', "value: 1", root=tree)
    b.expect_text("state-version", "1")
    b.wait_for("the log line", lambda: b.text("log"), lambda text: '→ "increase" ✓ v1' in text)
    b.click("input-show")
    b.expect_text('[data-path="/alert"]', 'alert: "The value is 1."', root=tree)
    b.screenshot("generic-counter")
    assert not b.visible("error")
    assert_no_js_errors(b)

    # The same instance as the demo page in this tab (same key, same session).
    b.open("counter.html")
    b.expect_text("value", "1")
    b.expect_shown("alert")
    b.click("alert-ok")
    b.expect_shown("alert", False)


def test_generic_page_shows_what_it_cannot_do_in_the_error_area(browser: Browser) -> None:
    """The generic page builds its forms from the manifest, so a person cannot send an
    input the feature lacks, nor a field of the wrong type, for these features (their
    fields are strings and booleans). What it does let them get wrong is shown in the
    error area: creation settings that are not JSON, a state that does not fit the
    feature (refused by the library), a feature the library lacks."""
    b = browser
    b.open("feature.html?feature=answer")
    b.type("field-answerChanged-text", "hi")
    b.click("input-answerChanged")
    b.expect_text('[data-path="/answer"]', 'answer: "hi"')
    assert not b.visible("error")

    b.type("opt-settings", '{"liveScan": fal')
    b.click("apply-options")
    b.expect_shown("error")
    assert b.find("error").get_attribute("data-status") == "PAGE_INVALID_JSON"
    assert shown_error(b) == ("PAGE_INVALID_JSON", "settings: Unexpected end of JSON input")
    assert b.driver.current_url.endswith("feature.html?feature=answer"), "a bad form still reloaded"
    b.click("close-error")
    b.expect_shown("error", False)

    b.open('feature.html?feature=counter&state={"value":"x"}', ready=False)
    b.expect_shown("error")
    assert b.find("error").get_attribute("data-status") == "FK_ERR_INVALID_STATE"
    status, message = shown_error(b)
    assert status == "FK_ERR_INVALID_STATE" and "value" in message, message
    b.screenshot("generic-error")

    b.open("feature.html?feature=nothing")
    b.expect_shown("error")
    assert shown_error(b) == ("FK_ERR_UNKNOWN_FEATURE", 'The library has no feature "nothing".')
    assert [link.get_attribute("data-name") for link in b.find_all("pick-feature")] == FEATURES
    b.find('[data-test="pick-feature"][data-name="home"]').click()
    b.wait_ready()
    b.expect_text("feature-name", "home")
    assert not b.visible("error")
    # The page reports each error to the console as well; nothing else went wrong.
    assert_no_js_errors(b, "FusionError", "PAGE_INVALID_JSON", "FK_ERR_INVALID_STATE", "FK_ERR_UNKNOWN_FEATURE")


def in_view(b: Browser, test: str) -> bool:
    """Whether the element is inside the window (not scrolled away, not under the top bar)."""
    return b.driver.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "const bar = document.querySelector('.topbar').getBoundingClientRect().bottom;"
        "return r.bottom > bar && r.top < innerHeight;", b.find(test))


def test_generic_page_shows_an_error_where_the_person_looks(browser: Browser) -> None:
    b = browser
    b.open("feature.html?feature=counter")
    b.type("opt-settings", "{bad")
    b.click("apply-options")  # at the bottom of the page: the window scrolls down to it
    b.expect_shown("error")
    b.wait_for("the error in view", lambda: in_view(b, "error"), timeout=1)


def test_generic_page_inputs_after_the_instance_was_refused(browser: Browser) -> None:
    b = browser
    b.open('feature.html?feature=counter&state={"value":"x"}', ready=False)
    b.expect_shown("error")
    b.click("close-error")
    b.expect_shown("error", False)
    b.console()
    # The inputs are still drawn from the manifest; a click says why nothing happens.
    assert b.visible("input-increase") and b.find("input-increase").is_enabled()
    b.click("input-increase")
    b.expect_shown("error", timeout=1)
    status, message = shown_error(b)
    assert status == "PAGE_NO_INSTANCE" and "could not be created" in message, (status, message)
    assert_no_js_errors(b, "FusionError", "FK_ERR_INVALID_STATE")


def test_generic_page_drives_wifi_with_a_checkbox_field(page_browser: Browser) -> None:
    b = page_browser
    b.open("feature.html?feature=wifi&liveScan=false")
    b.expect_text("feature-name", "wifi")
    assert b.text("instance-id") == "wifi.liveScan-false"
    assert b.text("options") == '{"settings":{"liveScan":false}}'
    cases = [form.get_attribute("data-name") for form in b.find_all("input-case")]
    # In the order the feature declares them.
    assert cases == ["screenAppeared", "screenDisappeared", "wifiToggled", "networkTapped", "infoButtonTapped",
                     "destinationDismissed", "passwordChanged", "joinButtonTapped", "incorrectPasswordAlertDismissed",
                     "forgetNetworkButtonTapped", "confirmForgetNetworkButtonTapped", "forgetAlertDismissed"], cases
    checkbox = b.find("field-wifiToggled-isOn")
    assert checkbox.get_attribute("type") == "checkbox" and not checkbox.is_selected()
    assert b.find("field-networkTapped-id").get_attribute("type") == "text"
    tree = b.find("state-tree")
    b.expect_text('[data-path="/isOn"]', "isOn: true", root=tree)

    b.click("input-wifiToggled")  # unchecked: isOn false
    b.expect_text('[data-path="/isOn"]', "isOn: false", root=tree)
    checkbox.click()
    assert checkbox.is_selected()
    b.click("input-wifiToggled")
    b.expect_text('[data-path="/isOn"]', "isOn: true", root=tree)

    b.type("field-networkTapped-id", "blob-jr")
    b.click("input-networkTapped")
    b.wait_for("the connect destination", lambda: len(b.find_all('[data-path="/destination/connect"]', tree)),
               lambda n: n == 1)
    b.click("expand-all")
    b.expect_text('[data-path="/destination/connect/network/name"]', "name: \"Blob Jr's WiFi\"", root=tree)
    b.screenshot("generic-wifi")

    # The JSON view shows the same state.
    b.click("raw-toggle")
    b.expect_shown("state-json")
    assert '"isConnecting": false' in b.text("state-json")
    assert not b.visible("state-tree") and not b.visible("error")
    assert_no_js_errors(b)


# ---------------------------------------------------------------------------------
# A server that stops and comes back


def test_the_page_survives_a_server_restart(browser: Browser, server: Server, serve) -> None:
    b = browser
    b.open("counter.html")
    b.click("increase")
    b.click("increase")
    b.expect_text("value", "2")
    b.expect_text("status", "open")
    before = session_id(b)

    # SIGTERM: the bridge closes the page's socket ("server shutting down"). A spare
    # connection of Chromium's can hold the HTTP server up; the bridge then drops it after
    # 1.5 s (see the test below), so the process always ends, with 0.
    assert stop_server(server, timeout=10), "fusion serve did not stop within 10 s of SIGTERM"
    code, out, _ = server.stop()
    assert code == 0 and "Stopped: every socket closed" in out, (code, out)
    b.expect_text("status", "reconnecting")
    assert b.find("status").get_attribute("data-status") == "reconnecting"
    # The page is still there, showing what it last knew.
    assert b.text("value") == "2" and b.visible("increase")
    assert not b.visible("error")
    b.screenshot("counter-reconnecting")
    # Nothing failed but the WebSocket: no uncaught error, no page error.
    assert_no_js_errors(b)

    # A click meanwhile is refused, and the page says so.
    b.click("increase")
    b.expect_shown("error")
    assert shown_error(b) == ("CLIENT_NOT_CONNECTED", "not connected to the server (reconnecting)")
    assert b.text("value") == "2"
    b.click("close-error")
    b.expect_shown("error", False)

    # The server comes back on the same port: the page reconnects by itself, to a new
    # session (the old one went with the server), and makes its instance again.
    b.servers.append(serve("--port", str(server.port)))
    b.expect_text("status", "open", timeout=8)
    b.wait_for("a new session", lambda: b.find("session").get_attribute("title"), lambda s: s and s != before)
    b.expect_text("value", "0")
    b.click("increase")
    b.expect_text("value", "1")
    assert not b.visible("error")
    assert_no_js_errors(b, "FusionError: not connected to the server")


def test_a_crashed_bridge_started_with_its_journals_gives_the_page_its_session_back(browser: Browser, serve, tmp_path) -> None:
    """`fusion serve --journal DIR` (issue 13.6): the bridge is killed with SIGKILL, so it
    closes nothing and saves nothing on its way out; started again with the same
    journals, it resumes the session, and the page, reconnecting by itself, finds its
    counter where it was."""
    b = browser
    journals = tmp_path / "journals"
    first = serve("--journal", str(journals))
    b.server = first
    b.open("counter.html")
    for _ in range(3):
        b.click("increase")
    b.expect_text("value", "3")
    before = session_id(b)
    first.process.kill()
    first.process.wait(timeout=10)
    b.expect_text("status", "reconnecting")
    again = serve("--port", str(first.port), "--journal", str(journals))
    b.expect_text("status", "open", timeout=8)
    assert session_id(b) == before, "the page rejoined its own session"
    b.expect_text("value", "3")
    b.click("increase")
    b.expect_text("value", "4")
    b.screenshot("counter-resumed-after-a-crash")
    assert not b.visible("error")
    assert_no_js_errors(b, "FusionError: not connected to the server")
    # The page's own destroy-free exit leaves the journal; a clean stop keeps it too.
    code, out, err = again.stop()
    assert f"Resumed 1 session from the journals in {journals}" in err
    assert list((journals / before).glob("*.journal")), "the journal outlives a clean stop, to be resumed"


def test_the_server_stops_while_a_connection_sits_unused(serve) -> None:
    """Found through the browser: after a page, Chromium often keeps a spare connection
    to the server that it never sends a request on, and the HTTP server's graceful stop
    waits for it forever. `fusion serve` exits anyway once its sockets are closed and
    its instances destroyed. Shown here without the browser, so it happens every time,
    beside a page that never answers its close: the wait counts from when that page was
    dropped, not from the signal (timed from the signal, a late drop on a busy host read
    as a stuck server)."""
    server = serve()
    page = server.connect()
    page.create("counter")
    with socket.create_connection(("127.0.0.1", server.port)):
        # Once a later connection is answered, this one was accepted (in order) and sits idle.
        with urllib.request.urlopen(server.url + "manifest.json") as later:
            assert later.status == 200
        signalled = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        assert page.close_frame() == (1001, "server shutting down")
        try:
            server.process.wait(timeout=5)
            # The page is dropped a second after its close, the idle connection 1.5 s later.
            assert time.monotonic() - signalled >= 2.4
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
            pytest.fail("fusion serve was still running 5 s after SIGTERM, with one unused connection open")
    code, out, _ = server.stop()
    assert code == 0
    assert "Stopped: every socket closed, every instance destroyed (idle connections dropped)." in out
