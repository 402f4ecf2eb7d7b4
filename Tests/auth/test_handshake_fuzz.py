"""The handshake fuzzed: random and hostile Sec-WebSocket-Protocol lists, cookies,
Authorization headers, tokens (well signed ones with odd claims among them), origins and
query strings, over raw sockets. Every handshake gets an answer, the bridge never
crashes, and a proper client is served at the end. (Headers of over 80 KiB in all are
dropped by the HTTP parser with the connection, unanswered.) Seeded: a failure repeats."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import socket
import time
from collections.abc import Callable
from typing import Any

import jwt
from bridge import Client, Server
from conftest import AUDIENCE, ISSUER, Keys, auth_flags

CASES = 400


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def odd_claims(rng: random.Random) -> dict[str, Any]:
    now = int(time.time())
    values: list[Any] = [None, "", "x" * rng.randint(1, 3000), 0, -1, 2**63, 2**64 + 1, 1e308, -1e308, True, [], {},
                         ["a", 1], {"nested": {"deep": [1, 2, {"x": None}]}}, "\u0000\ud7ff\u00e9", now, now + 3600]
    found: dict[str, Any] = {"sub": "fuzz", "aud": AUDIENCE, "iss": ISSUER, "exp": now + 3600, "name": "Fuzz"}
    for key in rng.sample(["sub", "aud", "iss", "exp", "nbf", "name", "iat", "jti", "extra"], rng.randint(1, 4)):
        found[key] = rng.choice(values)
    return found


def signed(claims: dict[str, Any], secret: bytes) -> str:
    """An HS256 token of any claims at all (PyJWT refuses to make some of these)."""
    head = b64(b'{"alg":"HS256","typ":"JWT"}') + "." + b64(json.dumps(claims).encode())
    return head + "." + b64(hmac.new(secret, head.encode(), hashlib.sha256).digest())


def token(rng: random.Random, keys: Keys) -> str:
    kind = rng.randrange(9)
    if kind == 0:
        return signed(odd_claims(rng), keys.secret)
    if kind == 1:
        header = rng.choice([b'{"alg":"none"}', b'{"alg":"HS256","kid":"../../etc/passwd"}', b'{}', b'[]', b'null',
                             b'{"alg":' + b'[' * 200 + b']' * 200 + b'}', b'{"alg":"HS256"' + b' ' * 5000 + b'}'])
        return ".".join([b64(header), b64(json.dumps(odd_claims(rng)).encode()), b64(rng.randbytes(rng.randint(0, 64)))])
    if kind == 2:
        return ".".join(b64(rng.randbytes(rng.randint(0, 200))) for _ in range(rng.randint(0, 6)))
    if kind == 3:
        return "".join(rng.choice("abcXYZ019-_.=+/ ") for _ in range(rng.randint(0, 400)))
    if kind == 4:
        return "." * rng.randint(0, 10)
    if kind == 5:
        return jwt.encode({"sub": "fuzz", "aud": AUDIENCE, "iss": ISSUER, "exp": int(time.time()) + 3600},
                          keys.secret, algorithm="HS256")  # a good one: the socket opens
    if kind == 6:
        return b64(json.dumps(odd_claims(rng)).encode() * rng.randint(1, 50))
    if kind == 7:
        return "eyJ" + "A" * rng.randint(10, 20000)
    return signed(odd_claims(rng), keys.secret + b"x")


def header_lines(rng: random.Random, keys: Keys, port: int) -> list[str]:
    lines: list[str] = []
    session = rng.choice(["0" * 32, "f" * 31, "G" * 32, "", "x" * 500, "0123456789abcdef" * 2, "..%00"])
    protocol_lists = ["fusion", f"fusion, fusion.session.{session}", f"fusion.session.{session}", "", ",,,,", "fusion," * 300,
                      f"fusion, fusion.session.{session}, fusion.session.{'a' * 32}", "a b c", "\t fusion \t"]
    if rng.random() < 0.8:
        lines.append(f"Sec-WebSocket-Protocol: {rng.choice(protocol_lists)}")
    if rng.random() < 0.3:
        lines.append(f"Sec-WebSocket-Protocol: {rng.choice(protocol_lists)}")
    if rng.random() < 0.7:
        cookies = [f"fusion_token={token(rng, keys)}"]
        if rng.random() < 0.5:
            cookies += [f"c{i}={'v' * rng.randint(0, 50)}" for i in range(rng.randint(1, 40))]
        if rng.random() < 0.2:
            cookies += ["fusion_token=", "=", ";;", "fusion_token=\"quoted\"", "fusion_token"]
        rng.shuffle(cookies)
        lines.append("Cookie: " + rng.choice(["; ", ";", " ; "]).join(cookies))
    if rng.random() < 0.4:
        lines.append(f"Authorization: {rng.choice(['Bearer ', 'bearer ', 'Basic ', 'Bearer', ''])}{token(rng, keys)}")
    if rng.random() < 0.5:
        lines.append(f"Origin: {rng.choice([f'http://127.0.0.1:{port}', 'http://evil.example', 'null', '', 'x' * 300])}")
    if rng.random() < 0.1:
        lines.append("X-Junk: " + "".join(chr(rng.randint(0x21, 0x7e)) for _ in range(rng.randint(0, 2000))))
    return lines


def handshake(port: int, path: str, lines: list[str]) -> bytes:
    request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
               + "".join(f"{line}\r\n" for line in lines) + "\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(request.encode("utf-8", "surrogateescape"))
        received = b""
        connection.settimeout(0.5)
        try:
            while len(received) < 65536:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                received += chunk
                head, _, after = received.partition(b"\r\n\r\n")
                if _ and (not head.startswith(b"HTTP/1.1 101") or after):
                    break  # an HTTP answer, or the socket's first frame (a welcome, or a refusal)
        except TimeoutError:
            pass  # an accepted socket stays open: we leave
        return received


def test_the_handshake_survives_what_anyone_may_send(serve: Callable[..., Server], keys: Keys) -> None:
    server = serve(*auth_flags(keys))
    rng = random.Random(26)
    answered = 0
    for case in range(CASES):
        path = rng.choice(["/ws", "/ws?session=" + "0" * 32, "/ws?x=1&session=", "/ws?" + "a=b&" * 200, "/ws#frag"])
        lines = header_lines(rng, keys, server.port)
        response = handshake(server.port, path, lines)
        # Headers past the HTTP parser's 80 KiB are dropped with the connection, unanswered.
        if sum(len(line) for line in lines) < 80 * 1024:
            assert response.startswith(b"HTTP/1.1 "), (case, response[:200])
        answered += 1
        assert server.process.poll() is None, f"the bridge died at case {case}"
    assert answered == CASES
    good = jwt.encode({"sub": "after", "aud": AUDIENCE, "iss": ISSUER, "exp": int(time.time()) + 3600}, keys.secret,
                      algorithm="HS256")
    with Client(server.ws_url, token=good) as client:
        assert client.create("counter")[1]["state"]["value"] == 0
