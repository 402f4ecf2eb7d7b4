"""Helpers for testing `fusion serve` as browsers and programs use it: the server as a
real process, and a WebSocket client that speaks docs/web-protocol.md."""
from __future__ import annotations

import itertools
import json
import signal
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
