"""`fusion serve --auth jwt`: only a token the team's login signed, for this bridge, still
valid, opens a session; every other one is refused with BRIDGE_UNAUTHENTICATED and close
4001 before anything is read, and nothing changes on the bridge (docs/security.md)."""
from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from typing import Any

import jwt
import pytest
from bridge import Client, Server
from conftest import AUDIENCE, Keys, auth_flags, claims, refusal

UNAUTHENTICATED = 4001


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def assert_refused(server: Server, token: str | None, words: str, **options: Any) -> None:
    error, code, reason = refusal(server.ws_url, token=token, **options)
    assert code == UNAUTHENTICATED, (code, reason)
    assert error is not None and error["status"] == "BRIDGE_UNAUTHENTICATED", error
    assert words in error["message"], error["message"]
    assert reason, reason


def sessions_of(server: Server) -> int:
    """The bridge's own count of sessions, from /metrics."""
    import urllib.request
    text = urllib.request.urlopen(server.url + "metrics", timeout=5).read().decode()
    for line in text.splitlines():
        if line.startswith("fusion_sessions") and not line.startswith("fusion_sessions_"):
            return int(float(line.split()[-1]))
    raise AssertionError("no fusion_sessions gauge in /metrics")


@pytest.fixture
def hs_server(serve: Callable[..., Server], keys: Keys) -> Server:
    return serve(*auth_flags(keys))


def test_a_valid_token_opens_a_session_and_the_feature_learns_who_signed_in(hs_server: Server,
                                                                            hs256: Callable[..., str]) -> None:
    with Client(hs_server.ws_url, token=hs256("alice")) as client:
        _, state = client.create("profile")
        assert state["state"]["signedInAs"] == "Alice Example"


@pytest.mark.parametrize(("case", "words"), [
    ("none", "sign in first"),
    ("forged", "signature does not verify"),
    ("alg-none", "algorithm \"none\""),
    ("wrong-key", "signature does not verify"),
    ("expired", "expired"),
    ("no-exp", "expired"),
    ("not-yet-valid", "not valid yet"),
    ("wrong-audience", "audience"),
    ("no-audience", "audience"),
    ("wrong-issuer", "issuer"),
    ("no-subject", "names no user"),
    ("garbage", "not a JSON Web Token"),
    ("hs512", "algorithm \"HS512\""),
])
def test_a_bad_token_is_refused_before_anything_is_read(hs_server: Server, keys: Keys, case: str, words: str) -> None:
    valid = jwt.encode(claims("alice"), keys.secret, algorithm="HS256")
    header, payload, signature = valid.split(".")
    tokens: dict[str, str | None] = {
        "none": None,
        # Bob's claims under Alice's signature.
        "forged": ".".join([header, b64(json.dumps(claims("bob")).encode()), signature]),
        "alg-none": ".".join([b64(b'{"alg":"none","typ":"JWT"}'), payload, ""]),
        "wrong-key": jwt.encode(claims("alice"), b"another secret that is long enough to be used", algorithm="HS256"),
        "expired": jwt.encode(claims("alice", exp=int(time.time()) - 60, nbf=int(time.time()) - 3600),
                              keys.secret, algorithm="HS256"),
        "no-exp": jwt.encode(claims("alice", exp=None), keys.secret, algorithm="HS256"),
        "not-yet-valid": jwt.encode(claims("alice", nbf=int(time.time()) + 3600), keys.secret, algorithm="HS256"),
        "wrong-audience": jwt.encode(claims("alice", aud="another-service"), keys.secret, algorithm="HS256"),
        "no-audience": jwt.encode(claims("alice", aud=None), keys.secret, algorithm="HS256"),
        "wrong-issuer": jwt.encode(claims("alice", iss="https://evil.example"), keys.secret, algorithm="HS256"),
        "no-subject": jwt.encode(claims("alice", sub=None), keys.secret, algorithm="HS256"),
        "garbage": "not.a.token",
        "hs512": jwt.encode(claims("alice"), keys.secret, algorithm="HS512"),
    }
    before = sessions_of(hs_server)
    error, code, reason = refusal(hs_server.ws_url, token=tokens[case])
    assert code == 4001 and error is not None and error["status"] == "BRIDGE_UNAUTHENTICATED", (code, error)
    assert words in error["message"] and reason, (error, reason)
    assert sessions_of(hs_server) == before


def test_a_token_in_the_authorization_header_is_taken_from_programs(hs_server: Server, hs256: Callable[..., str]) -> None:
    with Client(hs_server.ws_url, header=[f"Authorization: Bearer {hs256('carol')}"]) as client:
        _, state = client.create("profile")
        assert state["state"]["signedInAs"] == "Carol Example"


def test_an_rs256_public_key_verifies_and_an_hmac_made_with_it_is_refused(serve: Callable[..., Server],
                                                                          keys: Keys) -> None:
    server = serve(*auth_flags(keys, "rsa.pub.pem"))
    with Client(server.ws_url, token=jwt.encode(claims("dave"), keys.rsa, algorithm="RS256")) as client:
        assert client.create("profile")[1]["state"]["signedInAs"] == "Dave Example"
    # Algorithm confusion: an HS256 token whose secret is the public key, which anyone has.
    header = b64(b'{"alg":"HS256","typ":"JWT"}')
    payload = b64(json.dumps(claims("mallory")).encode())
    import hashlib
    import hmac
    signature = b64(hmac.new(keys.rsa_public_pem, f"{header}.{payload}".encode(), hashlib.sha256).digest())
    assert_refused(server, f"{header}.{payload}.{signature}", "algorithm \"HS256\"")
    # Signed by another RSA key.
    from cryptography.hazmat.primitives.asymmetric import rsa
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert_refused(server, jwt.encode(claims("mallory"), other, algorithm="RS256"), "signature does not verify")


def test_an_es256_public_key_verifies(serve: Callable[..., Server], keys: Keys) -> None:
    server = serve(*auth_flags(keys, "ec.pub.pem"))
    with Client(server.ws_url, token=jwt.encode(claims("erin"), keys.ec, algorithm="ES256")) as client:
        assert client.create("profile")[1]["state"]["signedInAs"] == "Erin Example"
    assert_refused(server, jwt.encode(claims("erin"), keys.rsa, algorithm="RS256"), "algorithm \"RS256\"")


def test_a_key_set_picks_the_key_by_kid(serve: Callable[..., Server], keys: Keys) -> None:
    server = serve(*auth_flags(keys, "keys.jwks.json"))
    token = jwt.encode(claims("frank"), keys.rsa, algorithm="RS256", headers={"kid": "key-1"})
    with Client(server.ws_url, token=token) as client:
        assert client.create("profile")[1]["state"]["signedInAs"] == "Frank Example"
    unknown = jwt.encode(claims("frank"), keys.rsa, algorithm="RS256", headers={"kid": "key-9"})
    assert_refused(server, unknown, "kid")
    assert_refused(server, jwt.encode(claims("frank"), keys.rsa, algorithm="RS256"), "kid")


def test_a_token_that_expires_while_connected_closes_the_connection_and_cannot_rejoin(
        hs_server: Server, keys: Keys) -> None:
    token = jwt.encode(claims("alice", exp=int(time.time()) + 2), keys.secret, algorithm="HS256")
    client = Client(hs_server.ws_url, token=token)
    client.create("counter")
    code, reason = client.close_frame(timeout=6)
    assert code == 4001 and "expired" in reason, (code, reason)
    assert_refused(hs_server, token, "expired", session=client.session)


def test_a_token_within_the_leeway_of_its_exp_is_honoured_until_the_leeway_ends(
        serve: Callable[..., Server], keys: Keys) -> None:
    # exp a second ago, 4 s of leeway: the handshake takes it, so the connection must
    # last until exp + 4 s (it was closed with 4001 at once), then close and stay refused.
    flags = [flag for flag in auth_flags(keys) if flag not in ("--jwt-leeway", "0")]
    server = serve(*flags, "--jwt-leeway", "4")
    expires = int(time.time()) - 1
    token = jwt.encode(claims("alice", exp=expires), keys.secret, algorithm="HS256")
    client = Client(server.ws_url, token=token)
    instance, _ = client.create("counter")
    time.sleep(1)
    reply, _ = client.call(type="send", instance=instance, input="increase")
    assert reply["type"] == "ok", reply
    code, reason = client.close_frame(timeout=8)
    closed = time.time()
    assert code == UNAUTHENTICATED and "expired" in reason, (code, reason)
    assert closed >= expires + 4 - 0.5, closed - expires
    assert_refused(server, token, "expired", session=client.session)


def test_a_page_may_not_say_who_the_user_is(hs_server: Server, hs256: Callable[..., str], serve: Callable[..., Server]) -> None:
    forged_user = {"subject": "admin", "claims": {"name": "The Admin"}}
    with Client(hs_server.ws_url, token=hs256("alice")) as client:
        reply, _ = client.call(type="create", feature="profile", options={"user": forged_user})
        assert reply["type"] == "error" and reply["status"] == "BRIDGE_MALFORMED_MESSAGE", reply
        assert "user" in reply["message"]
    # Nor on a bridge without --auth, where no user is signed in.
    open_server = serve()
    with Client(open_server.ws_url) as client:
        reply, _ = client.call(type="create", feature="profile", options={"user": forged_user})
        assert reply["type"] == "error" and reply["status"] == "BRIDGE_MALFORMED_MESSAGE", reply
        assert client.create("profile")[1]["state"]["signedInAs"] is None


@pytest.mark.parametrize(("content", "words"), [
    (b"short\n", "at least 32"),
    (b"-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n", "private key"),
    (b'{"keys": [{"kty": "RSA", "n": "AQAB", "e": "AQAB"}]}', "\"alg\""),
    (b"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "not an RSA or EC"),
])
def test_an_unusable_key_file_stops_the_bridge_with_a_message(fusion: Any, tmp_path: Any, content: bytes,
                                                             words: str) -> None:
    import subprocess
    key = tmp_path / "key"
    key.write_bytes(content)
    result = subprocess.run([str(fusion), "serve", "--port", "0", "--auth", "jwt", "--jwt-key", str(key),
                             "--jwt-audience", AUDIENCE], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert words in result.stderr, result.stderr


def test_auth_flags_need_each_other(fusion: Any) -> None:
    import subprocess
    for flags, words in [(["--auth", "jwt"], "--jwt-key"), (["--auth", "jwt", "--jwt-key", "/dev/null"], "--jwt-audience"),
                         (["--jwt-key", "/dev/null"], "is for --auth jwt")]:
        result = subprocess.run([str(fusion), "serve", "--port", "0", *flags], capture_output=True, text=True, timeout=30)
        assert result.returncode != 0 and words in result.stderr, (flags, result.stderr)
