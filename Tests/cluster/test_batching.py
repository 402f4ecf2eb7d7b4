"""Group commit in PostgreSQL (docs/deploy.md, "Group commit"): the records that wait on a
bridge's connection while an append is in flight go out together as one statement, one
commit; each still lands, or fails, on its own."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bridge import Client
from cluster import Cluster

SESSIONS = 30
INPUTS = 10
FAST = ["--max-messages-per-second", "100000"]


def burst(clients: list[Client], refused: set[str]) -> dict[str, dict[str, Any]]:
    """Every client sends all its inputs at once, without waiting for an `ok`; the reply to
    each message id. Ids in `refused` are sent like the others."""
    ids = []
    for n in range(INPUTS):
        for index, client in enumerate(clients):
            id_ = f"s{index}.{n}"
            client.send({"type": "send", "id": id_, "instance": "c", "input": "increase"})
            ids.append(id_)
    replies: dict[str, dict[str, Any]] = {}
    for index, client in enumerate(clients):
        while sum(1 for id_ in replies if id_.startswith(f"s{index}.")) < INPUTS:
            message = client.receive()
            if message.get("re") is not None and message["type"] in ("ok", "error"):
                replies[message["re"]] = message
    assert sorted(replies) == sorted(ids)
    return replies


def open_counters(cluster: Cluster) -> list[Client]:
    bridge = cluster.bridges[0]
    clients = [Client(f"ws://127.0.0.1:{bridge.port}/ws", bridge.url) for _ in range(SESSIONS)]
    for client in clients:
        client.create("counter", key="c")
    return clients


def commits_of_records(cluster: Cluster, clients: list[Client]) -> tuple[int, int]:
    """(records, the transactions that wrote them): rows one commit wrote share its `xmin`."""
    ids = ", ".join(f"'{client.session}'" for client in clients)
    found = cluster.postgres.psql(
        f"SELECT count(*), count(DISTINCT xmin::text) FROM fusion_records WHERE session_id IN ({ids}) AND record LIKE '%sendBy%'")
    records, transactions = found.split("|")
    return int(records), int(transactions)


def test_inputs_that_wait_on_a_connection_share_a_commit_and_each_lands_once(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(1, FAST)
    clients = open_counters(cluster)
    replies = burst(clients, set())
    assert all(reply["type"] == "ok" for reply in replies.values()), [r for r in replies.values() if r["type"] != "ok"][:3]
    records, transactions = commits_of_records(cluster, clients)
    assert records == SESSIONS * INPUTS
    # Sent one by one, the 300 inputs would take 300 commits.
    assert transactions < records / 2, f"{records} records took {transactions} commits: they were not batched"
    # Each landed once: a replay from the database gives every counter its ten.
    bridge = cluster.bridges[0]
    for client in clients:
        client.close()
    for client in clients:
        again = Client(f"ws://127.0.0.1:{bridge.port}/ws", bridge.url, session=client.session)
        assert again.next("state", instance="c")["state"]["value"] == INPUTS
        again.close()


def test_a_record_the_database_refuses_fails_alone_not_the_batch_it_came_in(make_cluster: Callable[..., Cluster]) -> None:
    cluster = make_cluster(1, FAST)
    # The database refuses the records of a few messages (a trigger; in life: a record for
    # an instance deleted meanwhile, which breaks its foreign key).
    refused = {"s3.4", "s11.2", "s20.7"}
    pattern = "|".join(id_.replace(".", "[.]") for id_ in refused)
    cluster.postgres.psql(f"""
        CREATE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.record ~ '"id":"({pattern})"' THEN RAISE EXCEPTION 'refused by the test'; END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER refuse_marked BEFORE INSERT ON fusion_records FOR EACH ROW EXECUTE FUNCTION refuse_marked();
    """)
    clients = open_counters(cluster)
    replies = burst(clients, refused)
    failed = {id_ for id_, reply in replies.items() if reply["type"] != "ok"}
    assert failed == refused, f"refused {sorted(failed)}, expected only {sorted(refused)}: {[replies[i] for i in sorted(failed - refused)][:3]}"
    for id_ in refused:
        assert replies[id_]["status"] == "BRIDGE_JOURNAL_FAILURE", replies[id_]
    # A batch met the refusal (the server logged the refused statement) and was written
    # again a record at a time: only the marked records failed.
    log = (cluster.postgres.folder / "server.log").read_text()
    assert "unnest" in log and "refused by the test" in log, "no batch met a refusal: the test proved nothing"
    # Each session holds what landed, and goes on from there.
    bridge = cluster.bridges[0]
    for index, client in enumerate(clients):
        client.close()
        again = Client(f"ws://127.0.0.1:{bridge.port}/ws", bridge.url, session=client.session)
        expected = INPUTS - sum(1 for id_ in refused if id_.startswith(f"s{index}."))
        assert again.next("state", instance="c")["state"]["value"] == expected, f"session {index}"
        assert again.call(type="send", instance="c", input="increase")[0]["type"] == "ok"
        again.close()
