#!/usr/bin/env python3
"""Benchmark (not a test): what keeping sessions in PostgreSQL costs, and how fast a
client is back after its bridge dies (docs/deploy.md).

1. Latency at a fixed load: one `fusion serve` with no journal, with the file journal
   (`--journal DIR`) and with the PostgreSQL journal (`--journal postgres://…`, a
   throwaway server on loopback), in alternating runs of the same build; --sessions
   sessions each send an input every --interval-ms (1,000 inputs per second by
   default) through Benchmarks/web-load/web_load.c. Input-to-`ok` p50 and p99.
   Beside them, PostgreSQL alone: pgbench sending the journal's own INSERT (with its
   fence) at the same rate over as many connections as a bridge keeps, the floor the
   database's commits put under the journal's latency on this machine; and the disk
   alone: a write and fdatasync at the same rate, the floor under every journal.
2. Capacity: the same bridge on PostgreSQL with every session sending as fast as its oks
   come back (inputs per second one bridge sustains), the memory of an idle session, and
   the database's transactions per input (pg_stat_database).
3. Failover: a cluster (deploy/cluster.py: PostgreSQL, three bridges, nginx); a client's
   bridge is killed with SIGKILL, and the time until the client, rejoining through nginx
   every 20 ms, holds its state again is taken, --kills times.

Every sample goes to --results (Benchmarks/results/cluster-load.json), from which
Benchmarks/report renders the blocks of docs/performance.md and docs/deploy.md.

    Benchmarks/cluster/cluster_load.py --fusion .build/release/fusion --loader .build/bench/web_load \\
        --library .build/release/libFusionExamples.so [--runs 3] [--kills 5] [--results FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import websocket

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))
sys.path.insert(0, str(ROOT / "Benchmarks" / "web-load"))
sys.path.insert(0, str(ROOT / "deploy"))

import cluster as deployment  # noqa: E402
import cluster_load  # noqa: E402
import results  # noqa: E402
from serve_load import run_once  # noqa: E402

MODES = ("none", "file", "postgres")
#: The connections a bridge keeps for its journals (PostgresSessionStore's default), which
#: pgbench uses too.
BRIDGE_CONNECTIONS = 2
FAST = ("--max-messages-per-second", "100000")


def commits(postgres: deployment.Postgres) -> int:
    return int(postgres.psql("SELECT xact_commit FROM pg_stat_database WHERE datname = 'fusion'"))


def latency_runs(args: argparse.Namespace, postgres: deployment.Postgres, scratch: Path) -> dict[str, list[dict[str, Any]]]:
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in (*MODES, "postgres-alone", "disk-alone")}
    for run in range(args.runs):
        for mode in MODES:
            flags: tuple[str, ...] = FAST
            if mode == "file":
                flags += ("--journal", str(scratch / f"journals-{run}"))
            elif mode == "postgres":
                flags += ("--journal", postgres.url)
            measured, _ = run_once(args.fusion, args.loader, args.library, args.sessions, args.interval_ms, args.inputs, flags)
            print(mode, {k: measured[k] for k in ("inputsPerSecond", "okP50Ms", "okP99Ms", "errors")}, file=sys.stderr)
            runs[mode].append(measured)
        rate = args.sessions * 1000 // max(1, args.interval_ms)
        seconds = max(1, round(args.inputs * args.interval_ms / 1000))
        runs["postgres-alone"].append(postgres_alone(postgres, rate, seconds))
        print("postgres alone", runs["postgres-alone"][-1], file=sys.stderr)
        runs["disk-alone"].append(disk_alone(scratch, rate, seconds))
        print("disk alone", runs["disk-alone"][-1], file=sys.stderr)
    return runs


PGBENCH_SCRIPT = """\\set seq random(1, 1000000000000)
INSERT INTO fusion_records (session_id, instance, seq, record)
SELECT id, 1, :seq, '{"sendBy":{"id":"a1b2c3d4.1","input":"increase"}}' FROM fusion_sessions
WHERE id = 'pgbench' AND epoch = 1 FOR SHARE RETURNING session_id;
"""


def postgres_alone(postgres: deployment.Postgres, rate: int, seconds: int) -> dict[str, Any]:
    """pgbench: the journal's INSERT at `rate` per second over a bridge's count of
    connections; the latency of each transaction, as pgbench logs it."""
    postgres.psql("INSERT INTO fusion_sessions (id, epoch, holder) VALUES ('pgbench', 1, 'pgbench') ON CONFLICT DO NOTHING")
    postgres.psql("INSERT INTO fusion_instances VALUES ('pgbench', 1, '{}') ON CONFLICT DO NOTHING")
    folder = postgres.folder / "pgbench"
    folder.mkdir(exist_ok=True)
    (folder / "insert.sql").write_text(PGBENCH_SCRIPT)
    if postgres.user:
        os.system(f"chown -R {postgres.user} {folder}")
    for old in folder.glob("log*"):
        old.unlink()
    # Prepared, as the journal's is (once per connection).
    postgres.run("pgbench", "-h", "127.0.0.1", "-p", str(postgres.port), "-U", "fusion", "-n", "-M", "prepared",
                 "-f", str(folder / "insert.sql"),
                 "-c", str(BRIDGE_CONNECTIONS), "-j", "1", "-R", str(rate), "-T", str(seconds), "-l", f"--log-prefix={folder}/log", "fusion")
    latencies = sorted(int(line.split()[2]) / 1000 for log in folder.glob("log*") for line in log.read_text().splitlines())
    postgres.psql("DELETE FROM fusion_sessions WHERE id = 'pgbench'")
    return {"transactions": len(latencies), "p50Ms": latencies[len(latencies) // 2],
            "p99Ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]}


def disk_alone(folder: Path, rate: int, seconds: int) -> dict[str, Any]:
    """The disk under every journal here: a 512-byte write and fdatasync at `rate` per
    second into a file made beforehand (as PostgreSQL's WAL is), each timed from when it
    was due, or from when it began if the one before finished in time: a stall delays the
    writes behind it, as it delays a journal's inputs."""
    path = folder / "disk-alone"
    total = rate * seconds
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    latencies = []
    try:
        os.posix_fallocate(fd, 0, 512 * total)
        os.fsync(fd)
        block = b"\x01" * 512
        start = finished = time.perf_counter()
        for n in range(total):
            due = start + n / rate
            if finished < due:
                time.sleep(max(0.0, due - time.perf_counter()))
                began = time.perf_counter()
            else:
                began = due
            os.pwrite(fd, block, 512 * n)
            os.fdatasync(fd)
            finished = time.perf_counter()
            latencies.append((finished - began) * 1000)
    finally:
        os.close(fd)
        path.unlink()
    latencies.sort()
    return {"syncs": total, "p50Ms": round(latencies[total // 2], 4), "p99Ms": round(latencies[int(total * 0.99)], 4),
            "maxMs": round(latencies[-1], 4)}


def capacity_runs(args: argparse.Namespace, postgres: deployment.Postgres) -> list[dict[str, Any]]:
    found = []
    for _ in range(args.runs):
        before = commits(postgres)
        measured, _ = run_once(args.fusion, args.loader, args.library, args.sessions, 0, args.inputs,
                               FAST + ("--journal", postgres.url))
        # The statistics collector reports a moment late: wait until the count settles.
        time.sleep(1.0)
        measured["databaseCommits"] = commits(postgres) - before
        print("capacity", {k: measured[k] for k in ("inputsPerSecond", "okP99Ms", "databaseCommits")}, file=sys.stderr)
        found.append(measured)
    return found


def rejoin(url: str, origin: str, session: str, value: int, deadline: float) -> None:
    """Until the session's Counter shows `value` on a fresh socket through nginx."""
    while time.monotonic() < deadline:
        try:
            ws = websocket.create_connection(url, origin=origin, timeout=2,
                                        subprotocols=["fusion", f"fusion.session.{session}"])
            try:
                welcome = json.loads(ws.recv())
                if welcome.get("session") == session and welcome.get("resumed"):
                    while True:
                        message = json.loads(ws.recv())
                        if message.get("type") == "state" and message.get("instance") == "c":
                            if message["state"]["value"] == value:
                                return
                            break
            finally:
                ws.close()
        except (OSError, websocket.WebSocketException, ValueError):
            pass
        time.sleep(0.02)
    raise SystemExit(f"session {session} was not back within the deadline")


def failover_samples(args: argparse.Namespace, scratch: Path) -> list[float]:
    os.environ["FUSION"] = args.fusion
    os.environ["FUSIONKIT_LIB"] = args.library
    cluster = deployment.Cluster(3, folder=scratch / "cluster")
    url = cluster.url.replace("http://", "ws://") + "/ws"
    samples = []
    try:
        for _ in range(args.kills):
            ws = websocket.create_connection(url, origin=cluster.url, timeout=5)
            session = json.loads(ws.recv())["session"]
            ws.send(json.dumps({"type": "create", "id": 1, "feature": "counter", "key": "c"}))
            for number in range(3):
                ws.send(json.dumps({"type": "send", "id": f"i{number}", "instance": "c", "input": "increase"}))
            oks = 0
            while oks < 3:
                message = json.loads(ws.recv())
                oks += message.get("type") == "ok" and str(message.get("re", "")).startswith("i")
            holder = cluster.postgres.psql(f"SELECT holder FROM fusion_sessions WHERE id = '{session}'")
            victim = next(b for b in cluster.bridges if holder.endswith(f"port {b.port}"))
            start = time.monotonic()
            victim.signal(9)
            ws.close()
            rejoin(url, cluster.url, session, 3, start + 30)
            samples.append(time.monotonic() - start)
            now = cluster.postgres.psql(f"SELECT holder FROM fusion_sessions WHERE id = '{session}'")
            print("back after", samples[-1], "from", holder, "on", now, file=sys.stderr)
            victim.wait()
            victim.start()
    finally:
        cluster.stop()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fusion", required=True)
    parser.add_argument("--loader", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--interval-ms", type=int, default=100, help="between one session's inputs")
    parser.add_argument("--inputs", type=int, default=50, help="inputs per session")
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--results", type=Path, help="keep every sample in this JSON file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fusion-cluster-load-") as folder:
        scratch = Path(folder)
        postgres = deployment.Postgres(scratch / "postgres")
        try:
            runs = latency_runs(args, postgres, scratch)
            capacity = capacity_runs(args, postgres)
        finally:
            postgres.remove()
        failover = failover_samples(args, scratch)
    raw: dict[str, Any] = {
        "benchmark": "cluster-load",
        "measured": results.measured_now(),
        "machine": {"cores": os.cpu_count(), "cpu": results.cpu_model()},
        "sessions": args.sessions,
        "intervalMs": args.interval_ms,
        "inputsPerSession": args.inputs,
        "runs": runs,
        "postgresConnections": BRIDGE_CONNECTIONS,
        "capacity": capacity,
        "failoverSeconds": failover,
    }
    for _, _, names, render in cluster_load.BLOCKS:
        if names == cluster_load.RESULTS:  # the capacity block reads web-load.json too: render.py writes it
            print(render(raw))
    if args.results:
        results.keep(args.results, raw)


if __name__ == "__main__":
    main()
