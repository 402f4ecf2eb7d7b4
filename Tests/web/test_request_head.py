"""The bridge's HTTP side at its edge, over raw sockets (docs/security.md, "Requests at the
edge"): a request head past 80 KiB is answered 431 and closed, one that is not HTTP 400
and closed, and a connection that has not sent a whole request head within 10 s is
closed (slowloris). Before, all three stayed open and unanswered for as long as the peer
liked. A request asking to upgrade to another protocol is served as if it had not asked,
and a broken WebSocket handshake is refused with a status saying why (before, both were
closed unanswered). Ordinary requests, kept-alive ones and WebSockets are served as
before."""
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

from bridge import Client, Server

LIMIT = 80 * 1024
TIMEOUT = 10.0


def connect(server: Server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def read_until_closed(connection: socket.socket, within: float) -> tuple[bytes, float | None]:
    """Everything the server sends, and the seconds after which it closed (None: it had
    not within `within`)."""
    received = b""
    started = time.monotonic()
    connection.settimeout(0.25)
    while time.monotonic() - started < within:
        try:
            chunk = connection.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return received, time.monotonic() - started
        if not chunk:
            return received, time.monotonic() - started
        received += chunk
    return received, None


def request_with_headers(server: Server, size: int, path: str = "/", extra: str = "") -> bytes:
    filler = "".join(f"X-Filler-{i}: {'v' * 1000}\r\n" for i in range(size // 1000 + 1))
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n{extra}{filler}\r\n").encode()


def test_headers_past_the_limit_get_431_and_a_close(server: Server) -> None:
    for path, extra in [("/", ""), ("/ws", "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                                           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n")]:
        with connect(server) as connection:
            connection.sendall(request_with_headers(server, 100 * 1024, path, extra))
            received, closed_after = read_until_closed(connection, within=5)
        assert received.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"), (path, received[:300])
        assert b"connection: close" in received.lower() and b"over 80 KiB" in received, received
        assert closed_after is not None, f"{path}: the connection stayed open"
    # A cookie alone past the limit (a single field) is the same.
    with connect(server) as connection:
        connection.sendall(f"GET / HTTP/1.1\r\nHost: x\r\nCookie: a={'b' * (LIMIT + 10)}\r\n\r\n".encode())
        received, closed_after = read_until_closed(connection, within=5)
    assert received.startswith(b"HTTP/1.1 431 "), received[:300]
    assert closed_after is not None
    assert server.process.poll() is None


def test_headers_within_the_limit_are_served(server: Server) -> None:
    with connect(server) as connection:
        connection.sendall(request_with_headers(server, 70 * 1024, "/healthz"))
        received, _ = read_until_closed(connection, within=1)
    assert received.startswith(b"HTTP/1.1 200 OK\r\n"), received[:300]


def test_a_request_that_is_not_http_gets_400_and_a_close(server: Server) -> None:
    with connect(server) as connection:
        connection.sendall(b"HELLO THERE\r\n\r\n")
        received, closed_after = read_until_closed(connection, within=5)
    assert received.startswith(b"HTTP/1.1 400 Bad Request\r\n"), received[:300]
    assert closed_after is not None


def test_connections_without_a_head_due_are_closed_at_the_deadline_and_everyone_else_is_served(
        serve: Callable[..., Server]) -> None:
    # Four ways to hold a connection without a request head due, side by side (each waits
    # out the deadline): a head dribbled, nothing sent, a kept-alive connection gone idle,
    # and a body announced and never sent.
    server = serve()
    results: dict[str, tuple[bytes, float | None]] = {}

    def dribble() -> None:
        # A request head a few bytes every half second: it would take minutes to finish.
        with connect(server) as connection:
            started = time.monotonic()
            connection.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            connection.settimeout(0.5)
            received, closed_after = b"", None
            while closed_after is None and time.monotonic() - started < TIMEOUT * 3:
                try:
                    connection.sendall(b"X-a: b\r\n")
                    chunk = connection.recv(65536)
                except TimeoutError:
                    continue
                except (BrokenPipeError, ConnectionResetError):
                    chunk = b""
                received += chunk
                if not chunk:
                    closed_after = time.monotonic() - started
            results["dribble"] = (received, closed_after)

    def silent() -> None:
        # Connects and sends nothing at all.
        with connect(server) as connection:
            results["silent"] = read_until_closed(connection, within=TIMEOUT + 5)

    def kept_alive() -> None:
        # Served twice, then idle: the deadline runs from the last response.
        with connect(server) as connection:
            for _ in range(2):
                connection.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
                connection.settimeout(5)
                answer = connection.recv(65536)
                assert answer.startswith(b"HTTP/1.1 200 OK\r\n"), answer[:200]
            results["kept alive"] = read_until_closed(connection, within=TIMEOUT + 5)

    def body_never_comes() -> None:
        # The bridge answers a POST at once (405) and reads no body: one announced and never
        # sent would hold the connection as an unfinished head would.
        with connect(server) as connection:
            connection.sendall(f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Length: 100000\r\n\r\nab".encode())
            results["body"] = read_until_closed(connection, within=TIMEOUT + 5)

    threads = [threading.Thread(target=target) for target in (dribble, silent, kept_alive, body_never_comes)]
    for thread in threads:
        thread.start()
    # Meanwhile a WebSocket opened at once is served past the head's deadline, and so is
    # an ordinary request.
    with Client(server.ws_url) as client:
        client.create("counter")
        time.sleep(TIMEOUT + 2)
        instance = client.create("counter")[0]
        assert client.call(type="send", instance=instance, input="increase")[0]["type"] == "ok"
    for thread in threads:
        thread.join(timeout=30)
    with connect(server) as connection:
        connection.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        received, _ = read_until_closed(connection, within=1)
    assert received.startswith(b"HTTP/1.1 200 OK\r\n"), received[:300]

    assert set(results) == {"dribble", "silent", "kept alive", "body"}, f"a client failed: only {set(results)} finished"
    for name in ("dribble", "silent", "kept alive", "body"):
        received, closed_after = results[name]
        assert closed_after is not None, f"{name}: still open after {TIMEOUT * 3} s"
        assert TIMEOUT - 0.5 <= closed_after <= TIMEOUT + 3, (name, closed_after)
        assert not received.startswith(b"HTTP/1.1 200"), (name, received[:200])
    assert results["kept alive"][0] == b"", results["kept alive"]
    assert results["body"][0].startswith(b"HTTP/1.1 405 "), results["body"][0][:200]
    assert server.process.poll() is None

KEY = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"


def exchange(server: Server, head: str) -> tuple[bytes, float | None]:
    with connect(server) as connection:
        connection.sendall(f"{head}Host: 127.0.0.1:{server.port}\r\n\r\n".encode())
        return read_until_closed(connection, within=5)


def test_an_upgrade_to_another_protocol_is_ignored_and_the_request_served(server: Server) -> None:
    # RFC 9110 7.8: a server may ignore Upgrade. The connection closes after the answer
    # (after a request that asked to upgrade, the parser reads no other), and the answer
    # says so (RFC 9112 9.6).
    for asked in ["Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n",
                  "Upgrade: foo\r\n", "Connection: Upgrade\r\nUpgrade: websocket/13\r\n", "Connection: Upgrade\r\nUpgrade: \r\n"]:
        received, closed_after = exchange(server, f"GET /healthz HTTP/1.1\r\n{asked}")
        assert received.startswith(b"HTTP/1.1 200 OK\r\n"), (asked, received[:300])
        head = received.split(b"\r\n\r\n")[0].lower()
        assert b"\r\nconnection: close" in head and b"upgrade" not in head, (asked, head)
        assert closed_after is not None, f"{asked!r}: the connection stayed open"
    received, _ = exchange(server, "GET /fusionkit.js HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n")
    assert received.startswith(b"HTTP/1.1 200 OK\r\n") and b"WebSocket" in received, received[:300]
    assert server.process.poll() is None


def test_a_broken_websocket_handshake_is_refused_with_why(server: Server) -> None:
    upgrade = "GET /ws HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
    received, closed_after = exchange(server, upgrade + "Sec-WebSocket-Version: 13\r\n")
    assert received.startswith(b"HTTP/1.1 400 Bad Request\r\n"), received[:300]
    assert b"exactly one Sec-WebSocket-Key" in received and b"it had 0" in received, received
    assert closed_after is not None
    received, _ = exchange(server, upgrade + KEY + KEY + "Sec-WebSocket-Version: 13\r\n")
    assert received.startswith(b"HTTP/1.1 400 ") and b"it had 2" in received, received[:300]
    # RFC 6455 4.4: another version is answered 426 with the version the server speaks.
    for version in ["Sec-WebSocket-Version: 8\r\n", ""]:
        received, closed_after = exchange(server, upgrade + KEY + version)
        assert received.startswith(b"HTTP/1.1 426 Upgrade Required\r\n"), (version, received[:300])
        assert b"\r\nsec-websocket-version: 13\r\n" in received.lower(), received
        assert closed_after is not None
    # The same handshake with version 13 is answered 101, as always.
    with connect(server) as connection:
        connection.sendall(f"{upgrade}{KEY}Sec-WebSocket-Version: 13\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        connection.settimeout(5)
        assert connection.recv(65536).startswith(b"HTTP/1.1 101 "), "no 101"
    assert server.process.poll() is None
