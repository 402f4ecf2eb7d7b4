"""The times a token names (`exp`, `nbf`, `iat`) are checked as numbers before anything
computes with them: a correctly signed token whose `exp` was 1e20 used to get a welcome,
then trap the whole bridge in its expiry timer, dropping every other user. A time outside
1970 to the end of 9999 is refused with BRIDGE_UNAUTHENTICATED and close 4001
(docs/security.md, "Times in a token"); fractions of a second are times like any other."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from bridge import Client, Server
from conftest import Keys, auth_flags, claims, refusal

UNAUTHENTICATED = 4001
OUT_OF_RANGE = "is not a time the bridge accepts"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed(keys: Keys, **changes: Any) -> str:
    """A correctly signed HS256 token of Alice's claims with `changes`, its payload written
    as given (PyJWT checks some claims' types when it encodes)."""
    head = b64(b'{"alg":"HS256","typ":"JWT"}') + "." + b64(json.dumps(claims("mallory", **changes)).encode())
    return head + "." + b64(hmac.new(keys.secret, head.encode(), hashlib.sha256).digest())


@pytest.fixture
def hs_server(serve: Callable[..., Server], keys: Keys) -> Server:
    return serve(*auth_flags(keys))


def refused(server: Server, token: str) -> str:
    error, code, reason = refusal(server.ws_url, token=token)
    assert code == UNAUTHENTICATED and error is not None and error["status"] == "BRIDGE_UNAUTHENTICATED", (code, error)
    assert reason, reason
    return str(error["message"])


@pytest.mark.parametrize(("claim", "value"), [
    ("exp", 1e20), ("exp", 1e21), ("exp", 1e300), ("exp", 2**64 + 1), ("exp", 253402300800), ("exp", -1),
    ("exp", -1e300), ("exp", -0.5), ("exp", "tomorrow"), ("exp", True), ("exp", [1]),
    ("nbf", 1e20), ("nbf", 1e300), ("nbf", -1), ("nbf", -1e300), ("nbf", -0.5), ("nbf", "now"),
    ("iat", 1e20), ("iat", 1e300), ("iat", -1), ("iat", -1e300), ("iat", "yesterday"),
])
def test_an_absurd_time_is_refused_and_the_bridge_stays_up_for_everyone_else(
        hs_server: Server, keys: Keys, hs256: Callable[..., str], claim: str, value: Any) -> None:
    with Client(hs_server.ws_url, token=hs256("bob")) as bob:
        bob.create("counter")
        message = refused(hs_server, signed(keys, **{claim: value}))
        assert OUT_OF_RANGE in message and claim in message, message
        # Bob's socket is still open and still served.
        instance = bob.create("counter")[0]
        assert bob.call(type="send", instance=instance, input="increase")[0]["type"] == "ok"
    assert hs_server.process.poll() is None


def test_a_time_at_the_edges_of_the_range_is_a_time(hs_server: Server, keys: Keys) -> None:
    # The last second of 9999 is still a time: the token is served (and would close then).
    with Client(hs_server.ws_url, token=signed(keys, exp=253402300799, iat=0, nbf=0)) as client:
        assert client.create("profile")[1]["state"]["signedInAs"] == "Mallory Example"
    # 0 (1970) is a time too: an exp of 0 has long passed.
    assert "expired" in refused(hs_server, signed(keys, exp=0))


def test_fractional_times_are_times(hs_server: Server, keys: Keys) -> None:
    now = time.time()
    with Client(hs_server.ws_url, token=signed(keys, exp=now + 3600.25, nbf=now - 0.5, iat=now - 0.75)) as client:
        assert client.create("profile")[1]["state"]["signedInAs"] == "Mallory Example"
    assert "expired" in refused(hs_server, signed(keys, exp=now - 60.5, nbf=now - 3600.5))
    assert "not valid yet" in refused(hs_server, signed(keys, nbf=now + 3600.5))
    # A fractional exp a few seconds away closes the socket then, with 4001.
    expires = time.time() + 3.5
    client = Client(hs_server.ws_url, token=signed(keys, exp=expires))
    client.create("counter")
    code, reason = client.close_frame(timeout=10)
    assert code == UNAUTHENTICATED and "expired" in reason, (code, reason)
    assert expires - 0.5 <= time.time() <= expires + 2, time.time() - expires
