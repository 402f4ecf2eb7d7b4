"""The web bridge's handshake fuzzed from outside, as anyone who reaches its port can:
hostile request heads (subprotocol lists, cookies, Authorization headers, origins, query
strings, heads past the 80 KiB limit, heads sent a byte at a time) and correctly signed
tokens whose times (`exp`, `nbf`, `iat`) are anything at all: 1e300, -1, 2^64+1,
fractions, strings, lists. A real `fusion serve --auth jwt` process is driven over raw
sockets, so what is fuzzed is what users reach: NIO's parser, RequestHeadGuard, the
handshake and TokenVerifier.

Unlike the libFuzzer targets beside it, this is not coverage-guided (the bridge is not in
the instrumented builds, docs/reliability.md says why): cases are drawn from a seeded
generator, and each is checked against what docs/security.md promises, not only "no crash":

- the bridge never dies;
- a head within the limit is answered (HTTP/1.1 ...), one past it gets 431 and a close;
- a token whose times are all times (0 to the end of 9999) and current is welcomed, any
  other correctly signed one is refused with BRIDGE_UNAUTHENTICATED and close 4001, with
  a message that names the claim at fault;
- a head not finished within 10 s is closed (checked on a side thread, a few at a time);
- at the end an ordinary client is served.

`Tests/auth/test_handshake_fuzz.py` runs a fixed number of seeded cases in `scripts/test`;
`scripts/test-reliability` runs this file for FUZZ_SECONDS (`--seconds`). A failure prints
the seed and case, and writes the request that broke a promise to `--out`/crashes/."""
from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

AUDIENCE = "fusion-fuzz"
ISSUER = "https://login.example"
LIMIT = 80 * 1024  # RequestHeadGuard.maxHeadBytes
HEAD_TIMEOUT = 10.0  # RequestHeadGuard.timeout
LATEST = 253402300799  # TokenVerifier.timeRange's end


class Broken(AssertionError):
    """A promise the bridge did not keep, with the request that showed it."""

    def __init__(self, message: str, request: bytes = b"") -> None:
        super().__init__(message)
        self.request = request


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed(claims: dict[str, Any], secret: bytes, header: bytes = b'{"alg":"HS256","typ":"JWT"}') -> str:
    """An HS256 token of any claims at all, correctly signed with `secret`."""
    head = b64(header) + "." + b64(json.dumps(claims).encode())
    return head + "." + b64(hmac.new(secret, head.encode(), hashlib.sha256).digest())


def odd_time(rng: random.Random, now: float) -> Any:
    """A value for exp, nbf or iat: mostly numbers near the edges of what is a time."""
    return rng.choice([
        now + 3600, now + rng.uniform(-5000, 5000), now - 3600.5, now + 0.25, 0, 0.5, -0.0, -1, -0.5, -1e300,
        1e20, 1e21, 1e300, 1.7976931348623157e308, 2**53 + 1, 2**63 - 1, 2**63, 2**64 + 1, LATEST, LATEST + 1,
        LATEST + 0.5, 5e-324, "1700000000", "", None, True, False, [], {}, [now], {"t": now},
    ])


def is_time(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= LATEST


def odd_claims(rng: random.Random) -> dict[str, Any]:
    now = time.time()
    values: list[Any] = [None, "", "x" * rng.randint(1, 3000), 0, -1, 2**63, 2**64 + 1, 1e308, -1e308, True, [], {},
                         ["a", 1], {"nested": {"deep": [1, 2, {"x": None}]}}, "\u0000\ud7ff\u00e9", now, now + 3600]
    found: dict[str, Any] = {"sub": "fuzz", "aud": AUDIENCE, "iss": ISSUER, "exp": now + 3600, "name": "Fuzz"}
    for key in rng.sample(["sub", "aud", "iss", "exp", "nbf", "name", "iat", "jti", "extra"], rng.randint(1, 4)):
        found[key] = rng.choice(values)
    return found


def token(rng: random.Random, secret: bytes) -> str:
    kind = rng.randrange(9)
    if kind == 0:
        return signed(odd_claims(rng), secret)
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
        return signed({"sub": "fuzz", "aud": AUDIENCE, "iss": ISSUER, "exp": time.time() + 3600}, secret)
    if kind == 6:
        return b64(json.dumps(odd_claims(rng)).encode() * rng.randint(1, 50))
    if kind == 7:
        return "eyJ" + "A" * rng.randint(10, 20000)
    return signed(odd_claims(rng), secret + b"x")


def header_lines(rng: random.Random, secret: bytes, port: int) -> list[str]:
    lines: list[str] = []
    session = rng.choice(["0" * 32, "f" * 31, "G" * 32, "", "x" * 500, "0123456789abcdef" * 2, "..%00"])
    protocol_lists = ["fusion", f"fusion, fusion.session.{session}", f"fusion.session.{session}", "", ",,,,", "fusion," * 300,
                      f"fusion, fusion.session.{session}, fusion.session.{'a' * 32}", "a b c", "\t fusion \t"]
    if rng.random() < 0.8:
        lines.append(f"Sec-WebSocket-Protocol: {rng.choice(protocol_lists)}")
    if rng.random() < 0.3:
        lines.append(f"Sec-WebSocket-Protocol: {rng.choice(protocol_lists)}")
    if rng.random() < 0.7:
        cookies = [f"fusion_token={token(rng, secret)}"]
        if rng.random() < 0.5:
            cookies += [f"c{i}={'v' * rng.randint(0, 50)}" for i in range(rng.randint(1, 40))]
        if rng.random() < 0.2:
            cookies += ["fusion_token=", "=", ";;", "fusion_token=\"quoted\"", "fusion_token"]
        rng.shuffle(cookies)
        lines.append("Cookie: " + rng.choice(["; ", ";", " ; "]).join(cookies))
    if rng.random() < 0.4:
        lines.append(f"Authorization: {rng.choice(['Bearer ', 'bearer ', 'Basic ', 'Bearer', ''])}{token(rng, secret)}")
    if rng.random() < 0.5:
        lines.append(f"Origin: {rng.choice([f'http://127.0.0.1:{port}', 'http://evil.example', 'null', '', 'x' * 300])}")
    if rng.random() < 0.1:
        lines.append("X-Junk: " + "".join(chr(rng.randint(0x21, 0x7e)) for _ in range(rng.randint(0, 2000))))
    if rng.random() < 0.05:
        # Past the limit: in one field, or in many.
        if rng.random() < 0.5:
            lines.append("X-Big: " + "b" * rng.randint(LIMIT + 1, 3 * LIMIT))
        else:
            lines += [f"X-Many-{i}: {'m' * 1000}" for i in range(rng.randint(LIMIT // 1000 + 2, 3 * LIMIT // 1000))]
    return lines


HANDSHAKE = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
             "Sec-WebSocket-Version: 13"]


def request(port: int, path: str, lines: list[str], handshake: list[str] = HANDSHAKE) -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            + "".join(f"{line}\r\n" for line in [*handshake, *lines]) + "\r\n").encode("utf-8", "surrogateescape")


def handshake_lines(rng: random.Random) -> list[str]:
    """Mostly a whole handshake; else one NIO's upgrade handler once lost unanswered: a
    field left out or given twice, another version, another protocol (docs/security.md)."""
    lines = list(HANDSHAKE)
    if rng.random() < 0.6:
        return lines
    change = rng.choice(["drop", "twice", "version", "protocol"])
    at = rng.randrange(len(lines))
    if change == "drop":
        del lines[at]
    elif change == "twice":
        lines.insert(rng.randrange(len(lines) + 1), lines[at])
    elif change == "version":
        lines[3] = "Sec-WebSocket-Version: " + rng.choice(["8", "", "13, 8", "14", "\u00e9"])
    else:
        lines[0] = "Upgrade: " + rng.choice(["h2c", "", "websocket/13", "foo, bar", "TLS/1.0", "websocket2"])
    rng.shuffle(lines)
    return lines


def head_size(path: str, lines: list[str]) -> int:
    """What the parser counts against the limit: the target and every field's name and value."""
    fields = [line.split(":", 1) for line in lines]
    return len(path.encode()) + sum(len(name.encode()) + len(value.strip().encode("utf-8", "surrogateescape"))
                                    for name, value in fields) + 150  # and the fixed fields above


def exchange(port: int, data: bytes) -> tuple[bytes, bool]:
    """Sends a request; returns what came back up to the first frame (or an HTTP answer),
    and whether the server closed the connection within a few seconds of answering."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        try:
            connection.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before it was all sent: what was answered still counts
        received = b""
        closed = False
        connection.settimeout(0.5)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                chunk = connection.recv(65536)
            except TimeoutError:
                if received:
                    break  # answered, and left open (an accepted socket stays open)
                continue
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            received += chunk
            if frame_complete(received):
                break  # the socket's first frame: a welcome, or a refusal
        return received, closed


def frame_bounds(after: bytes) -> tuple[int, int] | None:
    """Where the first frame's payload starts and ends in the bytes after a 101, once they
    hold its header (a server's frames are not masked; a first frame is under 64 KiB)."""
    if len(after) < 2:
        return None
    length, offset = after[1] & 0x7F, 2
    if length == 126:
        if len(after) < 4:
            return None
        length, offset = int.from_bytes(after[2:4], "big"), 4
    return offset, offset + length


def frame_complete(received: bytes) -> bool:
    head, mark, after = received.partition(b"\r\n\r\n")
    if not mark or not head.startswith(b"HTTP/1.1 101"):
        return False
    bounds = frame_bounds(after)
    return bounds is not None and len(after) >= bounds[1]


def first_frame(received: bytes) -> tuple[int, bytes]:
    """The opcode and payload of the first frame after a 101, or (0, b"") if it is not whole."""
    if not frame_complete(received):
        return 0, b""
    after = received.partition(b"\r\n\r\n")[2]
    start, end = frame_bounds(after) or (0, 0)
    return after[0] & 0x0F, after[start:end]


def claims_case(rng: random.Random, secret: bytes, port: int) -> None:
    """A clean handshake whose one token is correctly signed and whose times are anything:
    welcomed exactly when every time is a time and the token is current."""
    now = time.time()
    claims: dict[str, Any] = {"sub": "fuzz", "aud": AUDIENCE, "iss": ISSUER, "exp": now + 3600}
    for name in rng.sample(["exp", "nbf", "iat"], rng.randint(1, 3)):
        value = odd_time(rng, now)
        if value is None and name != "exp":
            claims.pop(name, None)
        else:
            claims[name] = value
    data = request(port, "/ws", ["Sec-WebSocket-Protocol: fusion", f"Cookie: fusion_token={signed(claims, secret)}"])
    received, _ = exchange(port, data)
    if not received.startswith(b"HTTP/1.1 101"):
        raise Broken(f"a clean handshake was not upgraded: {received[:200]!r}", data)
    opcode, payload = first_frame(received)
    message = json.loads(payload) if opcode == 1 else None
    times = {name: claims[name] for name in ("exp", "nbf", "iat") if name in claims}
    bad = [name for name, value in times.items() if not is_time(value)]
    # A margin around now: the bridge's clock read differs from ours by the round trip.
    current = is_time(times.get("exp")) and times["exp"] > now + 5 and (
        "nbf" not in times or not is_time(times["nbf"]) or times["nbf"] < now - 5)
    borderline = not bad and not current and (abs(times["exp"] - now) <= 5 or abs(times.get("nbf", 0) - now) <= 5)
    if borderline:
        return
    welcomed = message is not None and message.get("type") == "welcome"
    if bad or not current:
        if welcomed or message is None or message.get("status") != "BRIDGE_UNAUTHENTICATED":
            raise Broken(f"times {times} were not refused: {received[:300]!r}", data)
        if bad and not any(f"token's {name} is not a time" in message["message"] for name in bad):
            raise Broken(f"times {times}: the refusal does not name the claim at fault: {message}", data)
    elif not welcomed:
        raise Broken(f"times {times} are current and were refused: {received[:300]!r}", data)


def with_request(rng: random.Random) -> bytes:
    """What a client may write in one write with its upgrade request, before any answer:
    nothing, its first frames (masked or not, of any opcode), or bytes that are no frame.
    (Such bytes once stopped the whole bridge: docs/security.md, "Requests at the edge".)"""
    choice = rng.random()
    if choice < 0.5:
        return b""
    if choice > 0.9:
        return rng.randbytes(rng.randint(1, 300))
    frames = b""
    for _ in range(rng.randint(1, 4)):
        payload = rng.choice([b'{"type":"manifest","id":1}', b'"increase"', rng.randbytes(rng.randint(0, 300))])
        opcode = rng.choice([0x1, 0x1, 0x2, 0x0, 0x8, 0x9, 0xA, rng.randrange(16)])
        length = bytes([len(payload)]) if len(payload) < 126 else bytes([126]) + len(payload).to_bytes(2, "big")
        masked = rng.random() < 0.7
        mask = rng.randbytes(4) if masked else b""
        body = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload)) if masked else payload
        head = bytes([(0x80 if rng.random() < 0.8 else 0) | opcode, (0x80 if masked else 0) | length[0]]) + length[1:]
        frames += head + mask + body
    return frames


def headers_case(rng: random.Random, secret: bytes, port: int) -> None:
    """A hostile handshake, perhaps with bytes after it in the same write: answered, 431
    and closed past the limit (and the bridge alive after it: `run` checks)."""
    path = rng.choice(["/ws", "/ws?session=" + "0" * 32, "/ws?x=1&session=", "/ws?" + "a=b&" * 200, "/ws#frag", "/"])
    lines = header_lines(rng, secret, port)
    data = request(port, path, lines, handshake_lines(rng)) + with_request(rng)
    received, closed = exchange(port, data)
    size = head_size(path, lines)
    if size > LIMIT + 1024:
        if not received.startswith(b"HTTP/1.1 431 ") or not closed:
            raise Broken(f"a head of {size} bytes got {received[:200]!r} (closed: {closed})", data)
    elif size < LIMIT - 1024 and not received.startswith(b"HTTP/1.1 "):
        raise Broken(f"a head of {size} bytes was not answered: {received[:200]!r}", data)


def slow_heads(port: int, stop: threading.Event, failures: list[str], counts: dict[str, int]) -> None:
    """Heads that are never finished (dribbled, or nothing sent), a few at a time: each
    must be closed at the head's deadline."""
    rng = random.Random(7)
    while not stop.is_set():
        connection = socket.create_connection(("127.0.0.1", port), timeout=5)
        connection.settimeout(0.5)
        started = time.monotonic()
        dribble = rng.random() < 0.7
        if dribble:
            connection.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\n")
        closed_after = None
        while time.monotonic() - started < HEAD_TIMEOUT * 2:
            try:
                if dribble:
                    connection.sendall(b"X-a: b\r\n")
                if not connection.recv(65536):
                    closed_after = time.monotonic() - started
                    break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                closed_after = time.monotonic() - started
                break
        connection.close()
        counts["slow heads"] = counts.get("slow heads", 0) + 1
        if closed_after is None or not HEAD_TIMEOUT - 0.5 <= closed_after <= HEAD_TIMEOUT + 3:
            failures.append(f"an unfinished head ({'dribbled' if dribble else 'silent'}) was closed after {closed_after} s")
            return


class Bridge:
    """`fusion serve --auth jwt` with a fresh HS256 secret, on a port the system chose."""

    def __init__(self, fusion: Path, folder: Path) -> None:
        self.secret = secrets.token_hex(32).encode()
        key = folder / "fuzz.key"
        key.write_bytes(self.secret)
        self.process = subprocess.Popen(
            [str(fusion), "serve", "--port", "0", "--auth", "jwt", "--jwt-key", str(key), "--jwt-audience", AUDIENCE,
             "--jwt-issuer", ISSUER, "--jwt-leeway", "0",
             # Every welcome makes a session that outlives its socket by a minute.
             "--max-sessions", "1000000", "--max-sessions-per-user", "1000000"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if "Serving" not in line:
            self.process.kill()
            raise Broken(f"fusion serve did not start: {line!r} {self.process.communicate()[1]!r}")
        self.port = int(line.split(" at ")[1].split()[0].rsplit(":", 1)[1].strip("/"))

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> str:
        if self.alive():
            self.process.terminate()
        return self.process.communicate(timeout=20)[1]


def run(bridge: Bridge, seed: int, cases: int | None = None, seconds: float | None = None,
        slow: bool = False) -> dict[str, Any]:
    """Runs cases from `seed` (a count, or for a time); raises Broken at the first broken
    promise. Returns what was run."""
    counts: dict[str, int] = {"claims": 0, "headers": 0}
    stop = threading.Event()
    failures: list[str] = []
    watcher = threading.Thread(target=slow_heads, args=(bridge.port, stop, failures, counts), daemon=True)
    if slow:
        watcher.start()
    started = time.monotonic()
    case = 0
    try:
        while (cases is None or case < cases) and (seconds is None or time.monotonic() - started < seconds):
            rng = random.Random(f"{seed}-{case}")
            kind = "claims" if rng.random() < 0.5 else "headers"
            try:
                (claims_case if kind == "claims" else headers_case)(rng, bridge.secret, bridge.port)
            except Broken as broken:
                raise Broken(f"seed {seed}, case {case} ({kind}): {broken}", broken.request) from None
            counts[kind] += 1
            if not bridge.alive():
                raise Broken(f"seed {seed}, case {case} ({kind}): the bridge died")
            if failures:
                raise Broken(failures[0])
            case += 1
    finally:
        stop.set()
    if slow:
        watcher.join(timeout=HEAD_TIMEOUT * 3)
        if failures:
            raise Broken(failures[0])
    time.sleep(0.5)  # a timer armed by the last welcome would fire by now
    if not bridge.alive():
        raise Broken(f"seed {seed}: the bridge died after the last case")
    claims_case_ok = {"sub": "after", "aud": AUDIENCE, "iss": ISSUER, "exp": time.time() + 3600}
    data = request(bridge.port, "/ws", ["Sec-WebSocket-Protocol: fusion",
                                        f"Cookie: fusion_token={signed(claims_case_ok, bridge.secret)}"])
    received, _ = exchange(bridge.port, data)
    opcode, payload = first_frame(received)
    if opcode != 1 or json.loads(payload).get("type") != "welcome":
        raise Broken(f"seed {seed}: an ordinary client was not served at the end: {received[:300]!r}", data)
    return {"seed": seed, "cases": case, "seconds": round(time.monotonic() - started, 1), **counts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fusion", type=Path, default=Path(".build/debug/fusion"))
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=None, help="repeat a run (printed by every run)")
    parser.add_argument("--out", type=Path, default=Path(".build-fuzz"))
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else int.from_bytes(os.urandom(4), "big")
    print(f"handshake fuzz: seed {seed}, {options.seconds:g} s", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        bridge = Bridge(options.fusion, Path(folder))
        try:
            result = run(bridge, seed, seconds=options.seconds, slow=True)
        except Broken as broken:
            crashes = options.out / "crashes"
            crashes.mkdir(parents=True, exist_ok=True)
            (crashes / f"handshake-{seed}.txt").write_bytes(str(broken).encode() + b"\n\n" + broken.request)
            print(f"FAILED: {broken}\n(repeat with --seed {seed}; the request is in {crashes}/handshake-{seed}.txt)")
            print(bridge.stop()[-3000:], file=sys.stderr)
            return 1
        errors = bridge.stop()
    options.out.mkdir(parents=True, exist_ok=True)
    (options.out / "handshake.json").write_text(json.dumps(result, indent=1) + "\n")
    rate = result["cases"] / max(result["seconds"], 0.001)
    print(f"DONE {result['cases']} cases ({result['claims']} token times, {result['headers']} hostile heads, "
          f"{result.get('slow heads', 0)} unfinished heads) in {result['seconds']} s, {rate:.0f}/s; every promise kept")
    if "Fatal error" in errors:
        print(errors[-3000:], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
