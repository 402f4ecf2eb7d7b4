"""Limits per signed-in user (--max-sessions-per-user, --max-instances-per-user,
--max-messages-per-user): past each, BRIDGE_USER_LIMIT, and other users go on as before."""
from __future__ import annotations

from collections.abc import Callable

from bridge import Client, Server
from conftest import Keys, auth_flags, refusal


def test_sessions_per_user(serve: Callable[..., Server], keys: Keys, hs256: Callable[..., str]) -> None:
    server = serve(*auth_flags(keys), "--max-sessions-per-user", "2")
    first, second = Client(server.ws_url, token=hs256("alice")), Client(server.ws_url, token=hs256("alice"))
    error, code, _ = refusal(server.ws_url, token=hs256("alice"))
    assert code == 1008 and error is not None and error["status"] == "BRIDGE_USER_LIMIT", (code, error)
    assert "--max-sessions-per-user" in error["message"]
    # Her own sessions still rejoin, and Bob is not held back by Alice.
    with Client(server.ws_url, token=hs256("alice"), session=first.session) as again:
        assert again.welcome["resumed"] is True
    with Client(server.ws_url, token=hs256("bob")) as bob:
        assert bob.welcome["resumed"] is False
    first.close()
    second.close()


def test_instances_per_user_count_every_session(serve: Callable[..., Server], keys: Keys,
                                                hs256: Callable[..., str]) -> None:
    server = serve(*auth_flags(keys), "--max-instances-per-user", "3")
    one, two = Client(server.ws_url, token=hs256("alice")), Client(server.ws_url, token=hs256("alice"))
    one.create("counter", key="a")
    one.create("counter")
    two.create("counter")
    reply, _ = two.call(type="create", feature="counter")
    assert reply["type"] == "error" and reply["status"] == "BRIDGE_USER_LIMIT", reply
    assert "--max-instances-per-user" in reply["message"]
    # A reuse of an instance she has is not a new one.
    assert one.call(type="create", feature="counter", key="a", reuse=True)[0]["type"] == "created"
    with Client(server.ws_url, token=hs256("bob")) as bob:
        bob.create("counter")
    # Destroying one makes room again.
    assert one.call(type="destroy", instance="a")[0]["type"] == "ok"
    assert two.call(type="create", feature="counter")[0]["type"] == "created"
    one.close()
    two.close()


def test_messages_per_user_count_every_connection(serve: Callable[..., Server], keys: Keys,
                                                  hs256: Callable[..., str]) -> None:
    server = serve(*auth_flags(keys), "--max-messages-per-user", "10")
    one, two = Client(server.ws_url, token=hs256("alice")), Client(server.ws_url, token=hs256("alice"))
    bob = Client(server.ws_url, token=hs256("bob"))
    for client in (one, two):
        for _ in range(8):  # 16 in all, within the 100 a connection may send on its own
            client.send({"type": "manifest"})
    replies = one.drain(0.5) + two.drain(0.5)
    limited = [m for m in replies if m.get("status") == "BRIDGE_USER_LIMIT"]
    assert limited and all("--max-messages-per-user" in m["message"] for m in limited), replies
    assert len([m for m in replies if m["type"] == "manifest"]) <= 10 + 2  # the bucket, and what refilled meanwhile
    # Bob's bucket is his own.
    assert bob.call(type="manifest")[0]["type"] == "manifest"
    for client in (one, two, bob):
        client.close()
