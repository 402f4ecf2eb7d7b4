"""The bridge's heartbeat (docs/deploy.md, "Liveness and fencing"): every WebSocket carries
an unsolicited pong every `--heartbeat` seconds, so that a proxy in front tells a frozen
bridge from an idle page; a page need not answer it."""
from __future__ import annotations

import time
from collections.abc import Callable

import websocket
from bridge import Server


def pongs_within(server: Server, seconds: float) -> tuple[int, int]:
    """(unsolicited pongs, text messages) a connection that sends nothing reads in `seconds`."""
    client = server.connect()
    pongs = texts = 0
    deadline = time.monotonic() + seconds
    try:
        while (left := deadline - time.monotonic()) > 0:
            client.ws.settimeout(left)
            try:
                opcode, _ = client.ws.recv_data(control_frame=True)
            except websocket.WebSocketTimeoutException:
                break
            pongs += opcode == websocket.ABNF.OPCODE_PONG
            texts += opcode == websocket.ABNF.OPCODE_TEXT
    finally:
        client.close()
    return pongs, texts


def test_an_idle_connection_gets_a_heartbeat_and_is_asked_nothing(serve: Callable[..., Server]) -> None:
    pongs, texts = pongs_within(serve("--heartbeat", "0.2"), 1.5)
    assert 4 <= pongs <= 9, pongs
    assert texts == 0


def test_no_heartbeat_when_turned_off(serve: Callable[..., Server]) -> None:
    assert pongs_within(serve("--heartbeat", "0"), 1.0) == (0, 0)


def test_a_heartbeat_out_of_range_is_refused(serve: Callable[..., Server]) -> None:
    try:
        serve("--heartbeat=-1")
    except AssertionError as error:
        assert "--heartbeat is 0 to 3600 seconds" in str(error)
    else:
        raise AssertionError("--heartbeat=-1 was accepted")
