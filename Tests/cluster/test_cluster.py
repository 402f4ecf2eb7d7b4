"""The bridge across machines (docs/deploy.md), against the real servers: PostgreSQL,
three `fusion serve` bridges and nginx on loopback, driven through nginx over WebSocket
as pages drive it. Each test starts its own cluster and stops by itself."""
from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable

from bridge import Client, close_frame, event_loop_threads
from cluster import Cluster
from pages import Page

FAST = ["--max-messages-per-second", "100000"]


def ws_url(cluster: Cluster) -> str:
    return cluster.url.replace("http://", "ws://") + "/ws"


def drive(pages: list[Page], inputs: int, during: Callable[[], None], after: int = 5) -> None:
    """Each page sends `inputs` increases, one at a time, on a thread of its own; `during`
    runs once every page has sent `after` of them (the inputs still flowing)."""
    started = threading.Barrier(len(pages) + 1)
    failures: list[BaseException] = []

    def run(page: Page) -> None:
        try:
            for number in range(inputs):
                page.increase()
                if number + 1 == after:
                    started.wait(60)
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)
            started.abort()

    threads = [threading.Thread(target=run, args=(page,)) for page in pages]
    for thread in threads:
        thread.start()
    started.wait(60)
    during()
    for thread in threads:
        thread.join(120)
    assert not failures, failures
    assert not any(thread.is_alive() for thread in threads), "a page is stuck"


def holders(cluster: Cluster) -> Counter[str]:
    rows = cluster.postgres.psql("SELECT holder FROM fusion_sessions").splitlines()
    return Counter(row.rsplit(" port ", 1)[1] for row in rows if row)


def test_new_sessions_spread_evenly_over_the_bridges(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(3)
    sessions = []
    for _ in range(300):
        with Client(ws_url(cluster), cluster.url) as client:
            client.create("counter", key="c")
            sessions.append(client.session)
    assert len(set(sessions)) == 300
    by_bridge = holders(cluster)
    ports = {str(bridge.port) for bridge in cluster.bridges}
    assert set(by_bridge) == ports, by_bridge
    # Each bridge holds at least a fifth of them (an even spread gives each a third).
    assert min(by_bridge.values()) >= 60, by_bridge
    # A bridge on PostgreSQL handles its messages on Swift's pool and keeps one event loop
    # per core (docs/web.md, "Threads"): the store's connections share those loops, and a
    # call waiting there for the database would wait for itself.
    for bridge in cluster.bridges:
        assert bridge.process is not None
        loops = event_loop_threads(bridge.process.pid)
        assert loops == (os.cpu_count() or 1), (bridge.port, loops)


def test_a_rejoin_reaches_the_bridge_that_holds_the_session(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(3)
    page = Page(ws_url(cluster), cluster.url)
    for _ in range(3):
        page.increase()
    before = cluster.postgres.psql(f"SELECT epoch, holder FROM fusion_sessions WHERE id = '{page.session}'")
    for _ in range(10):
        page.rejoin()
    page.increase()
    # Never taken over: nginx hashed every rejoin to the same bridge.
    assert cluster.postgres.psql(f"SELECT epoch, holder FROM fusion_sessions WHERE id = '{page.session}'") == before
    assert page.count() == 4


def test_kill_9_of_a_bridge_loses_no_acknowledged_input_and_applies_none_twice(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(3, FAST)
    pages = [Page(ws_url(cluster), cluster.url) for _ in range(24)]
    by_bridge = holders(cluster)
    victim = max(cluster.bridges, key=lambda bridge: by_bridge[str(bridge.port)])
    inputs = 30
    drive(pages, inputs, during=victim.kill)
    assert not victim.alive
    moved = [page for page in pages if page.reconnects > 0]
    assert moved, "no page was on the killed bridge"
    for page in pages:
        assert page.errors == [], page.errors
        assert len(page.acknowledged) == inputs
        # Exact: every acknowledged input is in the state, and none was applied twice.
        assert page.count() == inputs, page.session
    # The killed bridge's sessions now live on the others.
    assert str(victim.port) not in holders(cluster)


def test_a_rolling_restart_under_load_loses_nothing(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(3, FAST)
    pages = [Page(ws_url(cluster), cluster.url) for _ in range(12)]

    def roll() -> None:
        for bridge in cluster.bridges:
            assert bridge.stop() == 0  # SIGTERM: a clean stop
            bridge.start()
            time.sleep(0.3)

    drive(pages, 60, during=roll)
    for page in pages:
        assert page.count() == 60
        assert len(page.acknowledged) == 60
        # Only reconnects: no input was refused.
        assert [e for e in page.errors if e.get("re") is not None] == []
    assert sum(page.reconnects for page in pages) > 0


def test_one_session_opened_on_two_bridges_at_once_has_one_live_copy(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(2, FAST)
    first, second = cluster.bridges
    a = Client(f"ws://127.0.0.1:{first.port}/ws", first.url)
    session = a.session
    a.create("counter", key="c")
    acknowledged = 0
    for round_ in range(6):
        # Past nginx: each bridge in turn is asked for the session directly.
        bridge = (first, second)[round_ % 2]
        b = Client(f"ws://127.0.0.1:{bridge.port}/ws", bridge.url, session=session)
        assert b.session == session and b.welcome["resumed"]
        if round_ > 0:
            # The other bridge handed it over: its socket was closed with 4000.
            assert close_frame(a.ws)[0] == 4000
        for _ in range(5):
            reply, _ = b.request({"type": "send", "instance": "c", "input": "increase"})
            assert reply["type"] == "ok"
            acknowledged += 1
        a = b
        epoch, holder = cluster.postgres.psql(f"SELECT epoch, holder FROM fusion_sessions WHERE id = '{session}'").split("|")
        assert holder.endswith(f"port {bridge.port}")
        assert int(epoch) == round_ + 1
    states = [m for m in Client(f"ws://127.0.0.1:{second.port}/ws", second.url, session=session).drain(0.3)
              if m.get("type") == "state"]
    assert states[-1]["state"]["value"] == acknowledged


def test_two_tabs_rejoining_one_bridge_at_once_leave_the_session_free_to_move(make_cluster: Callable[..., Cluster]) -> None:
    """Two connections of one session (a duplicated tab) rejoin another bridge at the same
    moment. Read on (outside probe), both took the session over: the bridge held its
    advisory lock twice (locks count per connection), so that no bridge could take the
    session again until its copy there expired, its acknowledged inputs with it; and the
    second take-over fenced the first copy off (the first send on each socket: close 4000).
    Now the second waits for the first, is refused, asks again and joins the same copy."""
    cluster = make_cluster(2, FAST)
    first, second = cluster.bridges
    a = Client(f"ws://127.0.0.1:{first.port}/ws", first.url)
    session = a.session
    a.create("counter", key="c")
    assert a.request({"type": "send", "id": "before", "instance": "c", "input": "increase"})[0]["type"] == "ok"
    joined: list[Client] = []
    together = threading.Barrier(2)

    def rejoin() -> None:
        together.wait()
        for _ in range(20):
            try:
                joined.append(Client(f"ws://127.0.0.1:{second.port}/ws", second.url, session=session, timeout=10))
                return
            except Exception:  # refused for now (BRIDGE_JOURNAL_FAILURE, 1011): as a page, ask again
                time.sleep(0.2)

    tabs = [threading.Thread(target=rejoin) for _ in range(2)]
    for tab in tabs:
        tab.start()
    for tab in tabs:
        tab.join()
    assert len(joined) == 2 and {tab.session for tab in joined} == {session}
    for number, tab in enumerate(joined):
        reply, _ = tab.request({"type": "send", "id": f"tab {number}", "instance": "c", "input": "increase"})
        assert reply["type"] == "ok", reply
    assert close_frame(a.ws)[0] == 4000
    for tab in joined:
        tab.ws.close()
    # The session can move again: asked for on the first bridge, it is handed over at once.
    asked = time.monotonic()
    back = Client(f"ws://127.0.0.1:{first.port}/ws", first.url, session=session, timeout=10)
    assert back.welcome["resumed"] and time.monotonic() - asked < 3
    assert [m for m in back.drain(0.3) if m.get("type") == "state"][-1]["state"]["value"] == 3


def test_a_bridge_fenced_off_its_session_never_writes_to_it_again(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(2, FAST)
    first, second = cluster.bridges
    a = Client(f"ws://127.0.0.1:{first.port}/ws", first.url)
    session = a.session
    a.create("counter", key="c")
    for _ in range(3):
        assert a.request({"type": "send", "instance": "c", "input": "increase"})[0]["type"] == "ok"
    # The first bridge loses its lock connection (as if the network between it and the
    # database broke): the server drops its advisory lock, and the second takes the
    # session over at once, without a hand-over.
    cluster.postgres.psql(
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
        f" AND ((classid::bigint << 32) | objid::bigint) = hashtextextended('{session}', 0)")
    b = Client(f"ws://127.0.0.1:{second.port}/ws", second.url, session=session)
    assert b.session == session
    assert b.request({"type": "send", "instance": "c", "input": "increase"})[0]["type"] == "ok"
    # The first bridge still has the session in memory; its next write is fenced: no
    # reply, its socket closed with 4000, and nothing of it reaches the journal.
    a.send({"type": "send", "id": "stale", "instance": "c", "input": "increase"})
    assert close_frame(a.ws, 10)[0] == 4000
    states = [m for m in b.drain(0.3) if m.get("type") in ("state", "patch")]
    assert b.request({"type": "applied", "ids": ["stale"]})[0]["ids"] == []
    assert all(m.get("to", 0) <= 4 for m in states)
    c = Client(f"ws://127.0.0.1:{second.port}/ws", second.url, session=session)
    assert [m for m in c.drain(0.3) if m.get("type") == "state"][-1]["state"]["value"] == 4


def test_a_database_of_a_newer_schema_is_refused_with_a_clear_message(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(1)
    cluster.postgres.psql("UPDATE fusion_schema SET version = 99")
    bridge = cluster.bridges[0]
    bridge.stop()
    import subprocess

    from cluster import example_library, fusion_executable
    done = subprocess.run([str(fusion_executable()), "serve", str(example_library()), "--port", "0",
                           "--journal", cluster.postgres.url], capture_output=True, text=True, timeout=30)
    assert done.returncode == 6, done
    assert "version 99" in done.stderr and "upgrade fusion" in done.stderr, done.stderr


def test_healthz_says_ready_while_the_store_answers(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(1)
    assert cluster.bridges[0].healthz() == 200


_ = signal  # kill -9 and SIGTERM come through cluster.Bridge


def metric(text: str, name: str) -> float:
    """The value of one sample line (`name` with its labels, as printed) of /metrics."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError(f"no {name} in /metrics:\n{text}")


def test_metrics_count_inputs_errors_journal_writes_and_take_overs(make_cluster: Callable[..., Cluster]) -> None:
    import urllib.request

    cluster = make_cluster(2, FAST)
    first, second = cluster.bridges
    a = Client(f"ws://127.0.0.1:{first.port}/ws", first.url)
    a.create("counter", key="c")
    for _ in range(7):
        assert a.request({"type": "send", "instance": "c", "input": "increase"})[0]["type"] == "ok"
    assert a.request({"type": "send", "instance": "c", "input": "jump"})[0]["status"] == "FK_ERR_UNKNOWN_INPUT"
    text = urllib.request.urlopen(first.url + "/metrics", timeout=5).read().decode()
    assert metric(text, "fusion_inputs_total") == 7
    assert metric(text, "fusion_input_ok_seconds_count") == 7
    assert metric(text, 'fusion_errors_total{status="FK_ERR_UNKNOWN_INPUT"}') == 1
    # The creation and eight inputs, each durable in PostgreSQL before it was applied.
    assert metric(text, "fusion_journal_write_seconds_count") >= 8
    assert metric(text, "fusion_sessions") == 1 and metric(text, "fusion_instances") == 1
    assert metric(text, "fusion_connections") == 1
    Client(f"ws://127.0.0.1:{second.port}/ws", second.url, session=a.session)
    text = urllib.request.urlopen(second.url + "/metrics", timeout=5).read().decode()
    assert metric(text, 'fusion_takeovers_total{previous="released"}') == 1
    given = urllib.request.urlopen(first.url + "/metrics", timeout=5).read().decode()
    assert metric(given, "fusion_handovers_total") == 1
    assert metric(given, "fusion_sessions") == 0
