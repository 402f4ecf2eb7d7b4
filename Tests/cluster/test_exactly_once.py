"""Exactly once in the cluster (docs/web-protocol.md, "Exactly once"): a client that drops
its connection right after a `send`, while the input's commit is still in flight,
rejoins (the same holder, or another bridge by hand-over), asks `applied`, and resends
what is not listed, the same id each time. Every input counts once, in memory and in the
journal the next holder replays."""
from __future__ import annotations

import socket
import struct
from collections.abc import Callable

import pytest
from bridge import Client
from cluster import Bridge, Cluster

FAST = ["--max-messages-per-second", "100000"]


def direct(bridge: Bridge, session: str | None = None) -> Client:
    return Client(f"ws://127.0.0.1:{bridge.port}/ws", bridge.url, session=session, timeout=15)


def value(client: Client) -> int:
    _, before = client.request({"type": "resync", "instance": "c"})
    return int([m for m in before if m.get("type") == "state"][-1]["state"]["value"])


def drop(client: Client) -> None:
    """Resets the connection: no close handshake, whatever the bridge still reads is lost."""
    client.ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.ws.sock.close()


@pytest.mark.parametrize("rejoin_on", ["holder", "other"])
def test_a_rejoin_racing_its_own_commit_applies_each_input_once(make_cluster: Callable[..., Cluster], rejoin_on: str) -> None:
    cluster = make_cluster(2, FAST)
    bridges = cluster.bridges
    tab = direct(bridges[0])
    session = tab.session
    tab.create("counter", key="c")
    holder = 0
    inputs = 40
    for number in range(inputs):
        id_ = f"r.{number}"
        burst = [f"{id_}.{k}" for k in range(3)]
        for each in burst:  # three inputs in flight at the drop
            tab.send({"type": "send", "id": each, "instance": "c", "input": "increase"})
        drop(tab)
        if rejoin_on == "other":
            holder = 1 - holder
        tab = direct(bridges[holder], session)
        assert tab.session == session
        reply, _ = tab.request({"type": "applied", "ids": burst})
        for each in burst:
            if each not in reply["ids"]:
                assert tab.request({"type": "send", "id": each, "instance": "c", "input": "increase"})[0]["type"] == "ok"
            # And once more, as a client that resends without asking: never applied twice.
            assert tab.request({"type": "send", "id": each, "instance": "c", "input": "increase"})[0]["type"] == "ok"
    assert value(tab) == 3 * inputs
    # The journal says the same: the other bridge takes the session over and replays it.
    replayed = direct(bridges[1 - holder], session)
    assert value(replayed) == 3 * inputs
