"""A session belongs to the user who made it: another user's token with its id gets a new
session of their own, exactly as for an id that never existed, and the owner's session
is untouched; ids never travel in URLs, so no log has one (docs/security.md)."""
from __future__ import annotations

import re
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from bridge import Client, Server
from conftest import Keys, auth_flags, refusal


def welcome_shape(client: Client) -> dict[str, object]:
    """The welcome without its id: what a client could learn from it."""
    return {k: v for k, v in client.welcome.items() if k != "session"}


def test_another_users_token_with_a_session_id_gets_a_session_of_its_own_and_learns_nothing(
        serve: Callable[..., Server], keys: Keys, hs256: Callable[..., str]) -> None:
    server = serve(*auth_flags(keys))
    alice = Client(server.ws_url, token=hs256("alice"))
    alice.create("counter", key="c")
    alice.call(type="send", instance="c", input="increase")
    # Bob with Alice's id, and Bob with an id nobody ever had: the same answer.
    stolen = Client(server.ws_url, token=hs256("bob"), session=alice.session)
    unknown = Client(server.ws_url, token=hs256("bob"), session="0123456789abcdef0123456789abcdef")
    assert stolen.session != alice.session and stolen.welcome["resumed"] is False
    assert welcome_shape(stolen) == welcome_shape(unknown)
    assert stolen.welcome["instances"] == []
    reply, _ = stolen.call(type="send", instance="c", input="increase")
    assert reply["status"] == "BRIDGE_UNKNOWN_INSTANCE"
    # Alice's socket stayed open and her counter is as she left it; she still rejoins.
    reply, _ = alice.call(type="send", instance="c", input="increase")
    assert reply["type"] == "ok"
    with Client(server.ws_url, token=hs256("alice"), session=alice.session) as again:
        assert again.welcome["resumed"] is True
        assert again.next("state", instance="c")["state"]["value"] == 2
    # Without a token, an id is worth nothing at all.
    error, code, _ = refusal(server.ws_url, session=alice.session)
    assert code == 4001 and error is not None and error["status"] == "BRIDGE_UNAUTHENTICATED"
    for client in (alice, stolen, unknown):
        client.close()


def test_a_foreign_page_is_refused_even_with_a_valid_cookie(serve: Callable[..., Server], keys: Keys,
                                                            hs256: Callable[..., str]) -> None:
    server = serve(*auth_flags(keys))
    alice = Client(server.ws_url, token=hs256("alice"))
    error, code, reason = refusal(server.ws_url, token=hs256("alice"), session=alice.session,
                                  origin="http://evil.example")
    assert code == 1008 and "evil.example" in reason, (code, reason)
    with Client(server.ws_url, token=hs256("alice"), session=alice.session) as again:
        assert again.welcome["resumed"] is True
    alice.close()


def test_a_session_in_the_url_is_refused_with_what_to_do_instead(serve: Callable[..., Server]) -> None:
    server = serve()
    first = Client(server.ws_url)
    error, code, _ = refusal(f"{server.ws_url}?session={first.session}")
    assert code == 1008
    assert error is not None and error["status"] == "BRIDGE_SESSION_IN_URL"
    assert "Sec-WebSocket-Protocol" in error["message"]
    first.close()


def test_the_unsafe_flag_still_takes_a_session_in_the_url(serve: Callable[..., Server]) -> None:
    server = serve("--allow-session-in-url")
    first = Client(server.ws_url)
    with Client(f"{server.ws_url}?session={first.session}", subprotocols=None) as again:
        assert again.session == first.session and again.welcome["resumed"] is True
    first.close()
    _, err = server.stop()[1:]
    assert "--allow-session-in-url" in err and "access logs" in err


def test_no_session_id_reaches_the_bridges_log(serve: Callable[..., Server], keys: Keys,
                                              hs256: Callable[..., str]) -> None:
    server = serve(*auth_flags(keys), "--verbose")
    seen: list[str] = []
    for user in ("alice", "bob"):
        client = Client(server.ws_url, token=hs256(user))
        client.create("counter", key="c")
        client.call(type="send", instance="c", input="increase")
        seen.append(client.session)
        client.close()
        with Client(server.ws_url, token=hs256(user), session=seen[-1]) as again:
            assert again.welcome["resumed"] is True
    _, out, err = server.stop()
    log = out + err
    assert "connection" in log  # --verbose wrote its lines
    for session in seen:
        assert session not in log
    # Nor any token.
    assert not re.search(r"eyJ[A-Za-z0-9_-]{10,}", log)


def test_a_resumed_session_keeps_its_owner(fusion: Path, keys: Keys, hs256: Callable[..., str],
                                          tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    flags = [*auth_flags(keys), "--journal", str(journal)]
    server = Server(fusion, *flags)
    alice = Client(server.ws_url, token=hs256("alice"))
    alice.create("counter", key="c")
    alice.call(type="send", instance="c", input="increase")
    alice.close()
    assert (journal / alice.session / "owner").read_text() == "alice"
    server.stop(signal.SIGKILL)
    again = Server(fusion, *flags, port=server.port)
    try:
        with Client(again.ws_url, token=hs256("bob"), session=alice.session) as bob:
            assert bob.welcome["resumed"] is False and bob.session != alice.session
        with Client(again.ws_url, token=hs256("alice"), session=alice.session) as back:
            assert back.welcome["resumed"] is True
            assert back.next("state", instance="c")["state"]["value"] == 1
    finally:
        again.stop()


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_a_bridge_other_machines_can_reach_needs_auth_or_no_auth(fusion: Path, host: str) -> None:
    refused = subprocess.run([str(fusion), "serve", "--port", "0", "--host", host],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0
    assert "--auth jwt" in refused.stderr and "--no-auth" in refused.stderr
    server = Server(fusion, "--host", host, "--no-auth")
    _, _, err = server.stop()
    assert "warning: --no-auth" in err
