"""The bridge's heartbeat (docs/deploy.md, "Liveness and fencing"): a WebSocket that has
carried nothing for `--heartbeat` seconds carries an unsolicited pong, so that a proxy in
front tells a frozen bridge from an idle page; a page need not answer it. A busy socket
carries none, and idle sockets get theirs at different moments, not all at once."""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable

import websocket
from bridge import Client, Server


def frames_within(client: Client, seconds: float) -> list[tuple[int, float]]:
    """(opcode, when it arrived) of every frame `client` reads in `seconds`, control frames
    included."""
    frames = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        client.ws.settimeout(left)
        try:
            opcode, _ = client.ws.recv_data(control_frame=True)
        except websocket.WebSocketTimeoutException:
            break
        frames.append((opcode, time.monotonic()))
    return frames


def pongs_within(server: Server, seconds: float) -> tuple[int, int]:
    """(unsolicited pongs, text messages) a connection that sends nothing reads in `seconds`."""
    client = server.connect()
    try:
        opcodes = [opcode for opcode, _ in frames_within(client, seconds)]
    finally:
        client.close()
    return opcodes.count(websocket.ABNF.OPCODE_PONG), opcodes.count(websocket.ABNF.OPCODE_TEXT)


def test_an_idle_connection_gets_a_heartbeat_and_is_asked_nothing(serve: Callable[..., Server]) -> None:
    pongs, texts = pongs_within(serve("--heartbeat", "0.2"), 1.5)
    assert 4 <= pongs <= 9, pongs
    assert texts == 0


def test_a_busy_connection_carries_no_heartbeat(serve: Callable[..., Server]) -> None:
    # Checked every 0.2 s: an input answered every ~30 ms leaves no check quiet.
    client = serve("--heartbeat", "0.4").connect()
    pongs = answered = 0
    try:
        instance, _ = client.create("counter")
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            client.send({"type": "send", "instance": instance, "input": "increase"})
            while True:
                opcode, data = client.ws.recv_data(control_frame=True)
                pongs += opcode == websocket.ABNF.OPCODE_PONG
                if opcode == websocket.ABNF.OPCODE_TEXT and json.loads(data)["type"] == "ok":
                    answered += 1
                    break
            time.sleep(0.03)
    finally:
        client.close()
    assert answered >= 20, answered
    assert pongs == 0, pongs


def test_idle_connections_get_their_heartbeats_at_different_moments(serve: Callable[..., Server]) -> None:
    # A bridge that sent every socket its pong at the same moment held up the inputs that
    # arrived meanwhile (docs/performance.md, "The web bridge's tail").
    server = serve("--heartbeat", "0.8")
    clients = [server.connect() for _ in range(16)]
    arrivals: list[float] = []
    lock = threading.Lock()

    def listen(client: Client) -> None:
        pongs = [at for opcode, at in frames_within(client, 2.0) if opcode == websocket.ABNF.OPCODE_PONG]
        with lock:
            arrivals.extend(pongs)

    listeners = [threading.Thread(target=listen, args=(client,)) for client in clients]
    try:
        for listener in listeners:
            listener.start()
        for listener in listeners:
            listener.join()
    finally:
        for client in clients:
            client.close()
    # Every socket is heard from at least every period...
    assert len(arrivals) >= 16, len(arrivals)
    # ...in eight groups a sixteenth of a period apart: all at once, 2 s hold at most three
    # bursts, six 40 ms bins even when each straddles two.
    bins = {int(moment / 0.04) for moment in arrivals}
    assert len(bins) >= 10, sorted(bins)


def test_no_heartbeat_when_turned_off(serve: Callable[..., Server]) -> None:
    assert pongs_within(serve("--heartbeat", "0"), 1.0) == (0, 0)


def test_a_heartbeat_out_of_range_is_refused(serve: Callable[..., Server]) -> None:
    try:
        serve("--heartbeat=-1")
    except AssertionError as error:
        assert "--heartbeat is 0 to 3600 seconds" in str(error)
    else:
        raise AssertionError("--heartbeat=-1 was accepted")
