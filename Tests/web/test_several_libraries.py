"""`fusion serve LIB1 LIB2`: the features of several libraries side by side in one
bridge, as `fusion run` loads them (docs/web-protocol.md). The chores plugin
(examples/plugins/chores, built as an outsider builds it) beside the example library:
the welcome and the manifest list both, a name both libraries have is created by its
qualified name, journals resume into the library that wrote them, and the index and the
generic page work for a plugin's feature in Chromium."""
from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from bridge import ROOT, Server
from conftest import Browser, stop_server

PLUGIN = ROOT / "examples" / "plugins" / "chores"


@pytest.fixture(scope="session")
def chores_library() -> Path:
    """The chores plugin, built in its own folder with its tests, as Tests/plugins builds it
    (which then compiles nothing again)."""
    subprocess.run(["swift", "build", "--build-tests"], cwd=PLUGIN, check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=PLUGIN, check=True, capture_output=True, text=True)
    path = Path(out.stdout.strip()) / "libChores.so"
    assert path.exists(), path
    return path


@pytest.fixture(scope="session")
def examples_library(bin_dir: Path) -> Path:
    return bin_dir / "libFusionExamples.so"


@pytest.fixture
def both(serve: Callable[..., Server], examples_library: Path, chores_library: Path) -> Server:
    return serve(str(examples_library), str(chores_library))


def test_the_welcome_and_the_manifest_list_every_library(both: Server) -> None:
    with both.connect() as client:
        assert [library["name"] for library in client.welcome["libraries"]] == ["FusionExamples", "Chores"]
        assert client.welcome["library"]["name"] == "FusionExamples"
        reply, _ = client.call(type="manifest")
    manifest = reply["manifest"]
    assert [library["name"] for library in manifest["libraries"]] == ["FusionExamples", "Chores"]
    named = [(feature["library"], feature["name"]) for feature in manifest["features"]]
    assert named == [("FusionExamples", "FusionExamples/counter"), ("FusionExamples", "answer"), ("FusionExamples", "home"),
                     ("FusionExamples", "wifi"), ("FusionExamples", "profile"), ("Chores", "todo"),
                     ("Chores", "Chores/counter")]
    assert all(feature["inputs"] and feature["stateSchema"] for feature in manifest["features"])


def test_a_shared_name_is_created_by_its_qualified_name(both: Server) -> None:
    with both.connect() as client:
        reply, _ = client.call(type="create", feature="counter")
        assert reply["type"] == "error" and reply["status"] == "FK_ERR_UNKNOWN_FEATURE"
        assert "FusionExamples" in reply["message"] and "Chores" in reply["message"]
        ours, state = client.create("FusionExamples/counter")
        assert state["state"] == {"value": 0, "isReset": False, "alert": None}
        theirs, state = client.create("Chores/counter")
        assert state["state"]["count"] == 0 and state["state"]["step"] == 1
        todo, state = client.create("todo")
        assert state["state"]["items"] == []
        reply, _ = client.call(type="create", feature="Nobody/counter")
        assert reply["status"] == "FK_ERR_UNKNOWN_FEATURE" and "Nobody" in reply["message"]
        for instance, input_ in ((ours, "increase"), (theirs, "tapped"), (todo, {"draftChanged": {"text": "milk"}})):
            reply, _ = client.call(type="send", instance=instance, input=input_)
            assert reply["type"] == "ok" and reply["version"] == 1, reply


def test_journals_resume_into_the_library_that_wrote_them(serve: Callable[..., Server], examples_library: Path,
                                                         chores_library: Path, tmp_path: Path) -> None:
    journals = tmp_path / "journals"
    first = serve(str(examples_library), str(chores_library), "--journal", str(journals))
    with first.connect() as client:
        session = client.session
        todo, _ = client.create("todo", key="list")
        counter, _ = client.create("FusionExamples/counter", key="count")
        for instance, input_ in ((todo, {"draftChanged": {"text": "milk"}}), (todo, "addTapped"), (counter, "increase")):
            reply, _ = client.call(type="send", instance=instance, input=input_)
            assert reply["type"] == "ok", reply
    first.stop(signal.SIGKILL)
    again = serve(str(examples_library), str(chores_library), "--journal", str(journals))
    with again.connect(session=session) as client:
        assert client.welcome["resumed"] is True
        assert sorted((item["instance"], item["feature"]) for item in client.welcome["instances"]) == [
            ("count", "FusionExamples/counter"), ("list", "todo")]
        assert [item["title"] for item in client.next("state", instance="list")["state"]["items"]] == ["milk"]
        assert client.next("state", instance="count")["state"]["value"] == 1


def test_the_index_and_the_generic_page_serve_a_plugins_feature(browser: Browser, both: Server) -> None:
    b = browser
    b.servers.append(both)
    b.server = both
    b.open("")
    b.expect_text("library", "FusionExamples 0.1.0 · Chores 1.1.0")
    cards = b.find_all("feature")
    assert [card.get_attribute("data-name") for card in cards] == [
        "FusionExamples/counter", "answer", "home", "wifi", "profile", "todo", "Chores/counter"]
    todo = cards[5]
    assert b.text("feature-library", todo) == "CHORES"  # drawn in capitals (CSS), the text is "Chores"
    assert not b.find_all("demo-link", todo) and not b.find_all("demo-link", cards[0])
    assert b.find_all("demo-link", cards[3])  # wifi: only the example library has it
    b.screenshot("index-two-libraries")

    b.find("generic-link", todo).click()
    b.wait_ready()
    b.expect_text("feature-name", "todo")
    b.type("field-draftChanged-text", "milk")
    b.click("input-draftChanged")
    b.click("input-addTapped")
    b.expect_text('[data-path="/activeCount"]', "activeCount: 1")
    b.screenshot("generic-todo")
    assert not b.visible("error")

    b.open("feature.html?feature=Chores/counter")
    b.expect_text("feature-name", "Chores/counter")
    b.click("input-tapped")
    b.expect_text('[data-path="/count"]', "count: 1")
    assert not b.visible("error")
    stop_server(both)
