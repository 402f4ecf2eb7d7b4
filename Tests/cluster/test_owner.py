"""Signed-in users across bridges (docs/security.md): a session belongs to its user in
PostgreSQL too, so another user's token with its id, on any bridge, gets a session of
its own, and the bridge holding the session is not even asked to hand it over."""
from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from pathlib import Path

import jwt
import websocket
from bridge import Client
from cluster import Cluster


def test_another_user_cannot_take_a_session_over_from_its_bridge(make_cluster: Callable[..., Cluster],
                                                                 tmp_path: Path) -> None:
    secret = secrets.token_hex(32).encode()
    (tmp_path / "secret.key").write_bytes(secret)
    cluster = make_cluster(2, ["--session-timeout", "5", "--auth", "jwt", "--jwt-key", str(tmp_path / "secret.key"),
                               "--jwt-audience", "fusion"])

    def token(user: str) -> str:
        return jwt.encode({"sub": user, "aud": "fusion", "exp": int(time.time()) + 600}, secret, algorithm="HS256")

    first, second = cluster.bridges
    alice = Client(f"ws://127.0.0.1:{first.port}/ws", first.url, token=token("alice"))
    alice.create("counter", key="c")
    alice.call(type="send", instance="c", input="increase")
    owner = cluster.postgres.psql(f"SELECT owner FROM fusion_sessions WHERE id = '{alice.session}'")
    assert owner == "alice"
    # Bob, past nginx, on the other bridge: a new session; Alice's bridge keeps hers.
    bob = Client(f"ws://127.0.0.1:{second.port}/ws", second.url, token=token("bob"), session=alice.session)
    assert bob.session != alice.session and bob.welcome["resumed"] is False
    alice.ws.settimeout(1.0)
    try:
        alice.ws.recv_frame()
        raise AssertionError("Alice's socket heard something: her session was disturbed")
    except websocket.WebSocketTimeoutException:
        pass
    alice.ws.settimeout(5)
    epoch, holder = cluster.postgres.psql(
        f"SELECT epoch, holder FROM fusion_sessions WHERE id = '{alice.session}'").split("|")
    assert int(epoch) == 1 and holder.endswith(f"port {first.port}")
    assert alice.call(type="send", instance="c", input="increase")[0]["type"] == "ok"
    # Alice herself, on the other bridge, takes it over as before.
    again = Client(f"ws://127.0.0.1:{second.port}/ws", second.url, token=token("alice"), session=alice.session)
    assert again.welcome["resumed"] is True
    assert again.next("state", instance="c")["state"]["value"] == 2
    for client in (alice, bob, again):
        client.close()
