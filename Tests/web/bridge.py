"""Helpers for testing `fusion serve` as browsers and programs use it: the server as a
real process, and a WebSocket client that speaks docs/web-protocol.md."""
from __future__ import annotations

import base64
import itertools
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import websocket  # websocket-client, installed with selenium by scripts/setup

ROOT = Path(__file__).resolve().parents[2]

sys.path.insert(0, str(ROOT / "bindings/python"))
# JSON Patch as the Python package applies it (its one implementation), for test_protocol.
from fusionkit.patch import apply_patch as apply_patch  # noqa: E402


class Server:
    """`fusion serve --port 0 …` running until stopped; `url` is the one it printed."""

    def __init__(self, fusion: Path, *flags: str, port: int = 0) -> None:
        self.fusion = fusion
        self.process = subprocess.Popen(
            [str(fusion), "serve", "--port", str(port), *flags],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if "Serving" not in line:
            self.process.kill()
            _, errors = self.process.communicate(timeout=10)
            raise AssertionError(f"fusion serve did not start: {line!r} {errors!r}")
        self.url = line.split(" at ")[1].split()[0]            # http://127.0.0.1:PORT/
        self.port = int(self.url.rsplit(":", 1)[1].strip("/"))
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"

    def connect(self, session: str | None = None, origin: str | None = None, token: str | None = None) -> Client:
        return Client(self.ws_url, origin, session=session, token=token)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> tuple[int, str, str]:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, out, err

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")


class StaticSite:
    """`python3 -m http.server` on examples/web, as docs/front-ends.md tells a team to serve
    the pages offline: static files and nothing else (no bridge, no WebSocket), so a page
    that works from it runs its feature in the page (?transport=wasm)."""

    def __init__(self, folder: Path = ROOT / "examples/web") -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=folder)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        if "port" not in line:
            self.process.kill()
            raise AssertionError(f"python3 -m http.server did not start: {line!r}")
        self.port = int(line.split(" port ")[1].split()[0])
        self.url = f"http://127.0.0.1:{self.port}/"

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> tuple[int, str, str]:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        self.process.wait(timeout=timeout)
        return self.process.returncode, "", ""


def serving(fusion: Path) -> Iterator[Callable[..., Server]]:
    """What the `serve` fixtures yield (Tests/web's and Tests/auth's): a starter of bridges,
    `start(*flags)`, each stopped once the test is done."""
    servers: list[Server] = []

    def start(*flags: str) -> Server:
        server = Server(fusion, *flags)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop(timeout=20)


def event_loop_threads(pid: int) -> int:
    """How many NIO event loops a `fusion serve` process runs: its threads named
    NIO-SGLTN-… in /proc (docs/web.md, "Threads")."""
    tasks = Path(f"/proc/{pid}/task")
    return sum(1 for task in tasks.iterdir() if (task / "comm").read_text().startswith("NIO-SGLTN"))


def protocols(session: str | None) -> list[str]:
    """The subprotocols a client offers: the protocol's name, and the session it rejoins."""
    return ["fusion", f"fusion.session.{session}"] if session else ["fusion"]


class Client:
    """One WebSocket: send messages, read them back in order, wait for replies."""

    def __init__(self, url: str, origin: str | None = None, timeout: float = 5, session: str | None = None,
                 token: str | None = None, handshake_timeout: float | None = None, **options: Any) -> None:
        """`session` is named as fusionkit.js names it, in Sec-WebSocket-Protocol; `token`
        goes in the cookie a team's login sets (`fusion_token`). `handshake_timeout`, when
        given, bounds the handshake and the welcome instead of `timeout`, which then bounds
        each read after them."""
        options["timeout"] = handshake_timeout if handshake_timeout is not None else timeout
        if origin is not None:
            options["origin"] = origin
        else:
            options["suppress_origin"] = True
        options.setdefault("subprotocols", protocols(session))
        if token is not None:
            options["cookie"] = f"fusion_token={token}"
        self.ws = websocket.create_connection(url, **options)
        self.ids = itertools.count(1)
        self.inbox: list[dict[str, Any]] = []
        self.welcome = self.next("welcome")
        self.session: str = self.welcome["session"]
        self.ws.settimeout(timeout)

    def close(self) -> None:
        self.ws.close()

    def drain(self, quiet: float) -> list[dict[str, Any]]:
        """Every message that arrives until none has for `quiet` seconds, or the
        connection is gone."""
        received = self.inbox
        self.inbox = []
        self.ws.settimeout(quiet)
        try:
            while True:
                received.append(json.loads(self.ws.recv()))
        except (websocket.WebSocketTimeoutException, websocket.WebSocketConnectionClosedException, OSError):
            return received
        finally:
            self.ws.settimeout(5)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def raw(self, text: str | bytes) -> None:
        if isinstance(text, bytes):
            self.ws.send_binary(text)
        else:
            self.ws.send(text)

    def send(self, message: dict[str, Any]) -> Any:
        """Sends a message with a fresh id; returns the id."""
        message = dict(message)
        message.setdefault("id", next(self.ids))
        self.ws.send(json.dumps(message))
        return message["id"]

    def receive(self) -> dict[str, Any]:
        if self.inbox:
            return self.inbox.pop(0)
        return json.loads(self.ws.recv())

    def next(self, type_: str, **match: Any) -> dict[str, Any]:
        """The next message of a type (and fields), keeping the others for later."""
        skipped: list[dict[str, Any]] = []
        while True:
            message = self.inbox.pop(0) if self.inbox else json.loads(self.ws.recv())
            if message.get("type") == type_ and all(message.get(k) == v for k, v in match.items()):
                self.inbox = skipped + self.inbox
                return message
            skipped.append(message)

    def request(self, message: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Sends a message and reads up to its reply: (reply, the messages before it)."""
        id_ = self.send(message)
        before: list[dict[str, Any]] = []
        while True:
            item = self.receive()
            if item.get("re") == id_ and item.get("type") in ("ok", "created", "manifest", "applied", "error"):
                return item, before
            before.append(item)

    def create(self, feature: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        """Creates an instance; returns its id and its first state message."""
        reply, before = self.request({"type": "create", "feature": feature, **fields})
        assert reply["type"] == "created", reply
        states = [m for m in before if m["type"] == "state" and m["instance"] == reply["instance"]]
        assert states, before
        return reply["instance"], states[-1]

    def call(self, **message: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        return self.request(message)

    def close_frame(self, timeout: float = 5) -> tuple[int, str]:
        """Reads until the server closes; returns its close code and reason."""
        return close_frame(self.ws, timeout)


class RawWebSocket:
    """A WebSocket client written out by hand, for what websocket-client does not do: write
    frames in one write with the upgrade request, leave a frame unmasked, keep writing
    without reading. Frames go out with `sock.sendall(frame(...))`; `frames()` reads the
    server's until it closes the socket."""

    def __init__(self, port: int, with_request: bytes = b"", session: str | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                           f"Sec-WebSocket-Protocol: {', '.join(protocols(session))}\r\n\r\n").encode() + with_request)
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = self.sock.recv(4096)
            assert chunk, f"closed during the handshake: {received!r}"
            received += chunk
        head, self.received = received.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101"), head

    @staticmethod
    def frame(data: bytes | str | dict[str, Any], masked: bool = True, opcode: int = 0x1, fin: bool = True) -> bytes:
        """A client's frame (a dict is sent as its JSON)."""
        payload = json.dumps(data).encode() if isinstance(data, dict) else data.encode() if isinstance(data, str) else data
        size = len(payload)
        length = bytes([size]) if size < 126 else bytes([126]) + struct.pack(">H", size) if size < 65536 \
            else bytes([127]) + struct.pack(">Q", size)
        head = bytes([(0x80 if fin else 0) | opcode, (0x80 if masked else 0) | length[0]]) + length[1:]
        if not masked:
            return head + payload
        mask = os.urandom(4)
        return head + mask + bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))

    def frames(self) -> list[tuple[int, bytes]]:
        """The server's frames, (opcode, payload), read until it closes the socket."""
        while chunk := self.sock.recv(65536):
            self.received += chunk
        self.sock.close()
        frames, data, at = [], self.received, 0
        while at + 2 <= len(data):
            opcode, length, at = data[at] & 0x0F, data[at + 1] & 0x7F, at + 2
            if length == 126:
                length, at = struct.unpack(">H", data[at:at + 2])[0], at + 2
            elif length == 127:
                length, at = struct.unpack(">Q", data[at:at + 8])[0], at + 8
            frames.append((opcode, data[at:at + length]))
            at += length
        return frames

    def messages_and_close(self) -> tuple[list[dict[str, Any]], tuple[int, str] | None]:
        """The server's messages (its text frames' JSON) and its close (code, reason), if
        it sent one, read until it closes the socket."""
        messages, close = [], None
        for opcode, payload in self.frames():
            if opcode == 0x1:
                messages.append(json.loads(payload))
            elif opcode == 0x8:
                close = (struct.unpack(">H", payload[:2])[0], payload[2:].decode())
        return messages, close


def close_frame(ws: websocket.WebSocket, timeout: float = 5) -> tuple[int, str]:
    """Reads frames until a close frame; returns its code and reason (without answering
    it, since the server may already have dropped the connection)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        frame = ws.recv_frame()
        if frame.opcode == websocket.ABNF.OPCODE_CLOSE:
            data = frame.data
            code = int.from_bytes(data[:2], "big") if len(data) >= 2 else 1005
            return code, data[2:].decode()
    raise AssertionError("no close frame")
