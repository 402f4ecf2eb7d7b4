"""The bridge's WebSocket protocol (docs/web-protocol.md) from a program's side:
every message, every error row, sessions, the Origin check, limits, shutdown."""
from __future__ import annotations

import json
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import websocket
from bridge import Client, Server, apply_patch, close_frame


def whole_state(client: Client, instance: str) -> dict:
    reply, before = client.call(type="resync", instance=instance)
    assert reply["type"] == "ok"
    return [m for m in before if m["type"] == "state"][-1]


def test_create_send_and_patches_in_order(server: Server) -> None:
    with server.connect() as client:
        assert client.welcome["resumed"] is False
        assert client.welcome["library"]["name"] == "FusionExamples"
        assert len(client.session) == 32
        counter, first = client.create("counter")
        assert counter == "#1"
        assert first == {"type": "state", "instance": "#1", "from": None, "to": 0,
                         "state": {"value": 0, "isReset": False, "alert": None}}
        state, version = first["state"], 0
        for input_ in ["increase", "increase", {"show": {}}, "decrease"]:
            reply, before = client.call(type="send", instance=counter, input=input_)
            # The change comes before the ok, as a patch from the version held.
            (patch,) = before
            assert patch["type"] == "patch" and patch["from"] == version and patch["to"] == version + 1
            state, version = apply_patch(state, patch["patch"]), patch["to"]
            assert reply == {"type": "ok", "re": reply["re"], "version": version}
        assert state == {"value": 1, "isReset": False, "alert": "The value is 2."}
        assert whole_state(client, counter)["state"] == state


def test_changes_made_by_effects_arrive_without_an_input(server: Server) -> None:
    with server.connect() as client:
        answer, _ = client.create("answer", key="form")
        client.call(type="send", instance=answer, input={"answerChanged": {"text": "hi"}})
        reply, before = client.call(type="send", instance=answer, input="submitTapped")
        assert reply["type"] == "ok"
        # Submitting finishes on a library thread, later: its patch comes on its own.
        later = client.next("patch", instance="form")
        assert {"op": "replace", "path": "/submitted", "value": "hi"} in later["patch"]


def test_many_changes_between_flushes_still_add_up(server: Server) -> None:
    """Patches may be coalesced or replaced by the whole state; applied in order they
    always give the state the server holds, never a wrong one."""
    with server.connect() as client:
        wifi, first = client.create("wifi", options={"clock": "manual", "seed": 7})
        state, version = first["state"], first["to"]
        _, appeared = client.call(type="send", instance=wifi, input="screenAppeared")
        # Forty scan ticks sent without waiting: the writer may coalesce their patches.
        ids = [client.send({"type": "advanceClock", "instance": wifi, "seconds": 2}) for _ in range(40)]
        messages = []
        while True:
            message = client.receive()
            if message.get("re") == ids[-1]:
                reply = message
                break
            messages.append(message)
        assert reply["type"] == "ok" and reply["version"] >= 30
        messages = [m for m in appeared + messages if m.get("instance") == wifi]
        for message in messages:
            if message["type"] == "state":
                state, version = message["state"], message["to"]
            elif message["type"] == "patch":
                assert message["from"] == version
                state, version = apply_patch(state, message["patch"]), message["to"]
        final = whole_state(client, wifi)
        assert version == final["to"] == reply["version"]
        assert state == final["state"]


@pytest.mark.parametrize("message, status, words", [
    ("not json", "BRIDGE_MALFORMED_MESSAGE", "not JSON"),
    ("[1,2]", "BRIDGE_MALFORMED_MESSAGE", "a message is a JSON object"),
    ('{"id":1}', "BRIDGE_MALFORMED_MESSAGE", 'has no "type"'),
    ('{"type":"jump","id":1}', "BRIDGE_MALFORMED_MESSAGE", 'unknown message type "jump"'),
    ('{"type":"send","id":1,"instance":"c","inptu":"increase"}', "BRIDGE_MALFORMED_MESSAGE", 'unknown field "inptu"'),
    ('{"type":"send","id":1,"instance":"c"}', "BRIDGE_MALFORMED_MESSAGE", 'needs "input"'),
    ('{"type":"send","id":1,"instance":"nobody","input":"increase"}', "BRIDGE_UNKNOWN_INSTANCE", 'no instance "nobody"'),
    ('{"type":"send","id":1,"instance":"c","input":"jump"}', "FK_ERR_UNKNOWN_INPUT", 'unknown input "jump"'),
    ('{"type":"send","id":1,"instance":"c","input":{"increase":{"by":2}}}', "FK_ERR_INVALID_INPUT", "by"),
    ('{"type":"send","id":1,"instance":"c","input":""}', "FK_ERR_UNKNOWN_INPUT", ""),
    ('{"type":"create","id":1,"feature":"nothing"}', "FK_ERR_UNKNOWN_FEATURE", "counter"),
    ('{"type":"create","id":1,"feature":"counter","options":{"state":{"value":"x"}}}', "FK_ERR_INVALID_STATE", "value"),
    ('{"type":"create","id":1,"feature":"counter","options":{"colour":"red"}}', "FK_ERR_INVALID_ARGUMENT", "colour"),
    ('{"type":"create","id":1,"feature":"counter","key":"c"}', "BRIDGE_KEY_TAKEN", 'already has an instance "c"'),
    ('{"type":"create","id":1,"feature":"answer","key":"c","reuse":true}', "BRIDGE_KEY_TAKEN", 'is a "counter"'),
    ('{"type":"respond","id":1,"instance":"c","request":99,"result":{}}', "FK_ERR_UNKNOWN_REQUEST", "99"),
    ('{"type":"advanceClock","id":1,"instance":"c","seconds":1}', "FK_ERR_INVALID_ARGUMENT", "system clock"),
])
def test_every_refusal_says_why_and_changes_nothing(server: Server, message: str, status: str, words: str) -> None:
    with server.connect() as client:
        client.create("counter", key="c")
        client.call(type="send", instance="c", input="increase")
        before = whole_state(client, "c")
        client.raw(message)
        error = client.next("error")
        assert error["status"] == status, error
        assert words in error["message"], error
        sent = json.loads(message) if message.startswith("{") else None
        assert error["re"] == (sent.get("id") if isinstance(sent, dict) else None)
        after = whole_state(client, "c")
        assert (after["to"], after["state"]) == (before["to"], before["state"])
        # The connection goes on.
        reply, _ = client.call(type="send", instance="c", input="increase")
        assert reply["version"] == before["to"] + 1


def test_binary_and_oversized_messages_are_dropped_with_an_error(serve) -> None:
    server = serve("--max-message-bytes", "1024")
    with server.connect() as client:
        client.create("counter", key="c")
        client.raw(b'{"type":"send","instance":"c","input":"increase"}')
        assert "binary frame" in client.next("error")["message"]
        client.raw(json.dumps({"type": "send", "instance": "c", "input": {"answerChanged": {"text": "x" * 2000}}}))
        error = client.next("error")
        assert error["status"] == "BRIDGE_MESSAGE_TOO_LARGE" and "1024" in error["message"]
        assert whole_state(client, "c")["to"] == 0
    # A single frame over four times the limit is too big even to drop: code 1009.
    with server.connect() as client:
        client.raw("x" * 8000)
        code, _ = client.close_frame()
        assert code == 1009


def test_rate_limit_drops_with_an_error_and_recovers(serve) -> None:
    server = serve("--max-messages-per-second", "5")
    with server.connect() as client:
        client.create("counter", key="c")  # one message of the five
        for _ in range(10):
            client.send({"type": "send", "instance": "c", "input": "increase"})
        replies: list[dict] = []
        while len([m for m in replies if m["type"] in ("ok", "error")]) < 10:
            replies.append(client.receive())
        oks = [m for m in replies if m["type"] == "ok"]
        errors = [m for m in replies if m["type"] == "error"]
        # A burst of five, one of them spent on create; a token may come back meanwhile.
        assert len(oks) in (4, 5) and len(errors) == 10 - len(oks)
        assert all(e["status"] == "BRIDGE_RATE_LIMITED" for e in errors)
        assert "5 messages per second" in errors[0]["message"]
        time.sleep(1.1)
        assert whole_state(client, "c")["to"] == len(oks)


def test_instance_and_session_limits(serve) -> None:
    server = serve("--max-instances-per-session", "2", "--max-sessions", "2")
    first = server.connect()
    first.create("counter")
    first.create("counter")
    reply, _ = first.call(type="create", feature="counter")
    assert reply["status"] == "BRIDGE_INSTANCE_LIMIT" and "2 instances" in reply["message"]
    second = server.connect()
    third = websocket.create_connection(server.ws_url, timeout=5, suppress_origin=True)
    error = json.loads(third.recv())
    assert error["type"] == "error" and error["status"] == "BRIDGE_SESSION_LIMIT"
    assert close_frame(third) == (1013, "too many sessions")
    # Rejoining one's own session is not a new session.
    first.close()
    again = server.connect(session=first.session)
    assert again.welcome["resumed"] is True
    second.close()
    again.close()


def test_origin_is_checked(serve) -> None:
    server = serve("--allow-origin", "http://localhost:3000")
    for origin in ("http://evil.example", f"http://127.0.0.1:{server.port + 1}", "null"):
        socket = websocket.create_connection(server.ws_url, origin=origin, timeout=5)
        code, reason = close_frame(socket)
        assert code == 1008 and "may not open this bridge" in reason, origin
    for origin in (f"http://127.0.0.1:{server.port}", f"http://localhost:{server.port}", "http://localhost:3000"):
        with server.connect(origin=origin) as client:
            assert client.welcome["type"] == "welcome"
    request = urllib.request.Request(server.url + "ws", headers={"Origin": "http://evil.example"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request)
    assert refused.value.code == 403


def test_sessions_are_apart_and_survive_a_reconnect(server: Server) -> None:
    alice = server.connect()
    bob = server.connect()
    assert alice.session != bob.session
    alice.create("counter", key="mine")
    alice.call(type="send", instance="mine", input="increase")
    # Bob cannot reach Alice's instance, by her key or by anything else.
    reply, _ = bob.call(type="send", instance="mine", input="increase")
    assert reply["status"] == "BRIDGE_UNKNOWN_INSTANCE"
    # A forged session id is a new session, not someone else's.
    forged = server.connect(session="0" * 32)
    assert forged.welcome["resumed"] is False and forged.session != alice.session
    forged.close()
    # Alice reloads: the same session, her instance and its state come back.
    alice.close()
    back = server.connect(session=alice.session)
    assert back.welcome["resumed"] is True
    assert back.welcome["instances"] == [{"instance": "mine", "feature": "counter"}]
    state = back.next("state", instance="mine")
    assert state["to"] == 1 and state["state"]["value"] == 1
    # create with reuse finds it again, as a reloaded page does.
    reply, before = back.call(type="create", feature="counter", key="mine", reuse=True)
    assert reply["existing"] is True and before[-1]["state"]["value"] == 1
    back.close()
    bob.close()


def test_two_connections_of_one_session_both_hear_changes(server: Server) -> None:
    first = server.connect()
    first.create("counter", key="c")
    second = server.connect(session=first.session)
    second.next("state", instance="c")
    first.call(type="send", instance="c", input="increase")
    assert second.next("patch", instance="c")["to"] == 1
    reply, _ = second.call(type="destroy", instance="c")
    assert reply["type"] == "ok"
    assert first.next("destroyed", instance="c")
    first.close()
    second.close()


def test_a_session_ends_after_its_timeout(serve) -> None:
    server = serve("--session-timeout", "0.3")
    client = server.connect()
    client.create("counter", key="c")
    client.close()
    time.sleep(1.0)
    again = server.connect(session=client.session)
    assert again.welcome["resumed"] is False and again.welcome["instances"] == []
    again.close()


def test_host_requests_go_to_the_page_and_come_back_on_rejoin(server: Server) -> None:
    client = server.connect()
    profile, _ = client.create("profile", key="p", options={"requests": "host"})
    reply, before = client.call(type="send", instance=profile, input="loadAllProfiles")
    requests = [m for m in before if m["type"] == "request"]
    assert [r["kind"] for r in requests] == ["fetchPet", "fetchFamily", "fetchPreschool", "fetchBabyProfile"]
    assert all(r["payload"] == {"profileID": "baby-1"} for r in requests)
    pet = requests[0]["id"]
    reply, before = client.call(type="respond", instance=profile, request=pet,
                                result={"name": "Mochi", "species": "dog", "age": 3})
    assert reply["type"] == "ok"
    assert {"op": "replace", "path": "/pet", "value": {"name": "Mochi", "species": "dog", "age": 3}} in before[0]["patch"]
    reply, _ = client.call(type="respond", instance=profile, request=requests[1]["id"], result={"members": 3})
    assert reply["status"] == "FK_ERR_INVALID_RESPONSE"
    client.close()
    # The page reloads: the three still open are asked again.
    back = server.connect(session=client.session)
    asked = [back.next("request", instance="p")["id"] for _ in range(3)]
    assert asked == [r["id"] for r in requests[1:]]
    reply, before = back.call(type="fail", instance=profile, request=asked[0], message="offline")
    assert [m["id"] for m in before if m["type"] == "cancel"] == asked[1:]
    assert whole_state(back, profile)["state"]["error"] == "Could not load the family profile: offline"
    back.close()


def test_manifest_over_the_socket_and_over_http(server: Server) -> None:
    with server.connect() as client:
        reply, _ = client.call(type="manifest")
        names = [f["name"] for f in reply["manifest"]["features"]]
        assert names == ["counter", "answer", "home", "wifi", "profile"]
    with urllib.request.urlopen(server.url + "manifest.json") as response:
        assert json.load(response)["features"][0]["name"] == "counter"


def test_static_route_serves_pages_and_client_only(server: Server) -> None:
    with urllib.request.urlopen(server.url) as response:
        assert response.headers["Content-Type"].startswith("text/html")
    with urllib.request.urlopen(server.url + "fusionkit.js") as response:
        assert response.headers["Content-Type"].startswith("text/javascript")
        assert b"export" in response.read()
    # The client's modules, which fusionkit.js imports from fusionkit/.
    names = sorted(p.name for p in (Path(__file__).parents[2] / "bindings/web/fusionkit").glob("*.js"))
    assert "bridge.js" in names and "input.js" in names
    for name in names:
        with urllib.request.urlopen(server.url + "fusionkit/" + name) as response:
            assert response.headers["Content-Type"].startswith("text/javascript"), name
            assert b"export " in response.read(), name
    for path in ("../README.md", "%2e%2e/README.md", "..%2fREADME.md", ".gitignore", "nothing.html",
                 "fusionkit/../../README.md", "fusionkit/%2e%2e/%2e%2e/README.md", "fusionkit/nothing.js"):
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(server.url + path)
        assert missing.value.code == 404, path


def test_sigterm_closes_every_socket_with_a_reason(server: Server) -> None:
    clients = [server.connect() for _ in range(3)]
    for client in clients:
        client.create("counter")
    server.process.send_signal(signal.SIGTERM)
    for client in clients:
        assert client.close_frame() == (1001, "server shutting down")
    code, out, _ = server.stop()
    assert code == 0
    assert "Stopped: every socket closed, every instance destroyed." in out
