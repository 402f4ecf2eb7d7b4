"""A page's session as the cluster tests drive it: one WebSocket through nginx that,
like fusionkit.js, reconnects with its session id after a drop, asks which of its
unanswered sends were applied (`applied`), and sends only the others again."""
from __future__ import annotations

import json
import secrets
import time
from typing import Any

import websocket
from bridge import Client

#: How long a page waits for its handshake and welcome through nginx: as long as a browser
#: does (fusionkit.js sets no limit of its own), past nginx's 5 s `proxy_read_timeout`,
#: after which nginx itself moves a handshake on from a bridge that does not answer. A page
#: that gave up at the same 5 s would race nginx and try again, perhaps on the same bridge.
HANDSHAKE_TIMEOUT = 15.0


class Page:
    """A Counter in a session of the cluster at `url` (nginx), sent inputs one at a time."""

    def __init__(self, url: str, origin: str, session: str | None = None, feature: str = "counter") -> None:
        self.url = url
        self.origin = origin
        self.token = secrets.token_hex(4)  # message ids unique in the session, as fusionkit.js makes them
        self.sent = 0
        self.acknowledged: set[str] = set()
        self.errors: list[dict[str, Any]] = []  # error replies and refusals with re: null
        self.close_codes: list[int] = []
        self.reconnects = 0
        self.client = self._connect(session)
        self.session = self.client.session
        if session is None:
            self.client.create(feature, key="c")

    def _connect(self, session: str | None, timeout: float = 30.0) -> Client:
        deadline = time.monotonic() + timeout
        while True:
            try:
                client = Client(self.url, self.origin, session=session, handshake_timeout=HANDSHAKE_TIMEOUT)
                if session is None or client.session == session:
                    return client
                client.close()
                raise AssertionError(f"rejoined session {session} but got a new one, {client.session}: the session was lost")
            except (OSError, websocket.WebSocketException, json.JSONDecodeError, KeyError) as error:
                if time.monotonic() > deadline:
                    raise AssertionError(f"could not rejoin {session} within {timeout} s: {error!r}") from error
                time.sleep(0.1)

    def rejoin(self) -> None:
        try:
            self.client.close()
        except Exception:  # noqa: BLE001 - the socket is gone already
            pass
        self.reconnects += 1
        self.client = self._connect(self.session)

    def increase(self) -> None:
        """Sends one `increase` and returns once it is acknowledged, rejoining as often as
        it takes; an input the bridge applied before the drop is never sent again."""
        self.sent += 1
        id_ = f"{self.token}.{self.sent}"
        message = {"type": "send", "id": id_, "instance": "c", "input": "increase"}
        send = True
        while True:
            try:
                if send:
                    self.client.send(message)
                while True:
                    reply = self.client.receive()
                    if reply.get("type") == "error" and reply.get("re") is None:
                        self.errors.append(reply)
                    if reply.get("re") == id_:
                        if reply["type"] == "ok":
                            self.acknowledged.add(id_)
                        else:
                            self.errors.append(reply)
                        return
            except (OSError, websocket.WebSocketException, json.JSONDecodeError):
                self._note_close()
                self.rejoin()
                applied, _ = self.client.request({"type": "applied", "ids": [id_]})
                if id_ in applied.get("ids", []):
                    self.acknowledged.add(id_)
                    return
                send = True

    def _note_close(self) -> None:
        frame = getattr(self.client.ws, "close_status", None)
        if isinstance(frame, int):
            self.close_codes.append(frame)

    def count(self) -> int:
        """The Counter's value, read through a fresh rejoin."""
        reader = self._connect(self.session)
        try:
            states = [m for m in reader.drain(0.3) if m.get("type") == "state" and m.get("instance") == "c"]
            assert states, f"no state for session {self.session}"
            return int(states[-1]["state"]["value"])
        finally:
            reader.close()

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:  # noqa: BLE001
            pass
