"""The bridge's WebSocket protocol (docs/web-protocol.md) from a program's side:
every message, every error row, sessions, the Origin check, limits, shutdown."""
from __future__ import annotations

import json
import os
import re
import signal
import socket as sys_socket
import struct
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import websocket
from bridge import ROOT, Client, RawWebSocket, Server, apply_patch, close_frame


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
            # The change comes before the ok: the Counter's state is small, so whole (a
            # patch would cost more than the state, docs/web-protocol.md).
            (change,) = before
            assert change["type"] == "state" and change["from"] is None and change["to"] == version + 1
            state, version = change["state"], change["to"]
            assert reply == {"type": "ok", "re": reply["re"], "version": version}
        assert state == {"value": 1, "isReset": False, "alert": "The value is 2."}
        assert whole_state(client, counter)["state"] == state


def test_a_large_state_changes_by_patches_from_the_version_held(server: Server) -> None:
    networks = [{"id": f"n{i}", "name": f"Network {i}", "isSecured": i % 2 == 0, "connectivity": 0.5} for i in range(40)]
    start = {"isOn": True, "isScanning": False, "selectedNetworkID": None, "destination": None, "foundNetworks": networks}
    with server.connect() as client:
        wifi, first = client.create("wifi", options={"clock": "manual", "state": start})
        state, version = first["state"], first["to"]
        for input_ in [{"infoButtonTapped": {"id": "n7"}}, "destinationDismissed", {"infoButtonTapped": {"id": "n9"}}]:
            reply, before = client.call(type="send", instance=wifi, input=input_)
            (patch,) = before
            assert patch["type"] == "patch" and patch["from"] == version and patch["to"] == version + 1
            assert len(json.dumps(patch["patch"])) < len(json.dumps(state)) // 4
            state, version = apply_patch(state, patch["patch"]), patch["to"]
            assert reply == {"type": "ok", "re": reply["re"], "version": version}
        assert state["destination"]["detail"]["network"]["id"] == "n9"
        assert whole_state(client, wifi)["state"] == state


def test_changes_made_by_effects_arrive_without_an_input(server: Server) -> None:
    with server.connect() as client:
        answer, _ = client.create("answer", key="form")
        client.call(type="send", instance=answer, input={"answerChanged": {"text": "hi"}})
        reply, before = client.call(type="send", instance=answer, input="submitTapped")
        assert reply["type"] == "ok"
        # Submitting finishes on a library thread, later: its patch comes on its own.
        later = client.next("state", instance="form")
        assert later["state"]["submitted"] == "hi"


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


def test_frames_out_of_order_fail_the_connection_and_apply_nothing(serve) -> None:
    """RFC 6455 5.4: a continuation frame with no message open, or a new message begun
    before the open one ended, fails the connection (1002). Read on (outside probe), the
    first applied the message before it again (its bytes were still in the buffer: an
    input applied twice) and the second dropped the open message without a reply."""
    server = serve()
    cont, text = websocket.ABNF.OPCODE_CONT, websocket.ABNF.OPCODE_TEXT
    with server.connect() as client:
        instance, _ = client.create("counter")
        client.send({"type": "send", "id": 7, "instance": instance, "input": "increase"})
        assert client.next("ok", re=7)["version"] == 1
        client.ws.send_frame(websocket.ABNF(fin=1, opcode=cont, data=b""))
        assert client.close_frame() == (1002, "a continuation frame with no message open")
        session = client.session
    with server.connect(session=session) as again:  # the input was applied once
        assert whole_state(again, instance)["to"] == 1
    with server.connect() as client:
        client.ws.send_frame(websocket.ABNF(fin=0, opcode=text, data=b'{"type":"mani'))
        client.ws.send_frame(websocket.ABNF(fin=1, opcode=text, data=b'{"type":"manifest","id":"second"}'))
        assert client.close_frame() == (1002, "a new message began before the last one ended")
    with server.connect() as client:  # in order, fragments (and a ping among them) still make a message
        client.ws.send_frame(websocket.ABNF(fin=0, opcode=text, data=b'{"type":"mani'))
        client.ws.ping(b"x")
        client.ws.send_frame(websocket.ABNF(fin=1, opcode=cont, data=b'fest","id":"whole"}'))
        assert client.next("manifest")["re"] == "whole"


def test_text_that_is_not_utf8_fails_the_connection_and_applies_nothing(serve) -> None:
    """RFC 6455 8.1: a text message that is not UTF-8 fails the connection (1007), split
    over frames too, and what the client sent after it is not applied; a close frame whose
    reason is not UTF-8 is answered 1002. (Before, the first was answered
    BRIDGE_MALFORMED_MESSAGE and the connection read on; the second was answered 1000.)"""
    server = serve()
    cont, text = websocket.ABNF.OPCODE_CONT, websocket.ABNF.OPCODE_TEXT
    with server.connect() as client:
        instance, _ = client.create("counter")
        client.ws.send_frame(websocket.ABNF(fin=1, opcode=text, data=b'{"type":"send","instance":"' + b"\xff\"}"))
        client.send({"type": "send", "id": 1, "instance": instance, "input": "increase"})
        assert client.close_frame() == (1007, "a text message that is not UTF-8")
        session = client.session
    with server.connect(session=session) as again:
        assert whole_state(again, instance)["to"] == 0
    with server.connect() as client:  # a character cut in two by a frame's end is still one character
        client.ws.send_frame(websocket.ABNF(fin=0, opcode=text, data=b'{"type":"manifest","id":"\xc3'))
        client.ws.send_frame(websocket.ABNF(fin=1, opcode=cont, data=b'\xa9"}'))
        assert client.next("manifest")["re"] == "\u00e9"
        client.ws.send_frame(websocket.ABNF(fin=0, opcode=text, data=b'{"type":"manifest","id":"\xc3'))
        client.ws.send_frame(websocket.ABNF(fin=1, opcode=cont, data=b'"}'))
        assert client.close_frame() == (1007, "a text message that is not UTF-8")
    with server.connect() as client:
        client.ws.send_frame(websocket.ABNF(fin=1, opcode=websocket.ABNF.OPCODE_CLOSE, data=(1000).to_bytes(2, "big") + b"\xff"))
        assert client.close_frame()[0] == 1002


def test_a_client_still_writing_a_frame_too_large_reads_1009_not_a_reset(serve) -> None:
    """A frame of 4 MiB, over four times the limit: the bridge closes with 1009 while the
    client is still writing it. The bridge shuts its sending side and reads the rest
    (a lingering close), so the client finishes writing and then reads the close frame,
    instead of a reset that would show it code 1006."""
    server = serve("--max-message-bytes", "1024")
    client = RawWebSocket(server.port)
    size = 4 << 20
    # The whole frame is written before anything is read, as a simple client does.
    client.sock.sendall(bytes([0x81, 0x80 | 127]) + struct.pack(">Q", size) + os.urandom(4))
    chunk = b"x" * 65536
    for _ in range(size // len(chunk)):
        client.sock.sendall(chunk)  # a reset here (ConnectionResetError) fails the test
    codes = [struct.unpack(">H", payload[:2])[0] for opcode, payload in client.frames() if opcode == 0x8]
    assert codes == [1009]


def test_frames_written_with_the_upgrade_request_are_read(serve) -> None:
    """A client may write its first frames in one write with the upgrade request (RFC 6455
    does not make it wait for the 101). They reach the server with the request's head and
    were handed on as bytes where the request's parts were expected: that stopped the whole
    server (outside probe: one write, every session gone). Now they are read as frames."""
    server = serve()
    first = RawWebSocket.frame({"type": "create", "id": 1, "feature": "counter", "key": "c"})
    then = RawWebSocket.frame({"type": "send", "id": 2, "instance": "c", "input": "increase"})
    client = RawWebSocket(server.port, with_request=first + then)
    client.sock.sendall(RawWebSocket.frame(b"\x03\xe8", opcode=0x8))  # a close, 1000
    messages, close = client.messages_and_close()
    assert [m["type"] for m in messages if m["type"] != "state"] == ["welcome", "created", "ok"], messages
    assert messages[-1] == {"type": "ok", "re": 2, "version": 1}
    assert close is not None and close[0] == 1000
    with server.connect(session=messages[0]["session"]) as again:  # the server is up, the input applied once
        assert whole_state(again, "c")["state"]["value"] == 1


def test_an_unmasked_frame_fails_the_connection_and_nothing_from_it_on_is_applied(serve) -> None:
    """RFC 6455 5.1: a server fails the connection on a client's frame that is not masked
    (1002), and reads nothing more: not that frame, nor a masked one written with it or
    after it. What was applied before stays; the session outlives the connection.
    (Before, an unmasked frame was applied as if masked.)"""
    server = serve()
    unmasked = RawWebSocket.frame({"type": "send", "id": 8, "instance": "c", "input": "increase"}, masked=False)
    masked = RawWebSocket.frame({"type": "send", "id": 9, "instance": "c", "input": "increase"})
    with server.connect() as client:
        client.create("counter", key="c")
        assert client.call(type="send", instance="c", input="increase")[0]["version"] == 1
        client.ws.sock.sendall(unmasked + masked)
        assert client.close_frame() == (1002, "a client's frames must be masked (RFC 6455 5.1)")
        session = client.session
    with server.connect(session=session) as again:
        assert whole_state(again, "c")["state"]["value"] == 1
    # In one write with the upgrade request, before the 101: the 101, then the close.
    client = RawWebSocket(server.port, with_request=unmasked + masked)
    messages, close = client.messages_and_close()
    assert close == (1002, "a client's frames must be masked (RFC 6455 5.1)")
    assert [m for m in messages if m["type"] in ("ok", "error")] == []
    assert server.process.poll() is None


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


def test_behind_a_proxy_the_origin_comes_from_the_flags_or_a_trusted_proxy(serve) -> None:
    """--public-origin names the proxy's origin; X-Forwarded-Host and X-Forwarded-Proto
    name it too, but only from an address given with --trusted-proxy (docs/deploy.md)."""
    public = "https://app.example.com"
    forwarded = ["X-Forwarded-Host: proxy.example:8443", "X-Forwarded-Proto: https"]
    trusting = serve("--public-origin", public, "--trusted-proxy", "127.0.0.1")
    with trusting.connect(origin=public) as client:
        assert client.welcome["type"] == "welcome"
    accepted = websocket.create_connection(trusting.ws_url, origin="https://proxy.example:8443", header=forwarded, timeout=5)
    assert json.loads(accepted.recv())["type"] == "welcome"
    accepted.close()
    # The same headers from a peer that is not a trusted proxy say nothing.
    untrusting = serve("--public-origin", public)
    refused = websocket.create_connection(untrusting.ws_url, origin="https://proxy.example:8443", header=forwarded, timeout=5)
    assert close_frame(refused)[0] == 1008
    # Nor does a forwarded origin that is not the page's.
    other = websocket.create_connection(trusting.ws_url, origin="https://evil.example", header=forwarded, timeout=5)
    assert close_frame(other)[0] == 1008
    # A plain GET /ws is judged by the same rule: let in (so told to upgrade) or refused.
    for server, status in ((trusting, 426), (untrusting, 403)):
        headers = {"Origin": "https://proxy.example:8443", **dict(line.split(": ", 1) for line in forwarded)}
        with pytest.raises(urllib.error.HTTPError) as answered:
            urllib.request.urlopen(urllib.request.Request(server.url + "ws", headers=headers), timeout=5)
        assert answered.value.code == status
    # A trusted proxy names a new session (nginx: by the request id it routed it by); anyone else cannot.
    named = "ab" * 16
    for server, expected in ((trusting, True), (untrusting, False)):
        socket = websocket.create_connection(server.ws_url, header=[f"X-Fusion-New-Session: {named}"], timeout=5)
        assert (json.loads(socket.recv())["session"] == named) is expected
        socket.close()


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
    assert second.next("state", instance="c")["to"] == 1
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
    # Rejoin now and then (each try longer apart than the timeout, since a rejoin keeps
    # the session) until it has ended: a wait on the condition, not a guess at its time.
    deadline = time.monotonic() + 10
    while True:
        again = server.connect(session=client.session)
        again.close()
        if not again.welcome["resumed"]:
            break
        assert again.welcome["instances"] == [{"instance": "c", "feature": "counter"}]
        assert time.monotonic() < deadline, "the session outlived its 0.3 s timeout by 10 s"
        time.sleep(0.5)
    assert again.welcome["instances"] == [] and again.session != client.session


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
    # The change before the ok: the whole state or a patch, whichever costs less.
    change = before[0]
    pet = {"name": "Mochi", "species": "dog", "age": 3}
    if change["type"] == "state":
        assert change["state"]["pet"] == pet
    else:
        assert {"op": "replace", "path": "/pet", "value": pet} in change["patch"]
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


# ---------------------------------------------------------------------------------
# Every status and close code the protocol documents, each produced by a test that
# asserts it exactly: its body compares the status (or the close code) with `==`, read
# from its syntax tree (Tests/status_producers.py). The index below names the test for
# each; a row added to the document or a status to the bridge without a test (or a test
# for a row that is gone) fails test_every_documented_status_and_close_code_is_produced_by_a_test.

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "web-protocol.md"
BRIDGE_SOURCES = ROOT / "Sources" / "FusionWeb"

PRODUCED_BY = {
    "BRIDGE_MALFORMED_MESSAGE": "test_every_refusal_says_why_and_changes_nothing",
    "BRIDGE_UNKNOWN_INSTANCE": "test_every_refusal_says_why_and_changes_nothing",
    "BRIDGE_KEY_TAKEN": "test_every_refusal_says_why_and_changes_nothing",
    "BRIDGE_MESSAGE_TOO_LARGE": "test_binary_and_oversized_messages_are_dropped_with_an_error",
    "BRIDGE_RATE_LIMITED": "test_rate_limit_drops_with_an_error_and_recovers",
    "BRIDGE_INSTANCE_LIMIT": "test_instance_and_session_limits",
    "BRIDGE_UNSUPPORTED": "test_a_library_without_an_optional_function_is_unsupported_for_it",
    "BRIDGE_HOST_FAILURE": "test_a_manifest_the_host_cannot_read_is_a_host_failure",
    "BRIDGE_JOURNAL_FAILURE": "test_an_instance_whose_journal_cannot_be_made_is_refused",
    "BRIDGE_SHUTTING_DOWN": "test_a_connection_arriving_while_the_server_stops_is_told_so",
    "BRIDGE_SESSION_LIMIT": "test_instance_and_session_limits",
    "close 1000": "test_a_client_close_is_answered_with_1000",
    "close 1001": "test_sigterm_closes_every_socket_with_a_reason",
    "close 1008": "test_origin_is_checked",
    "close (none)": "test_a_connection_that_does_not_read_is_dropped_without_a_handshake",
    "close 1002": "test_frames_out_of_order_fail_the_connection_and_apply_nothing",
    "close 1007": "test_text_that_is_not_utf8_fails_the_connection_and_applies_nothing",
    "close 1009": "test_a_client_still_writing_a_frame_too_large_reads_1009_not_a_reset",
    "close 1013": "test_instance_and_session_limits",
    # Produced by a cluster (real PostgreSQL and nginx): tests of Tests/cluster, by file.
    "BRIDGE_POISON_INPUT": "Tests/cluster/test_poison.py::test_a_poison_input_kills_only_the_bridge_that_applied_it",
    "BRIDGE_SESSION_QUARANTINED":
        "Tests/cluster/test_poison_contained.py::test_a_session_whose_inputs_killed_two_bridges_is_quarantined",
    "close 1011": "Tests/cluster/test_liveness.py::test_postgres_stopped_closes_every_session_and_the_bridges_recover_by_themselves",
    "close 4000": "Tests/cluster/test_cluster.py::test_one_session_opened_on_two_bridges_at_once_has_one_live_copy",
    # Signed-in users (--auth jwt), and the session's place in the handshake: Tests/auth.
    "BRIDGE_UNAUTHENTICATED": "Tests/auth/test_tokens.py::test_a_bad_token_is_refused_before_anything_is_read",
    "BRIDGE_SESSION_IN_URL": "Tests/auth/test_sessions.py::test_a_session_in_the_url_is_refused_with_what_to_do_instead",
    "BRIDGE_USER_LIMIT": "Tests/auth/test_limits.py::test_sessions_per_user",
    "close 4001": "Tests/auth/test_tokens.py::test_a_token_that_expires_while_connected_closes_the_connection_and_cannot_rejoin",
}

# Statuses the bridge names in its code but never sends (BridgeError.swift says so for
# each): they close the socket with 4000 instead, which is documented and tested.
NEVER_SENT = ("BRIDGE_SESSION_MOVED", "BRIDGE_JOURNAL_UNCERTAIN")
# The close codes NIOWebSocket names, as the bridge's code uses them.
NAMED_CLOSE_CODES = {"normalClosure": 1000, "goingAway": 1001, "policyViolation": 1008, "messageTooLarge": 1009,
                     "unexpectedServerError": 1011}


def documented() -> list[str]:
    """The `BRIDGE_*` rows of the Errors table and the codes of the Closing table."""
    text = PROTOCOL.read_text()
    errors = text.split("## Errors", 1)[1].split("\n## ", 1)[0]
    closing = text.split("## Closing", 1)[1].split("\n## ", 1)[0]
    statuses = re.findall(r"^\| `(BRIDGE_[A-Z_]+)` \|", errors, re.M)
    codes = re.findall(r"^\| (\d{4}|\(none\)) \|", closing, re.M)
    return statuses + [f"close {code}" for code in codes]


def in_the_bridge() -> tuple[set[str], set[int]]:
    """The statuses the bridge's sources spell out, and the close codes they close with."""
    sources = "\n".join(path.read_text() for path in sorted(BRIDGE_SOURCES.glob("*.swift")))
    statuses = set(re.findall(r'"(BRIDGE_[A-Z_]+)"', sources))
    codes = {int(code) for code in re.findall(r"codeNumber: (\d{4})", sources)}
    codes |= {NAMED_CLOSE_CODES[name] for name in re.findall(r"close\(\.(\w+),", sources) if name in NAMED_CLOSE_CODES}
    return statuses, codes


def doc_comment_of(status: str) -> str:
    """The `///` comment above the declaration in BridgeError.swift that spells `status`."""
    lines = (BRIDGE_SOURCES / "BridgeError.swift").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if f'"{status}"' in line)
    while at > 0 and not lines[at - 1].strip().startswith("///"):
        at -= 1  # the declaration's first line, above the status's
    comment = []
    while at > 0 and lines[at - 1].strip().startswith("///"):
        at -= 1
        comment.insert(0, lines[at].strip().removeprefix("///"))
    return " ".join(comment)


def test_every_documented_status_and_close_code_is_produced_by_a_test() -> None:
    from status_producers import asserts_exactly, takes_fixture

    rows = documented()
    assert len(rows) == len(set(rows)) and len(rows) >= 15, rows
    assert set(rows) == set(PRODUCED_BY), set(rows) ^ set(PRODUCED_BY)
    # The document's list is the code's: every status the bridge can send, every close code it uses.
    statuses, codes = in_the_bridge()
    for status in NEVER_SENT:
        assert "never sent" in doc_comment_of(status).lower(), f"{status}: is it sent? then document it"
    assert statuses - set(NEVER_SENT) == {row for row in rows if row.startswith("BRIDGE_")}, statuses ^ set(rows)
    assert {f"close {code}" for code in codes} <= set(rows), codes
    for row, named in PRODUCED_BY.items():
        file, test = named.split("::") if "::" in named else ("Tests/web/test_protocol.py", named)
        path = ROOT / file
        # It talks to a real bridge (a server, a cluster's, a signed-in one).
        assert takes_fixture(path, test, "server", "serve", "make_cluster", "hs_server"), (row, named)
        # (none): the test asserts that no close frame came (`close is None`).
        wanted: str | int | None = row if not row.startswith("close") else None if row == "close (none)" else int(row[6:])
        assert asserts_exactly(path, test, wanted), f"{named} does not assert {row} exactly"


def test_a_library_without_an_optional_function_is_unsupported_for_it(serve, bare_library: Path) -> None:
    server = serve(str(bare_library))
    with server.connect() as client:
        assert client.welcome["library"] == {"name": "Bare", "version": "1.0.0", "abiVersion": 1}
        tally, first = client.create("tally")
        # Without fk_state_patch the bridge sends whole states.
        assert first["state"] == {"count": 0} and first["from"] is None
        reply, before = client.call(type="send", instance=tally, input="add")
        assert reply == {"type": "ok", "re": reply["re"], "version": 1}
        assert [(m["type"], m["to"], m["state"]) for m in before] == [("state", 1, {"count": 1})]
        reply, _ = client.call(type="advanceClock", instance=tally, seconds=1)
        assert reply["type"] == "error" and reply["status"] == "BRIDGE_UNSUPPORTED", reply
        assert "fk_advance_clock" in reply["message"]
        # The connection goes on.
        reply, _ = client.call(type="send", instance=tally, input="add")
        assert reply["version"] == 2


def test_a_manifest_the_host_cannot_read_is_a_host_failure(serve, bare_library: Path) -> None:
    server = serve(str(bare_library))
    with server.connect() as client:
        reply, _ = client.call(type="manifest")
        assert reply["type"] == "error" and reply["status"] == "BRIDGE_HOST_FAILURE", reply
        assert "not JSON" in reply["message"] and "libBare.so" in reply["message"]
        # Over HTTP as well: an error, never the library's text passed on as JSON.
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.url + "manifest.json")
        assert refused.value.code == 500


def test_an_instance_whose_journal_cannot_be_made_is_refused(serve, tmp_path: Path) -> None:
    journals = tmp_path / "journals"
    server = serve("--journal", str(journals))
    with server.connect() as client:
        # The session's journal folder is taken by a file: its journals cannot be made.
        (journals / client.session).write_text("in the way")
        reply, _ = client.call(type="create", feature="counter")
        assert reply["type"] == "error" and reply["status"] == "BRIDGE_JOURNAL_FAILURE", reply
        assert f"{client.session}/1.journal" in reply["message"]
        # Nothing was made: the session holds no instance.
        reply, _ = client.call(type="send", instance="#1", input="increase")
        assert reply["status"] == "BRIDGE_UNKNOWN_INSTANCE", reply
    with server.connect() as other:  # another session's journals are made as usual
        counter, _ = other.create("counter")
        reply, _ = other.call(type="send", instance=counter, input="increase")
        assert reply["type"] == "ok"
        assert (journals / other.session / "1.journal").is_file()


def test_a_connection_arriving_while_the_server_stops_is_told_so(serve) -> None:
    server = serve("--shutdown-grace", "3")
    first = server.connect()
    server.process.send_signal(signal.SIGTERM)
    # Once the first socket is closed the server is stopping; for the grace it still
    # answers, and tells whoever arrives.
    assert first.close_frame() == (1001, "server shutting down")
    late = websocket.create_connection(server.ws_url, timeout=5, suppress_origin=True)
    error = json.loads(late.recv())
    assert error == {"type": "error", "re": None, "status": "BRIDGE_SHUTTING_DOWN",
                     "message": "the server is shutting down; connect again in a moment"}
    assert close_frame(late) == (1001, "server shutting down")
    code, out, _ = server.stop()
    assert code == 0 and "every socket closed" in out


def test_a_client_close_is_answered_with_1000(server: Server) -> None:
    with server.connect() as client:
        client.create("counter")
        client.ws.send_close(1000, b"bye")
        assert client.close_frame() == (1000, "")


def test_a_connection_that_does_not_read_is_dropped_without_a_handshake(serve) -> None:
    """Over 8 MiB queued for a connection that reads nothing: the bridge drops it, with
    no close handshake (nothing more can be written to it) and never a crash."""
    server = serve("--max-messages-per-second", "1000000")
    # A small receive buffer: what the bridge writes piles up in its queue, not the kernel's.
    socket = websocket.create_connection(server.ws_url, timeout=10, suppress_origin=True,
                                         sockopt=((sys_socket.SOL_SOCKET, sys_socket.SO_RCVBUF, 4096),))
    assert json.loads(socket.recv())["type"] == "welcome"
    # Ask for the whole manifest (about 13 KB each time) without reading, until sending
    # fails: the event that the bridge dropped the connection.
    # A thousand requests at a time, as one write of ready-made (masked) frames.
    frames = websocket.ABNF.create_frame('{"type":"manifest"}', websocket.ABNF.OPCODE_TEXT).format() * 1000
    dropped_after = None
    for batch in range(1, 201):
        try:
            socket.sock.sendall(frames)
        except TimeoutError:
            raise AssertionError("the bridge stopped reading but kept the connection") from None
        except OSError:  # reset or broken pipe: the bridge closed it
            dropped_after = batch * 1000
            break
    assert dropped_after is not None, "200,000 unread replies and the connection still stands"
    manifests, close = 0, None
    while True:
        try:
            frame = socket.recv_frame()
        except websocket.WebSocketTimeoutException:
            raise AssertionError("the connection neither ended nor closed") from None
        except (websocket.WebSocketException, OSError):
            break  # it ended
        if frame.opcode == websocket.ABNF.OPCODE_CLOSE:
            close = frame.data
            break
        manifests += frame.opcode == websocket.ABNF.OPCODE_TEXT
    assert close is None, f"a close frame came: {close!r}"
    assert manifests < dropped_after, (manifests, dropped_after)
    # The bridge goes on serving others.
    with server.connect() as client:
        assert client.call(type="manifest")[0]["type"] == "manifest"
