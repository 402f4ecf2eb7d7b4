"""Fixtures for the auth tests: `fusion serve --auth jwt` as a real process, and the keys
and tokens a team's login would issue (PyJWT), for HS256, RS256, ES256 and a key set."""
from __future__ import annotations

import json
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
import websocket
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "web"))
from bridge import Server, close_frame, protocols, serving  # noqa: E402

AUDIENCE = "fusion-tests"
ISSUER = "https://login.example"


class Keys:
    """The keys of one test run: the bridge gets the public halves (or the secret)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.secret = secrets.token_bytes(32).hex().encode()  # 64 bytes of text
        (folder / "secret.key").write_bytes(self.secret + b"\n")
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.rsa_public_pem = self.rsa.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        (folder / "rsa.pub.pem").write_bytes(self.rsa_public_pem)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        (folder / "ec.pub.pem").write_bytes(self.ec.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.rsa.public_key()))
        jwk.update({"kid": "key-1", "alg": "RS256", "use": "sig"})
        (folder / "keys.jwks.json").write_text(json.dumps({"keys": [jwk]}))

    def path(self, name: str) -> str:
        return str(self.folder / name)


def claims(subject: str = "alice", **changes: Any) -> dict[str, Any]:
    """A token's claims as a login issues them, valid for an hour; `changes` replace or
    (with None) remove claims."""
    now = int(time.time())
    found: dict[str, Any] = {"sub": subject, "name": f"{subject.title()} Example", "aud": AUDIENCE, "iss": ISSUER,
                             "iat": now, "nbf": now, "exp": now + 3600}
    for key, value in changes.items():
        if value is None:
            found.pop(key, None)
        else:
            found[key] = value
    return found


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    return Keys(tmp_path_factory.mktemp("keys"))


@pytest.fixture
def hs256(keys: Keys) -> Callable[..., str]:
    """`hs256(sub="alice", **claims)`: a valid HS256 token of the bridge's secret."""
    return lambda sub="alice", **changes: jwt.encode(claims(sub, **changes), keys.secret, algorithm="HS256")


@pytest.fixture
def serve(fusion: Path) -> Iterator[Callable[..., Server]]:
    """`serve(*flags)`: a bridge of the example library; stopped after the test."""
    yield from serving(fusion)


def auth_flags(keys: Keys, key: str = "secret.key", *more: str) -> list[str]:
    return ["--auth", "jwt", "--jwt-key", keys.path(key), "--jwt-audience", AUDIENCE, "--jwt-issuer", ISSUER,
            "--jwt-claim", "name", "--jwt-leeway", "0", *more]


def refusal(url: str, *, session: str | None = None, token: str | None = None, origin: str | None = None,
            header: list[str] | None = None) -> tuple[dict[str, Any] | None, int, str]:
    """Opens a socket the bridge is expected to refuse: (the error it sent, or None; the
    close code; the reason)."""
    options: dict[str, Any] = {"timeout": 5, "subprotocols": protocols(session)}
    if origin is None:
        options["suppress_origin"] = True
    else:
        options["origin"] = origin
    if token is not None:
        options["cookie"] = f"fusion_token={token}"
    if header:
        options["header"] = header
    ws = websocket.create_connection(url, **options)
    try:
        error: dict[str, Any] | None = None
        frame = ws.recv_frame()
        if frame.opcode == websocket.ABNF.OPCODE_TEXT:
            message = json.loads(frame.data)
            assert message["type"] == "error", f"expected a refusal, got {message}"
            error = message
            code, reason = close_frame(ws)
        else:
            assert frame.opcode == websocket.ABNF.OPCODE_CLOSE, frame
            code = int.from_bytes(frame.data[:2], "big")
            reason = frame.data[2:].decode()
        return error, code, reason
    finally:
        ws.close()
