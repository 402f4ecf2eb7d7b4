"""Inputs exactly once across a crash of the bridge (docs/web-protocol.md, "Exactly
once"): a client that lost its connection before an input's `ok` asks, after rejoining,
which of its messages were applied, and sends only the others again. The bridge keeps
the ids of applied `send` messages with them in the journal (`sendBy`), so the answer
survives a `kill -9`. Over the protocol, and with fusionkit.js in Chromium."""
from __future__ import annotations

import signal
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from bridge import Client, Server
from conftest import Browser

FAST = ("--max-messages-per-second", "100000")  # a burst of inputs is the point here


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_applied_names_the_sends_that_were_applied(serve: Callable[..., Server]) -> None:
    server = serve()
    with server.connect() as client:
        client.create("counter", key="c")
        for id_ in ("a.1", "a.2"):
            reply, _ = client.request({"type": "send", "id": id_, "instance": "c", "input": "increase"})
            assert reply["type"] == "ok"
        refusal, _ = client.request({"type": "send", "id": "a.3", "instance": "c", "input": "jump"})
        assert refusal["status"] == "FK_ERR_UNKNOWN_INPUT"  # refused: done all the same, but not applied
        reply, _ = client.request({"type": "applied", "ids": ["a.1", "a.3", "a.4", "b.1"]})
        assert reply == {"type": "applied", "re": reply["re"], "ids": ["a.1"],
                         "refused": [{"id": "a.3", "status": refusal["status"], "message": refusal["message"]}]}
        reply, _ = client.request({"type": "applied", "ids": [1, 2]})
        assert reply["type"] == "error" and reply["status"] == "BRIDGE_MALFORMED_MESSAGE"
        assert "string ids" in reply["message"]


def journaled_counter(serve: Callable[..., Server], journals: Path) -> tuple[Server, Client]:
    """A bridge with a file journal, and a page of a new session holding a Counter "c"."""
    server = serve("--journal", str(journals), *FAST)
    client = server.connect()
    client.create("counter", key="c")
    return server, client


def test_after_a_kill_each_input_is_applied_once(serve: Callable[..., Server], tmp_path: Path) -> None:
    journals = tmp_path / "journals"
    first, client = journaled_counter(serve, journals)
    session = client.session
    inputs = 1000
    for number in range(inputs):  # no waiting for replies: many are unanswered at the kill
        client.send({"type": "send", "id": f"t.{number}", "instance": "c", "input": "increase"})
    # The bridge dies while it works through them: after the 50th reply.
    acknowledged: set[str] = set()
    while len(acknowledged) < 50:
        message = client.receive()
        if message["type"] == "ok":
            acknowledged.add(message["re"])
    first.process.send_signal(signal.SIGKILL)
    first.process.wait(timeout=10)
    acknowledged |= {message["re"] for message in client.drain(0.2) if message["type"] == "ok"}
    client.close()

    again = serve("--journal", str(journals), *FAST)
    with again.connect(session=session) as client:
        assert client.welcome["resumed"] is True
        # As fusionkit.js does: asks about the inputs it has no reply for.
        unsure = [f"t.{number}" for number in range(inputs) if f"t.{number}" not in acknowledged]
        assert unsure, "every input was acknowledged before the kill: nothing was tested"
        reply, _ = client.request({"type": "applied", "ids": unsure})
        applied = set(reply["ids"])
        for id_ in unsure:
            if id_ not in applied:
                reply, _ = client.request({"type": "send", "id": id_, "instance": "c", "input": "increase"})
                assert reply["type"] == "ok", reply
        _, before = client.request({"type": "resync", "instance": "c"})
        state = [message for message in before if message["type"] == "state"][-1]
    # Every input once: none lost (acknowledged or not), none applied twice.
    assert state["state"]["value"] == inputs, f"{len(acknowledged)} acknowledged, {len(applied)} more applied"


def test_a_refused_send_is_told_as_refused_after_a_kill(serve: Callable[..., Server], tmp_path: Path) -> None:
    # Found by an outside probe: a send the feature refused was listed as applied, and
    # after a kill its resend got `ok`. The journal holds the input; the replay refuses it
    # again, and so the copy of the session knows the refusal, past a checkpoint too.
    journals = tmp_path / "journals"
    first, client = journaled_counter(serve, journals)
    session = client.session
    refusals = {}
    for number in range(150):  # past the checkpoint at 100 records: two refusals before it, one after
        refused = number in (3, 60, 140)
        reply, _ = client.request({"type": "send", "id": f"r.{number}", "instance": "c",
                                   "input": "jump" if refused else "increase"})
        if refused:
            assert reply["type"] == "error", reply
            refusals[f"r.{number}"] = {"id": f"r.{number}", "status": reply["status"], "message": reply["message"]}
    first.process.send_signal(signal.SIGKILL)
    first.process.wait(timeout=10)
    client.close()

    again = serve("--journal", str(journals), *FAST)
    with again.connect(session=session) as client:
        reply, _ = client.request({"type": "applied", "ids": ["r.2", *refusals, "r.150"]})
        assert reply["ids"] == ["r.2"] and reply["refused"] == list(refusals.values()), reply
        for id_, refusal in refusals.items():
            reply, _ = client.request({"type": "send", "id": id_, "instance": "c", "input": "increase"})
            assert reply["type"] == "error" and reply["status"] == refusal["status"], reply
            assert reply["message"] == refusal["message"]
        assert value_of(client) == 147


def test_an_applied_send_is_answered_ok_after_its_instance_is_gone(serve: Callable[..., Server]) -> None:
    # Found by an outside probe: its resend got BRIDGE_UNKNOWN_INSTANCE, which says "not
    # applied: send it again".
    server = serve()
    with server.connect() as client:
        client.create("counter", key="c")
        first, _ = client.request({"type": "send", "id": "g.1", "instance": "c", "input": "increase"})
        client.request({"type": "destroy", "id": "g.d", "instance": "c"})
        again, _ = client.request({"type": "send", "id": "g.1", "instance": "c", "input": "increase"})
        assert again == first == {"type": "ok", "re": "g.1", "version": 1}


def value_of(client: Client, instance: str = "c") -> int:
    _, before = client.request({"type": "resync", "instance": instance})
    return int([message for message in before if message["type"] == "state"][-1]["state"]["value"])


@pytest.mark.parametrize("journal", [False, True], ids=["memory", "journal"])
def test_a_message_id_is_applied_once_whoever_sends_it(
        serve: Callable[..., Server], tmp_path: Path, journal: bool) -> None:
    # The id is the unit of idempotence, not only what `applied` answers: four inputs, each
    # sent twice (once on each of two connections of the session, and again on the first),
    # count four; a duplicate gets the reply the first had, a refusal included.
    server = serve(*(("--journal", str(tmp_path / "journals")) if journal else ()), *FAST)
    with server.connect() as first, server.connect(session=first.session) as second:
        first.create("counter", key="c")
        versions = {}
        for number in range(4):
            reply, _ = first.request({"type": "send", "id": f"d.{number}", "instance": "c", "input": "increase"})
            assert reply["type"] == "ok", reply
            versions[f"d.{number}"] = reply["version"]
        for client in (second, first):
            for number in reversed(range(4)):  # out of order, too
                reply, _ = client.request({"type": "send", "id": f"d.{number}", "instance": "c", "input": "increase"})
                assert reply == {"type": "ok", "re": f"d.{number}", "version": versions[f"d.{number}"]}
        refused, _ = first.request({"type": "send", "id": "d.x", "instance": "c", "input": "jump"})
        again, _ = second.request({"type": "send", "id": "d.x", "instance": "c", "input": "increase"})
        assert refused["status"] == again["status"] == "FK_ERR_UNKNOWN_INPUT"
        assert value_of(first) == 4


@pytest.mark.parametrize("journal", [False, True], ids=["memory", "journal"])
def test_a_dropped_connections_queued_inputs_never_double(
        serve: Callable[..., Server], tmp_path: Path, journal: bool) -> None:
    # A tab sends 250 inputs and its connection drops while the bridge still works through
    # them; a new tab rejoins at once, asks `applied`, and resends what is not listed, as
    # fusionkit.js does. Whichever copy of an id comes first is applied; the other is not.
    journals = tmp_path / "journals"
    flags = (*(("--journal", str(journals)) if journal else ()), *FAST)
    server = serve(*flags)
    inputs = 250
    ids = [f"q.{number}" for number in range(inputs)]
    for round_ in range(3):
        dropped = server.connect()
        session = dropped.session
        dropped.create("counter", key="c")
        for id_ in ids:
            dropped.send({"type": "send", "id": id_, "instance": "c", "input": "increase"})
        acknowledged: set[str] = set()
        while len(acknowledged) < 5:
            message = dropped.receive()
            if message["type"] == "ok":
                acknowledged.add(message["re"])
        dropped.ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        dropped.ws.sock.close()  # a reset, no close handshake: the queue is still being read
        with server.connect(session=session) as tab:
            unsure = [id_ for id_ in ids if id_ not in acknowledged]
            reply, _ = tab.request({"type": "applied", "ids": unsure})
            listed = set(reply["ids"])
            for id_ in unsure:
                if id_ not in listed:
                    tab.send({"type": "send", "id": id_, "instance": "c", "input": "increase"})
            for id_ in unsure:
                if id_ not in listed:
                    assert tab.next("ok", re=id_)["version"] is not None
            tab.drain(0.3)  # the dropped connection's last inputs have been read by now
            assert value_of(tab) == inputs, f"round {round_}: {len(listed)} listed as applied"
            tab.request({"type": "destroy", "instance": "c"})
    if journal:
        # The journal agrees: a bridge started on it replays the same count.
        again_session = server.connect()
        again_session.create("counter", key="c")
        for id_ in ids[:10]:
            again_session.send({"type": "send", "id": id_, "instance": "c", "input": "increase"})
            again_session.send({"type": "send", "id": id_, "instance": "c", "input": "increase"})
        again_session.drain(0.5)
        kept = again_session.session
        again_session.close()
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=10)
        restarted = serve(*flags)
        with restarted.connect(session=kept) as tab:
            assert tab.welcome["resumed"] is True
            assert value_of(tab) == 10
            reply, _ = tab.request({"type": "send", "id": ids[3], "instance": "c", "input": "increase"})
            assert reply["type"] == "ok"
            assert value_of(tab) == 10  # known from the journal: not applied again


def test_fusionkit_js_resends_only_what_was_not_applied(browser: Browser, tmp_path: Path) -> None:
    # The bridge comes back on the same port, where the page reconnects.
    port = free_port()
    flags = ("--journal", str(tmp_path / "journals"), *FAST)
    server = Server(browser.server.fusion, *flags, port=port)
    browser.servers.append(server)
    b = browser
    b.driver.get(server.url + "index.html")
    b.wait_ready()
    # A page of the bridge: 1,000 inputs, none awaited before the next.
    b.driver.execute_script("""
        window.outcome = import("/fusionkit.js").then(async ({ connect }) => {
            const bridge = await connect(undefined, { minDelay: 50, maxDelay: 200 });
            const counter = await bridge.create("counter", { key: "burst" });
            // One in a hundred the feature refuses: it must reject, whether its reply came
            // before the kill or the rejoin's `applied` tells.
            const sends = Array.from({ length: 1000 }, (_, i) => counter.send(i % 100 === 50 ? "jump" : "increase"));
            window.acknowledged = 0;
            for (const send of sends) send.then(() => window.acknowledged++);
            const settled = await Promise.allSettled(sends);
            await counter.resync();
            return { rejected: settled.filter((s) => s.status === "rejected").map((s) => `${s.reason.status}: ${s.reason}`),
                     value: counter.state.value, session: bridge.session };
        });""")
    b.wait_for("some inputs acknowledged", lambda: b.driver.execute_script("return window.acknowledged ?? 0"),
               lambda count: count >= 20)
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=10)
    at_kill = b.driver.execute_script("return window.acknowledged")
    assert at_kill < 1000, "every input was acknowledged before the kill: nothing was tested"
    restarted = Server(browser.server.fusion, *flags, port=port)
    browser.servers.append(restarted)
    outcome = b.driver.execute_async_script("window.outcome.then(arguments[arguments.length - 1]);")
    assert len(outcome["rejected"]) == 10 and all(reason.startswith("FK_ERR_UNKNOWN_INPUT: ") for reason in outcome["rejected"]), outcome
    assert outcome["value"] == 990
