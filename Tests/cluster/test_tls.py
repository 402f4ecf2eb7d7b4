"""The cluster behind TLS (docs/deploy.md, "TLS"): nginx serves https and wss with a
certificate made for the run (scripts/cluster --tls) and says so to the bridges with
X-Forwarded-Proto; the bridges take only signed-in users (--auth jwt), and the login app
behind nginx's /login sets the token's cookie. Driven as pages drive it: wss:// through
nginx, trusting the run's certificate as a browser trusts a real one. One cluster serves
the module's tests; each test is bounded in time."""
from __future__ import annotations

import http.client
import json
import re
import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import websocket
from bridge import Client, close_frame, protocols
from cluster import Cluster

ALICE = "alice"
FOREIGN = "https://evil.example"


class Run:
    """The module's cluster, and every session id and token its clients were given (the
    last test looks for them in the logs)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.sessions: set[str] = set()
        self.tokens: set[str] = set()
        self.connections = 0  # WebSockets opened through nginx: one access log line each

    def token(self, subject: str = ALICE, name: str = "Alice Example") -> str:
        assert self.cluster.auth is not None
        token = self.cluster.auth.token(subject, name)
        self.tokens.add(token)
        return token

    @property
    def ssl(self) -> dict[str, Any]:
        assert self.cluster.tls is not None
        return {"context": self.cluster.tls.context()}

    def client(self, token: str, session: str | None = None, origin: str | None = None) -> Client:
        """A page's WebSocket through nginx: wss://, the page's own https origin."""
        self.connections += 1
        client = Client(self.cluster.ws_url, origin or self.cluster.url, session=session, token=token, sslopt=self.ssl)
        self.sessions.add(client.session)
        return client

    def handshake(self, origin: str, token: str | None) -> websocket.WebSocket:
        """A bare WebSocket through nginx, for what the bridge says before any welcome."""
        self.connections += 1
        options: dict[str, Any] = {"origin": origin, "subprotocols": protocols(None), "sslopt": self.ssl, "timeout": 10}
        if token is not None:
            options["cookie"] = f"fusion_token={token}"
        return websocket.create_connection(self.cluster.ws_url, **options)

    def https(self) -> http.client.HTTPSConnection:
        assert self.cluster.nginx is not None
        return http.client.HTTPSConnection("127.0.0.1", self.cluster.nginx.port, context=self.ssl["context"], timeout=10)


@pytest.fixture(scope="module")
def run(bin_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    """Two bridges (--verbose: every connection and request in their logs) behind nginx
    with TLS, --auth jwt, and the login app."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FUSION", str(bin_dir / "fusion"))
        patch.setenv("FUSIONKIT_LIB", str(bin_dir / "libFusionExamples.so"))
        cluster = Cluster(2, folder=tmp_path_factory.mktemp("tls-cluster"), tls=True, auth=True,
                          bridge_options=["--verbose"])
    try:
        yield Run(cluster)
    finally:
        cluster.stop()


def counter_value(client: Client, instance: str = "c") -> int:
    states = [m for m in client.drain(0.3) if m.get("type") == "state" and m.get("instance") == instance]
    assert states, f"no state of {instance}"
    return int(states[-1]["state"]["value"])


def test_wss_end_to_end_through_nginx_and_a_rejoin_resumes_the_session(run: Run) -> None:
    assert run.cluster.url.startswith("https://") and run.cluster.ws_url.startswith("wss://")
    token = run.token()
    with run.client(token) as page:
        # The server answers the protocol's name, never the session's.
        assert page.ws.getsubprotocol() == "fusion"
        assert page.welcome["resumed"] is False
        page.create("counter", key="c")
        for _ in range(5):
            reply, _ = page.request({"type": "send", "instance": "c", "input": "increase"})
            assert reply["type"] == "ok", reply
        session = page.session
    # A new socket (a reload, say) names the session in Sec-WebSocket-Protocol.
    with run.client(token, session=session) as again:
        assert again.session == session
        assert again.welcome["resumed"] is True
        assert [i["feature"] for i in again.welcome["instances"]] == ["counter"]
        assert counter_value(again) == 5
        assert again.request({"type": "send", "instance": "c", "input": "increase"})[0]["type"] == "ok"
    with run.client(token, session=session) as third:
        assert counter_value(third) == 6


def test_under_https_only_the_public_origin_may_open_the_socket(run: Run) -> None:
    token = run.token()
    # The public origin, https://127.0.0.1:PORT, is the page's own.
    with run.client(token, origin=run.cluster.url) as page:
        assert page.welcome["type"] == "welcome"
    # Another site's page, even with a valid token in its cookie (SameSite=Strict keeps a
    # browser from sending it, but the Origin check does not rely on that): refused.
    # The page's own host over http, the wrong scheme: refused too.
    plain = run.cluster.url.replace("https://", "http://")
    for origin in (FOREIGN, plain):
        ws = run.handshake(origin, token)
        try:
            frame = ws.recv_frame()
            assert frame.opcode == websocket.ABNF.OPCODE_CLOSE, f"{origin}: {frame.data!r} before the close"
            code = int.from_bytes(frame.data[:2], "big")
            assert code == 1008, (origin, code, frame.data[2:])
            assert "origin" in frame.data[2:].decode(), frame.data
        finally:
            ws.close()


def test_under_https_a_page_without_a_token_is_told_to_sign_in(run: Run) -> None:
    ws = run.handshake(run.cluster.url, None)
    try:
        refusal = json.loads(ws.recv())
        assert refusal["type"] == "error" and refusal["status"] == "BRIDGE_UNAUTHENTICATED" and refusal["re"] is None
        assert close_frame(ws)[0] == 4001
    finally:
        ws.close()


def set_cookie(response: http.client.HTTPResponse) -> tuple[str, set[str]]:
    """The fusion_token cookie's value and its attributes (lowercased, without values but SameSite's)."""
    headers = response.headers.get_all("Set-Cookie") or []
    assert len(headers) == 1, headers
    first, *attributes = (part.strip() for part in headers[0].split(";"))
    name, _, value = first.partition("=")
    assert name == "fusion_token", headers
    return value, {a.lower() if a.lower().startswith("samesite") else a.split("=")[0].lower() for a in attributes}


def test_the_login_cookie_under_https_is_secure_httponly_and_samesite_strict(run: Run) -> None:
    connection = run.https()
    try:
        connection.request("GET", "/login")
        form = connection.getresponse()
        assert form.status == 200 and 'data-test="login-form"' in form.read().decode()
        connection.request("POST", "/login", body=urllib.parse.urlencode({"user": "alice", "password": "blob"}),
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        response = connection.getresponse()
        response.read()
        # Not followed: the redirect to the profile, with the cookie.
        assert response.status == 303 and response.getheader("Location") == "/profile.html"
        token, attributes = set_cookie(response)
        assert {"secure", "httponly", "samesite=strict", "path"} <= attributes, attributes
        run.tokens.add(token)
        # A wrong password gets the form again, and no cookie.
        connection.request("POST", "/login", body="user=alice&password=nope",
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        wrong = connection.getresponse()
        wrong.read()
        assert wrong.status == 401 and wrong.getheader("Set-Cookie") is None
        # Signing out clears the cookie with the same flags.
        connection.request("POST", "/logout")
        out = connection.getresponse()
        out.read()
        value, attributes = set_cookie(out)
        assert out.status == 303 and value == "" and {"secure", "httponly", "max-age"} <= attributes
    finally:
        connection.close()
    # The cookie the login set opens a session; the profile knows who signed in.
    with run.client(token) as page:
        _, state = page.create("profile", key="p")
        assert state["state"]["signedInAs"] == "Alice Example"


def logs(cluster: Cluster) -> dict[Path, str]:
    assert cluster.nginx is not None and cluster.login is not None
    files = [bridge.log for bridge in cluster.bridges] + [cluster.login.log] + \
        [cluster.nginx.folder / name for name in ("access.log", "error.log", "stderr.log")]
    return {file: file.read_text(errors="replace") if file.exists() else "" for file in files}


def test_no_session_id_or_token_reaches_any_log(run: Run) -> None:
    cluster = run.cluster
    tokens = {user: run.token(user, f"{user.title()} Example") for user in ("alice", "bob")}
    pages = [run.client(tokens[user]) for user in ("alice", "bob") for _ in range(3)]
    try:
        for page in pages:
            page.create("counter", key="c")
            for _ in range(3):
                assert page.request({"type": "send", "instance": "c", "input": "increase"})[0]["type"] == "ok"
        for round_ in range(3):
            for number, page in enumerate(pages):
                page.close()
                user = ("alice", "bob")[number // 3]
                pages[number] = page = run.client(tokens[user], session=page.session)
                assert page.welcome["resumed"] is True
                assert page.next("state", instance="c")["state"]["value"] == 3 + round_
                assert page.request({"type": "send", "instance": "c", "input": "increase"})[0]["type"] == "ok"
    finally:
        for page in pages:
            page.close()
    assert cluster.nginx is not None
    access = cluster.nginx.folder / "access.log"
    # nginx writes a WebSocket's line once it closes.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and access.read_text().count("GET /ws ") < run.connections:
        time.sleep(0.05)
    found = logs(cluster)
    # The logs are not empty: nginx logged every WebSocket, the bridges every connection
    # (with a session's first 8 digits, as they say which session, and no more).
    assert found[access].count("GET /ws ") >= run.connections, found[access]
    rejoined = "\n".join(found[bridge.log] for bridge in cluster.bridges)
    assert all(f"session {session[:8]}… rejoined" in rejoined for session in (p.session for p in pages)), rejoined
    assert re.search(r"POST /login HTTP/1\.1\" 303", found[access]), found[access]
    # …but no whole session id, nor any token, anywhere.
    assert len(run.sessions) >= 7
    for file, text in found.items():
        leaked = [session for session in run.sessions if session in text]
        assert not leaked, f"{file.name} holds session ids {leaked}:\n{text[-3000:]}"
        secrets = [token[:20] + "…" for token in run.tokens if token in text or token.split(".")[2] in text]
        assert not secrets, f"{file.name} holds tokens {secrets}"


def test_a_hand_over_logs_no_session_id(make_cluster: Callable[..., Cluster]) -> None:
    # A session opened on the other bridge (as after a rolling restart, when a returning
    # bridge gets its sessions back): the bridge that held it hands it over.
    cluster = make_cluster(2)
    first, second = cluster.bridges
    with Client(f"ws://127.0.0.1:{first.port}/ws", first.url) as a:
        a.create("counter", key="c")
        with Client(f"ws://127.0.0.1:{second.port}/ws", second.url, session=a.session) as b:
            assert b.session == a.session and b.welcome["resumed"] is True
            assert close_frame(a.ws)[0] == 4000  # the holder closed its socket: handed over
    for bridge in cluster.bridges:
        assert a.session not in bridge.log.read_text(), f"{bridge.log.name}: {bridge.log.read_text()[-1500:]}"
