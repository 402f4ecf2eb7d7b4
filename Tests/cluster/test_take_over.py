"""Taking a session over when things go wrong half way (docs/deploy.md, "Failure cases"):
a page that rejoins the holder while it lets the session go, and a take-over the database
refuses after the lock was got. Either way one bridge, and only one, holds the session."""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable

import websocket
from bridge import Client, close_frame, protocols
from cluster import Bridge, Cluster

FAST = ["--max-messages-per-second", "100000"]
INCREASE = {"type": "send", "instance": "c", "input": "increase"}


def ws(bridge: Bridge) -> str:
    return f"ws://127.0.0.1:{bridge.port}/ws"


def counter_on(bridge: Bridge, increases: int) -> Client:
    client = Client(ws(bridge), bridge.url)
    client.create("counter", key="c")
    for _ in range(increases):
        assert client.request(INCREASE)[0]["type"] == "ok"
    return client


def value_on(bridge: Bridge, session: str) -> int:
    client = Client(ws(bridge), bridge.url, session=session)
    states = [m for m in client.drain(0.3) if m.get("type") == "state"]
    client.close()
    return int(states[-1]["state"]["value"])


def test_a_page_that_rejoins_the_holder_while_it_hands_over_leaves_one_live_copy(make_cluster: Callable[..., Cluster]) -> None:
    """The copy being let go unlocks only its own epoch (PostgresSessionStore.unlock), so
    the bridge's new copy keeps the lock. (The moment that rule decides, between the old
    copy's last answer and its unlock, is too short to hit from outside: this checks the
    hand-over around it.)"""
    cluster = make_cluster(2, FAST)
    first, second = cluster.bridges
    a = counter_on(first, 3)
    session = a.session
    # The holder's last write as it lets the session go (marking it released) takes half
    # a second: the window in which the page comes back to it.
    cluster.postgres.psql("""
        CREATE FUNCTION slow_release() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(0.5); RETURN NEW; END $$;
        CREATE TRIGGER slow_release BEFORE UPDATE ON fusion_sessions FOR EACH ROW
            WHEN (NEW.released AND NOT OLD.released) EXECUTE FUNCTION slow_release();
    """)
    # Another page asks the second bridge for the session: it asks the first to hand it
    # over, and waits for the lock.
    joined: dict[str, Client] = {}
    asking = threading.Thread(target=lambda: joined.update(b=Client(ws(second), second.url, timeout=20, session=session)))
    asking.start()
    assert close_frame(a.ws, 10)[0] == 4000
    # The first page rejoins the first bridge at once, while its old copy is let go there.
    again = Client(ws(first), first.url, session=session)
    assert again.session == session and again.welcome["resumed"]
    asking.join(30)
    b = joined["b"]
    assert b.session == session and b.welcome["resumed"]
    # One live copy: whichever bridge took the session last got it by a hand-over of the
    # other's copy (most often the one the rejoin made), whose page was closed with 4000.
    moved = closed_first([(again, first), (b, second)])
    survivor, holder = (b, second) if moved is again else (again, first)
    assert survivor.request(INCREASE)[0]["type"] == "ok"
    found = cluster.postgres.psql(f"SELECT holder FROM fusion_sessions WHERE id = '{session}'")
    assert found.endswith(f"port {holder.port}")
    assert value_on(holder, session) == 4


def closed_first(pages: list[tuple[Client, Bridge]], timeout: float = 10) -> Client:
    """The page whose socket is closed first (with 4000), reading all of them meanwhile."""
    for page, _ in pages:
        page.ws.settimeout(0.1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for page, _ in pages:
            try:
                frame = page.ws.recv_frame()
            except websocket.WebSocketTimeoutException:
                continue
            if frame.opcode == websocket.ABNF.OPCODE_CLOSE:
                assert int.from_bytes(frame.data[:2], "big") == 4000
                for each, _ in pages:
                    each.ws.settimeout(5)
                return page
    raise AssertionError("neither page was handed over")


def test_a_take_over_the_database_refuses_lets_the_session_go(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(2, FAST)
    first, second = cluster.bridges
    a = counter_on(first, 2)
    session = a.session
    # The database refuses to move the session's epoch: the second bridge gets the lock
    # (the first hands the session over), then fails to take the session.
    cluster.postgres.psql(f"""
        CREATE FUNCTION refuse_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
        CREATE TRIGGER refuse_epoch BEFORE UPDATE ON fusion_sessions FOR EACH ROW
            WHEN (NEW.epoch <> OLD.epoch AND NEW.id = '{session}') EXECUTE FUNCTION refuse_epoch();
    """)
    refused = websocket.create_connection(ws(second), suppress_origin=True, subprotocols=protocols(session), timeout=15)
    error = json.loads(refused.recv())
    assert error["type"] == "error" and error["status"] == "BRIDGE_JOURNAL_FAILURE", error
    assert close_frame(refused)[0] == 1011
    assert close_frame(a.ws)[0] == 4000
    cluster.postgres.psql("DROP TRIGGER refuse_epoch ON fusion_sessions")
    # The failed take-over kept no lock: the first bridge takes the session back at once,
    # with nobody to ask for it (a kept lock would make it wait, then fail).
    back = Client(ws(first), first.url, timeout=3, session=session)
    assert back.session == session and back.welcome["resumed"]
    assert back.request(INCREASE)[0]["type"] == "ok"
    assert value_on(first, session) == 3
