"""One live copy, and liveness in seconds (docs/deploy.md, "Liveness and fencing"): a
bridge that loses its hold on the database (its lock connection cut, the database
stopped, the bridge frozen, or the network to the database silently gone) closes every
socket of its sessions at once and never answers from the copy it kept; another bridge
takes them over within the lease (4 s), not TCP's hours. Each test has a watcher tab on
the bridge that loses its hold, and measures the time it promises; the measured times
go to `failure-times.json` in the test's folder and to the test's output (-s)."""
from __future__ import annotations

import json
import os
import select
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import websocket
from bridge import Client, close_frame
from cluster import Bridge, Cluster
from pages import Page

FAST = ["--max-messages-per-second", "100000"]
LEASE = 4.0  # fusion serve --lease's default: the server lets a silent bridge go after it
GIVE_UP = LEASE * 3 / 4  # the bridge gives its sessions up a quarter of the lease sooner


def direct(bridge: Bridge, session: str | None = None, timeout: float = 10) -> Client:
    return Client(f"ws://127.0.0.1:{bridge.port}/ws", bridge.url, session=session, timeout=timeout)


def rejoin(bridge: Bridge, session: str, timeout: float = 30) -> Client:
    """Rejoins `session` on `bridge`, again while it answers 1011 (the session store not
    ready yet, or a take-over waiting for the lock), as fusionkit.js does."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            client = direct(bridge, session)
            assert client.session == session, "the session was lost"
            return client
        except (OSError, websocket.WebSocketException, json.JSONDecodeError, KeyError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def value(client: Client) -> int:
    _, before = client.request({"type": "resync", "instance": "c"})
    states = [m for m in before if m.get("type") == "state" and m.get("instance") == "c"]
    assert states, "no state"
    return int(states[-1]["state"]["value"])


def increase(client: Client, times: int) -> None:
    for _ in range(times):
        reply, _ = client.request({"type": "send", "instance": "c", "input": "increase"})
        assert reply["type"] == "ok", reply


def two_bridges_and_a_tab(make_cluster: Callable[..., Cluster]) -> tuple[Cluster, Bridge, Bridge, Client]:
    """A cluster of two bridges, and a tab on the first with a Counter at 3."""
    cluster = make_cluster(2, FAST)
    first, second = cluster.bridges
    tab = direct(first)
    tab.create("counter", key="c")
    increase(tab, 3)
    return cluster, first, second, tab


def epoch_of(cluster: Cluster, session: str) -> int:
    return int(cluster.postgres.psql(f"SELECT epoch FROM fusion_sessions WHERE id = '{session}'"))


def record(tmp_path: Path, row: str, seconds: float) -> None:
    """Keeps a measured time of a failure table row (docs/deploy.md)."""
    path = tmp_path / "failure-times.json"
    times: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    times[row] = round(seconds, 3)
    path.write_text(json.dumps(times, indent=1))
    print(f"\n{row}: {seconds:.3f} s")


def closed_without_a_stale_state(watcher: Client, stale: int, timeout: float) -> tuple[int, float]:
    """Reads the watcher until its socket closes: no state or patch of the copy the bridge
    lost may come (its value at the loss was `stale`, and the session went on elsewhere).
    Returns the close code and when it came (time.monotonic)."""
    watcher.ws.settimeout(timeout)
    while True:
        opcode, data = watcher.ws.recv_data(control_frame=True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            code = int.from_bytes(data[:2], "big") if len(data) >= 2 else 1005
            return code, time.monotonic()
        if opcode == websocket.ABNF.OPCODE_TEXT:
            message = json.loads(data)
            assert message.get("type") not in ("state", "patch"), f"a fenced bridge answered from its copy: {message}"


def holders_lock_pid(cluster: Cluster, session: str) -> int:
    return int(cluster.postgres.psql(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory'"
        f" AND ((classid::bigint << 32) | objid::bigint) = hashtextextended('{session}', 0)"))


def test_a_bridge_whose_lock_connection_is_cut_closes_every_session_at_once(
        make_cluster: Callable[..., Cluster], tmp_path: Path) -> None:
    cluster = make_cluster(2, FAST)
    first, second = cluster.bridges
    tabs = [direct(first) for _ in range(3)]
    for tab in tabs:
        tab.create("counter", key="c")
        increase(tab, 3)
    watchers = [direct(first, tab.session) for tab in tabs]
    for watcher in watchers:
        watcher.drain(0.2)
    cut = time.monotonic()
    cluster.postgres.psql(f"SELECT pg_terminate_backend({holders_lock_pid(cluster, tabs[0].session)})")
    # Every tab of the bridge is closed with 4000 (rejoin), though none of them sent a
    # thing: the bridge knows its locks went with the connection.
    for client in tabs + watchers:
        code, when = closed_without_a_stale_state(client, 3, 5)
        assert code == 4000
    record(tmp_path, "lock connection cut: sockets closed", when - cut)
    assert when - cut < 1.5
    # The other bridge takes the sessions over with a fresh epoch and goes on.
    for tab in tabs:
        taken = direct(second, tab.session)
        assert taken.welcome["resumed"] and epoch_of(cluster, tab.session) == 2
        increase(taken, 2)
        taken.close()
    # The first bridge takes none back but by a take-over of its own (epoch 3), from the
    # journal: the value the second bridge left, never the copy it had.
    for tab in tabs:
        again = direct(first, tab.session)
        assert value(again) == 5 and epoch_of(cluster, tab.session) == 3
        again.close()


class Listener:
    """Reads a connection on a thread of its own, noting when each message came, so that
    what the bridge sent after a moment can be told from what it sent before."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.messages: list[tuple[float, dict[str, Any]]] = []
        self.closed: tuple[int, float] | None = None
        client.ws.settimeout(60)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                opcode, data = self.client.ws.recv_data(control_frame=True)
                if opcode == websocket.ABNF.OPCODE_CLOSE:
                    code = int.from_bytes(data[:2], "big") if len(data) >= 2 else 1005
                    self.closed = (code, time.monotonic())
                    return
                if opcode == websocket.ABNF.OPCODE_TEXT:
                    self.messages.append((time.monotonic(), json.loads(data)))
        except (OSError, websocket.WebSocketException):
            return

    def answers_after(self, moment: float) -> list[dict[str, Any]]:
        return [m for at, m in self.messages if at > moment and m.get("type") in ("state", "patch", "ok")]


def test_a_frozen_bridge_loses_its_sessions_within_the_lease_and_wakes_up_fenced(
        make_cluster: Callable[..., Cluster], tmp_path: Path) -> None:
    cluster, first, second, tab = two_bridges_and_a_tab(make_cluster)
    watcher = direct(first, tab.session, timeout=30)
    watcher.drain(0.2)
    tab_heard, watcher_heard = Listener(tab), Listener(watcher)
    # A burst, and the freeze while its inputs are still being applied and committed.
    for number in range(60):
        tab.send({"type": "send", "id": f"burst.{number}", "instance": "c", "input": "increase"})
    first.signal(signal.SIGSTOP)
    frozen = time.monotonic()
    try:
        # The other bridge is asked for the session at once; it waits for the lock, which
        # the database lets go once the frozen bridge's lock connection has been idle for
        # the lease.
        taken = direct(second, tab.session, timeout=30)
        took = time.monotonic() - frozen
        assert taken.welcome["resumed"] and epoch_of(cluster, tab.session) == 2
        record(tmp_path, "bridge frozen: taken over", took)
        assert took < LEASE + 1.5
        increase(taken, 3)
        time.sleep(max(0.0, LEASE + 2 - (time.monotonic() - frozen)))
    finally:
        first.signal(signal.SIGCONT)
    woke = time.monotonic()
    # Woken, the bridge finds its lease ran out: both tabs are closed with 4000, and
    # neither hears anything of its copy after it woke (not the patches and oks of the
    # burst's inputs whose commits it learns of only now), though the tab sends a resync.
    try:
        tab.send({"type": "resync", "instance": "c"})
    except (OSError, websocket.WebSocketException):
        pass
    for heard in (tab_heard, watcher_heard):
        heard.thread.join(10)
        assert heard.closed is not None and heard.closed[0] == 4000
        assert heard.answers_after(woke) == [], heard.answers_after(woke)
    closed = max(heard.closed[1] for heard in (tab_heard, watcher_heard) if heard.closed)
    record(tmp_path, "bridge frozen, woken: sockets closed", closed - woke)
    assert closed - woke < 1.5
    assert value(direct(second, tab.session)) >= 6


class Blackhole:
    """A TCP relay to PostgreSQL that can go silent: `cut()` keeps every connection open
    but carries nothing either way from then on, as a broken network path does (no FIN,
    no RST: TCP on either side hears nothing for many minutes)."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.server.getsockname()[1])
        self.silent = threading.Event()
        self.stopped = threading.Event()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self.sockets += [client, upstream]
            threading.Thread(target=self._relay, args=(client, upstream), daemon=True).start()

    def _relay(self, a: socket.socket, b: socket.socket) -> None:
        peers = {a: b, b: a}
        while not self.stopped.is_set():
            if self.silent.is_set():
                time.sleep(0.1)  # reads nothing more: the kernel's buffers fill, nothing moves
                continue
            ready, _, _ = select.select([a, b], [], [], 0.1)
            for side in ready:
                try:
                    data = side.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    for s in (a, b):
                        s.close()
                    return
                peers[side].sendall(data)

    def cut(self) -> None:
        self.silent.set()

    def close(self) -> None:
        self.stopped.set()
        self.server.close()
        for s in self.sockets:
            s.close()


def test_a_bridge_silently_cut_off_from_the_database_gives_its_sessions_up_and_another_takes_them(
        make_cluster: Callable[..., Cluster], tmp_path: Path) -> None:
    cluster = make_cluster(1, FAST)
    second = cluster.bridges[0]
    path = Blackhole(cluster.postgres.port)
    cut_off = Bridge(cluster.postgres.url.replace(f":{cluster.postgres.port}/", f":{path.port}/"), cluster.libraries,
                     tmp_path / "cut-off.log", FAST)
    try:
        tab = direct(cut_off)
        tab.create("counter", key="c")
        increase(tab, 3)
        watcher = direct(cut_off, tab.session)
        watcher.drain(0.2)
        path.cut()
        cut = time.monotonic()
        # The bridge hears no heartbeat back: it gives the session up before the database can.
        code, when = closed_without_a_stale_state(watcher, 3, 10)
        assert code == 4000
        record(tmp_path, "network to the database cut: sockets closed", when - cut)
        assert GIVE_UP - 0.5 < when - cut < GIVE_UP + 1.5
        # The database ends the silent lock connection after the lease; the other bridge
        # takes the session over then.
        taken = direct(second, tab.session, timeout=30)
        took = time.monotonic() - cut
        assert taken.welcome["resumed"] and value(taken) == 3
        record(tmp_path, "network to the database cut: taken over", took)
        assert took < LEASE + 2
        # The cut-off bridge serves no copy of it: a rejoin there cannot take it (no database).
        refused = websocket.create_connection(f"ws://127.0.0.1:{cut_off.port}/ws", origin=cut_off.url, timeout=15,
                                              subprotocols=["fusion", f"fusion.session.{tab.session}"])
        message = json.loads(refused.recv())
        assert message["type"] == "error" and message["status"] == "BRIDGE_JOURNAL_FAILURE", message
        assert close_frame(refused)[0] == 1011
    finally:
        cut_off.kill()
        path.close()


def test_postgres_stopped_closes_every_session_and_the_bridges_recover_by_themselves(
        make_cluster: Callable[..., Cluster], tmp_path: Path) -> None:
    cluster = make_cluster(2, FAST)
    page = Page(cluster.ws_url, cluster.url)
    page.increase()
    stopped = time.monotonic()
    cluster.postgres.stop()
    try:
        # The holder's lock connection went with the server: the tab is closed (4000), so
        # it never reads a copy another bridge may go on from once the database is back.
        code, when = closed_without_a_stale_state(page.client, 1, 10)
        assert code == 4000
        record(tmp_path, "database stopped: sockets closed", when - stopped)
        # No session can be joined meanwhile: told why, then 1011 (try again).
        bridge = cluster.bridges[0]
        fresh = websocket.create_connection(f"ws://127.0.0.1:{bridge.port}/ws", origin=bridge.url, timeout=10)
        refusal = json.loads(fresh.recv())
        assert refusal["type"] == "error" and refusal["status"] == "BRIDGE_JOURNAL_FAILURE" and refusal["re"] is None
        assert close_frame(fresh)[0] == 1011
        assert all(bridge.healthz() == 503 for bridge in cluster.bridges)
        assert all(bridge.alive for bridge in cluster.bridges)
        time.sleep(2)
    finally:
        cluster.postgres.start()
    started = time.monotonic()
    deadline = started + 20
    while time.monotonic() < deadline and not all(bridge.healthz() == 200 for bridge in cluster.bridges):
        time.sleep(0.1)
    assert all(bridge.healthz() == 200 for bridge in cluster.bridges)
    record(tmp_path, "database back: bridges ready", time.monotonic() - started)
    # The page rejoins (a take-over, fresh epoch) and goes on where it was.
    page.rejoin()
    for _ in range(2):
        page.increase()
    assert page.count() == 3
    assert all(bridge.alive for bridge in cluster.bridges)


@pytest.mark.parametrize("frozen", ["database", "journal connections"])
def test_a_write_that_got_no_answer_is_never_answered_and_lands_once(
        make_cluster: Callable[..., Cluster], tmp_path: Path, frozen: str) -> None:
    cluster = make_cluster(1, FAST)
    bridge = cluster.bridges[0]
    page = Client(f"ws://127.0.0.1:{bridge.port}/ws", bridge.url, timeout=30)
    session = page.session
    page.create("counter", key="c")
    increase(page, 2)
    # The database's server processes stop answering without closing (frozen, as behind a
    # cut link): the bridge's write of `late` goes out and gets no answer. Either all of
    # them (the lease runs out first), or only the journal's (the lease stays well, and the
    # write's own 10 s deadline gives the session up).
    lock = holders_lock_pid(cluster, session)
    pids = [int(pid) for pid in cluster.postgres.psql(
        "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()").split()
        if frozen == "database" or int(pid) != lock]
    assert pids
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        page.send({"type": "send", "id": "late", "instance": "c", "input": "increase"})
        began = time.monotonic()
        # No reply: not `ok` (it may not land) and not an error (it may): the socket is
        # closed instead, and the client asks after rejoining.
        code, when = closed_without_a_stale_state(page, 2, 20)
        assert code == 4000
        record(tmp_path, f"{frozen} frozen: sockets closed", when - began)
        if frozen == "database":
            assert when - began < GIVE_UP + 1.5
        else:
            assert 9 < when - began < 13
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
    # The frozen statement now lands (or is fenced by the take-over's epoch); either way the
    # rejoined copy knows, and `applied` says so before any resend of that id is accepted.
    client = rejoin(bridge, session)
    reply, _ = client.request({"type": "applied", "ids": ["late"]})
    if "late" not in reply["ids"]:
        assert client.request({"type": "send", "id": "late", "instance": "c", "input": "increase"})[0]["type"] == "ok"
    # Sent again with the same id regardless: never applied twice.
    assert client.request({"type": "send", "id": "late", "instance": "c", "input": "increase"})[0]["type"] == "ok"
    assert value(client) == 3
    client.close()
    # The journal agrees with memory: a restarted bridge replays it to the same value.
    bridge.kill()
    bridge.start()
    assert value(rejoin(bridge, session)) == 3


def test_nginx_skips_a_frozen_bridge_for_new_sessions_and_rejoins(
        make_cluster: Callable[..., Cluster], tmp_path: Path) -> None:
    cluster = make_cluster(3, FAST)
    pages = [Page(cluster.ws_url, cluster.url) for _ in range(12)]
    for page in pages:
        page.increase()
    frozen = cluster.bridges[0]
    held = {row.split("|")[0] for row in cluster.postgres.psql(
        "SELECT id, holder FROM fusion_sessions").splitlines() if row.endswith(f"port {frozen.port}")}
    assert held, "no session on the bridge to freeze: nothing to test"
    frozen.signal(signal.SIGSTOP)
    try:
        # New sessions: every one gets its welcome, those hashed to the frozen bridge once
        # nginx's 5 s read timeout moves them on to the next bridge (a page waits for its
        # handshake as a browser does, longer than nginx: pages.HANDSHAKE_TIMEOUT).
        # (Two that went by way of the frozen bridge are enough: each waits out the 5 s. New
        # sessions hash on a random id: one in three goes there first.)
        slowest = 0.0
        moved_on = 0
        for _ in range(24):
            began = time.monotonic()
            page = Page(cluster.ws_url, cluster.url)
            page.increase()
            took = time.monotonic() - began
            slowest = max(slowest, took)
            page.close()
            moved_on += took > 4
            if moved_on == 2:
                break
        record(tmp_path, "bridge frozen: slowest new session through nginx", slowest)
        assert moved_on, "no new session was sent to the frozen bridge first: nothing was tested"
        assert slowest < 5 + 1.5
        # Rejoins of the frozen bridge's sessions (two of them, for the same reason): nginx
        # moves them on, and the bridge they reach takes the session over once the lease
        # let it go.
        slowest = 0.0
        for page in [page for page in pages if page.session in held][:2]:
            began = time.monotonic()
            page.rejoin()
            page.increase()
            slowest = max(slowest, time.monotonic() - began)
            assert page.count() == 2
        record(tmp_path, "bridge frozen: slowest rejoin through nginx", slowest)
        # 5 s for nginx's attempt on the frozen bridge (max_fails=0 never marks it down, so
        # each handshake hashed there waits out proxy_read_timeout), then the next bridge,
        # which takes the session over at once: the frozen bridge's lease ran out long ago.
        assert slowest < 5 + 2.5
    finally:
        frozen.signal(signal.SIGCONT)


def test_a_killed_bridges_session_is_taken_over_at_once(make_cluster: Callable[..., Cluster], tmp_path: Path) -> None:
    cluster, first, second, tab = two_bridges_and_a_tab(make_cluster)
    first.kill()
    killed = time.monotonic()
    taken = direct(second, tab.session)
    record(tmp_path, "bridge killed: taken over", time.monotonic() - killed)
    assert time.monotonic() - killed < 1.5
    assert taken.welcome["resumed"] and value(taken) == 3


def test_a_stopping_bridge_lets_its_sessions_go_and_a_rejoin_takes_them_at_once(
        make_cluster: Callable[..., Cluster], tmp_path: Path) -> None:
    cluster, first, second, tab = two_bridges_and_a_tab(make_cluster)
    first.signal(signal.SIGTERM)
    stopping = time.monotonic()
    assert close_frame(tab.ws)[0] == 1001
    closed = time.monotonic() - stopping
    taken = rejoin(second, tab.session)
    record(tmp_path, "bridge stopped: socket closed", closed)
    record(tmp_path, "bridge stopped: taken over", time.monotonic() - stopping)
    assert value(taken) == 3
    assert first.wait() == 0


def test_a_session_asked_of_another_bridge_is_handed_over(make_cluster: Callable[..., Cluster], tmp_path: Path) -> None:
    cluster, first, second, tab = two_bridges_and_a_tab(make_cluster)
    asked = time.monotonic()
    taken = direct(second, tab.session)
    record(tmp_path, "hand-over to the bridge asked", time.monotonic() - asked)
    assert close_frame(tab.ws)[0] == 4000
    assert value(taken) == 3 and epoch_of(cluster, tab.session) == 2
