"""Every `CLIENT_*` status of the web client (bindings/web/fusionkit.js and its modules),
produced in a real headless Chromium and compared exactly: the page of a real
`fusion serve` imports the client and makes each happen as a page would meet it. The
registry test at the end requires, for each status the client's code spells, a test
here that asserts it with `==` (Tests/status_producers.py), and that the client's
documentation (fusionkit.d.ts, bindings/web/README.md) lists exactly those."""
from __future__ import annotations

import base64
import hashlib
import json
import re
import signal
import socket
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bridge import ROOT, Server

if TYPE_CHECKING:
    from conftest import Browser

CLIENT = ROOT / "bindings" / "web"

# Runs `body` (an async function body, `fk` the client module) in the page and returns
# what it returns; a thrown error comes back as {"thrown": message}.
RUN = """
const [body, done] = [arguments[0], arguments[arguments.length - 1]];
import("/fusionkit.js")
    .then((fk) => new (Object.getPrototypeOf(async function () {}).constructor)("fk", body)(fk))
    .then(done, (error) => done({ thrown: String(error && error.message || error) }));
"""

# The status a promise rejects with ("resolved" when it does not).
STATUS_OF = "const statusOf = (promise) => promise.then(() => 'resolved', (error) => error.status);\n"


def run(b: Browser, body: str) -> Any:
    return b.driver.execute_async_script(RUN, STATUS_OF + body)


def open_page(b: Browser) -> None:
    """A page of the server, so that the client is imported from its origin."""
    b.driver.set_script_timeout(10)
    b.open("counter.html")


def test_wrong_arguments_patches_and_environments_are_refused_in_chromium(browser: Browser) -> None:
    b = browser
    open_page(b)
    statuses = run(b, """
        const thrownBy = (fn) => { try { fn(); return "nothing thrown"; } catch (error) { return error.status; } };
        // A realm whose location has no host, and then no WebSocket: an about:blank frame.
        const frame = document.createElement("iframe");
        document.body.append(frame);
        const inFrame = await frame.contentWindow.eval(`import("${location.origin}/fusionkit.js")`);
        const noURL = await statusOf(inFrame.connect());
        delete frame.contentWindow.WebSocket;
        return {
            badArgument: thrownBy(() => fk.normalizeInput(3)),
            badPatch: thrownBy(() => fk.applyPatch({ a: 1 }, [{ op: "test", path: "/a", value: 2 }])),
            noURL,
            noWebSocket: await statusOf(inFrame.connect(`ws://${location.host}/ws`, { storage: null })),
            frameHost: frame.contentWindow.location.host,
        };
    """)
    assert statuses == {"badArgument": "CLIENT_BAD_ARGUMENT", "badPatch": "CLIENT_BAD_PATCH",
                        "noWebSocket": "CLIENT_NO_WEBSOCKET", "noURL": "CLIENT_NO_URL", "frameHost": ""}, statuses


def test_a_module_that_cannot_load_or_that_traps_is_reported_in_chromium(browser: Browser, wasm_pages: Path) -> None:
    """connect({wasm}): a module that is not there, or not WebAssembly, rejects connect;
    one that traps (its memory overwritten here, as a bug in it would) rejects the call
    it trapped in, closes the page's bridge, and refuses what follows."""
    b = browser
    open_page(b)
    statuses = run(b, """
        const missing = await statusOf(fk.connect({ wasm: "/no-such-module.wasm", storage: null }));
        const notWasm = await statusOf(fk.connect({ wasm: "/counter.html", storage: null }));
        const bridge = await fk.connect({ wasm: "/FusionExamples.wasm", storage: null });
        const counter = await bridge.create("counter");
        await counter.send("increase");
        new Uint8Array(bridge._module.exports.memory.buffer).fill(255);
        const trapped = await statusOf(counter.send("increase"));
        return { missing, notWasm, trapped, status: bridge.status, after: await statusOf(counter.send("increase")),
                 value: counter.state.value };
    """)
    assert statuses == {"missing": "CLIENT_WASM_UNAVAILABLE", "notWasm": "CLIENT_WASM_UNAVAILABLE",
                        "trapped": "CLIENT_WASM_TRAPPED", "status": "closed", "after": "CLIENT_CLOSED", "value": 1}, statuses


def test_a_first_connection_that_fails_rejects_connect_in_chromium(browser: Browser) -> None:
    b = browser
    open_page(b)
    # A path the server has no WebSocket on: the handshake gets 404.
    status = run(b, 'return await statusOf(fk.connect("/no-socket-here", { storage: null, reconnect: false }));')
    assert status == "CLIENT_CONNECT_FAILED"


def test_calls_after_close_and_on_a_destroyed_instance_are_refused_in_chromium(browser: Browser) -> None:
    b = browser
    open_page(b)
    statuses = run(b, """
        const bridge = await fk.connect("/ws", { storage: null });
        const counter = await bridge.create("counter");
        await counter.destroy();
        const destroyed = await statusOf(counter.send("increase"));
        const pending = statusOf(bridge.create("counter"));  // its reply cannot come in time
        bridge.close();
        return { destroyed, pending: await pending, after: await statusOf(bridge.create("counter")) };
    """)
    assert statuses == {"destroyed": "CLIENT_DESTROYED", "pending": "CLIENT_CLOSED", "after": "CLIENT_CLOSED"}, statuses


def test_a_call_cut_off_by_a_dropped_connection_rejects_in_chromium(browser: Browser, server: Server) -> None:
    b = browser
    open_page(b)
    assert run(b, """
        window.bridge = await fk.connect("/ws", { storage: null, minDelay: 60000 });
        return bridge.status;
    """) == "open"
    # The server stops answering, the call goes out, then the server dies: the
    # connection drops with the call still waiting for its reply.
    server.process.send_signal(signal.SIGSTOP)
    try:
        waiting = run(b, 'window.cut = statusOf(bridge.create("counter")); return bridge._pending.size;')
    finally:
        server.process.kill()
        server.process.wait(timeout=10)
    assert waiting == 1, "the create was not waiting for its reply"
    status = run(b, "return await window.cut;")
    assert status == "CLIENT_DISCONNECTED"
    assert run(b, "const s = bridge.status; bridge.close(); return s;") == "reconnecting"


def test_a_reconnect_the_bridge_refuses_is_reported_in_chromium(browser: Browser, serve) -> None:
    """A close with 1008 and no error before it (the Origin check) ends the reconnecting
    with the client's own BRIDGE_REFUSED."""
    b = browser
    open_page(b)
    origin = b.server.url.rstrip("/")
    other = serve("--allow-origin", origin)
    assert run(b, f"""
        window.bridge = await fk.connect({json.dumps(other.ws_url)}, {{ storage: null, minDelay: 20, maxDelay: 100 }});
        window.refused = new Promise((resolve) => bridge.onError(resolve));
        return bridge.status;
    """) == "open"
    other.stop(signal.SIGKILL)  # dropped with no word (SIGTERM's shutdown would answer a reconnect)
    b.wait_for("the client to reconnect", lambda: run(b, "return bridge.status;"), lambda s: s == "reconnecting")
    # The same address again, now without the page's origin among those it allows.
    again = Server(other.fusion, port=other.port)
    b.servers.append(again)
    reported = run(b, "const error = await window.refused; return [error.status, bridge.status];")
    assert reported == ["BRIDGE_REFUSED", "closed"], reported


class NotJSONServer:
    """A WebSocket server that welcomes a client as `fusion serve` would, then answers
    its first message with a text frame that is not JSON."""

    WELCOME = {"type": "welcome", "session": "0123456789abcdef0123456789abcdef", "resumed": False, "instances": [],
               "library": {"name": "L", "version": "1", "abiVersion": 1}, "libraries": [], "limits": {}}

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"ws://127.0.0.1:{self.listener.getsockname()[1]}/ws"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @staticmethod
    def frame(text: str) -> bytes:
        data = text.encode()
        assert len(data) < 65536
        return bytes([0x81, len(data)]) + data if len(data) < 126 else bytes([0x81, 126]) + len(data).to_bytes(2) + data

    def _serve(self) -> None:
        self.listener.settimeout(15)
        connection, _ = self.listener.accept()
        with connection:
            connection.settimeout(15)
            request = b""
            while b"\r\n\r\n" not in request:
                request += connection.recv(4096)
            key = re.search(rb"Sec-WebSocket-Key: *(\S+)", request, re.I).group(1)  # type: ignore[union-attr]
            accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
            connection.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                               b"Sec-WebSocket-Accept: " + accept + b"\r\nSec-WebSocket-Protocol: fusion\r\n\r\n")
            connection.sendall(self.frame(json.dumps(self.WELCOME)))
            connection.recv(4096)  # the client's first message
            connection.sendall(self.frame("this is not JSON"))
            while True:  # until the client's close frame (or it went away): answered in kind
                data = connection.recv(4096)
                if not data or data[0] & 0x0F == 0x8:
                    break
            connection.sendall(b"\x88\x00")

    def stop(self) -> None:
        self.listener.close()
        self.thread.join(timeout=15)


def test_a_frame_that_is_not_json_is_reported_in_chromium(browser: Browser) -> None:
    b = browser
    open_page(b)
    fake = NotJSONServer()
    try:
        reported = run(b, f"""
            const bridge = await fk.connect({json.dumps(fake.url)}, {{ storage: null, reconnect: false }});
            const error = new Promise((resolve) => bridge.onError(resolve));
            bridge.manifest().catch(() => {{}});  // a message out: the server answers it with the bad frame
            const status = (await error).status;
            bridge.close();
            return status;
        """)
    finally:
        fake.stop()
    assert reported == "CLIENT_MALFORMED_MESSAGE"


# ---------------------------------------------------------------------------------
# The registry: every CLIENT_ status of the client, each produced above.

PRODUCED_BY = {
    "CLIENT_BAD_ARGUMENT": "test_wrong_arguments_patches_and_environments_are_refused_in_chromium",
    "CLIENT_BAD_PATCH": "test_wrong_arguments_patches_and_environments_are_refused_in_chromium",
    "CLIENT_NO_WEBSOCKET": "test_wrong_arguments_patches_and_environments_are_refused_in_chromium",
    "CLIENT_NO_URL": "test_wrong_arguments_patches_and_environments_are_refused_in_chromium",
    "CLIENT_CONNECT_FAILED": "test_a_first_connection_that_fails_rejects_connect_in_chromium",
    "CLIENT_DESTROYED": "test_calls_after_close_and_on_a_destroyed_instance_are_refused_in_chromium",
    "CLIENT_CLOSED": "test_calls_after_close_and_on_a_destroyed_instance_are_refused_in_chromium",
    "CLIENT_DISCONNECTED": "test_a_call_cut_off_by_a_dropped_connection_rejects_in_chromium",
    "CLIENT_MALFORMED_MESSAGE": "test_a_frame_that_is_not_json_is_reported_in_chromium",
    # The client's own name for a close with 1008 that no error explained.
    "BRIDGE_REFUSED": "test_a_reconnect_the_bridge_refuses_is_reported_in_chromium",
    # Calls made while reconnecting: the page shows it after a server restart.
    "CLIENT_NOT_CONNECTED": "test_browser.py::test_the_page_survives_a_server_restart",
    # connect({wasm}): the features in the page (docs/wasm.md).
    "CLIENT_WASM_UNAVAILABLE": "test_a_module_that_cannot_load_or_that_traps_is_reported_in_chromium",
    "CLIENT_WASM_TRAPPED": "test_a_module_that_cannot_load_or_that_traps_is_reported_in_chromium",
}


def in_the_client() -> set[str]:
    """The CLIENT_ statuses the client's sources spell, and the BRIDGE_ ones it makes up
    itself (the bridge's sources never spell them)."""
    sources = [CLIENT / "fusionkit.js", *sorted((CLIENT / "fusionkit").glob("*.js"))]
    spelled = {status for path in sources for status in re.findall(r'"((?:CLIENT|BRIDGE)_[A-Z_]+)"', path.read_text())}
    bridge = "\n".join(path.read_text() for path in (ROOT / "Sources" / "FusionWeb").glob("*.swift"))
    return {status for status in spelled if status.startswith("CLIENT_") or f'"{status}"' not in bridge}


def test_every_client_status_is_produced_in_chromium_by_a_test() -> None:
    from status_producers import asserts_exactly, takes_fixture

    statuses = in_the_client()
    assert len(statuses) >= 10 and statuses == set(PRODUCED_BY), statuses ^ set(PRODUCED_BY)
    # The documentation lists the same statuses.
    client_only = {status for status in statuses if status.startswith("CLIENT_")}
    typings = (CLIENT / "fusionkit.d.ts").read_text().split(" * A refusal.", 1)[1].split("*/", 1)[0]
    assert set(re.findall(r"`(CLIENT_[A-Z_]+)`", typings)) == client_only, "fusionkit.d.ts's FusionError comment"
    readme = (CLIENT / "README.md").read_text()
    paragraph = readme.split("`FusionError` has `status`", 1)[1].split("\n\n", 1)[0]
    assert set(re.findall(r"`(CLIENT_[A-Z_]+)`", paragraph)) == client_only, "bindings/web/README.md's FusionError paragraph"
    for status in statuses - client_only:
        assert f"`{status}`" in readme.split("## Connections", 1)[1], f"bindings/web/README.md's Connections: {status}"
    for status, named in PRODUCED_BY.items():
        file, test = named.split("::") if "::" in named else (Path(__file__).name, named)
        path = Path(__file__).parent / file
        assert takes_fixture(path, test, "browser"), f"{named} does not run in Chromium"
        assert asserts_exactly(path, test, status), f"{named} does not assert {status} exactly"
