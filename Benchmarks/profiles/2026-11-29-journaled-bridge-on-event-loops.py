#!/usr/bin/env python3
"""Two builds of `fusion serve` side by side at the cluster benchmark's latency load: no
journal, a file journal and a PostgreSQL journal, alternating within each round, then
pgbench alone (Benchmarks/profiles/2026-11-29-journaled-bridge-on-event-loops.md).

    python3 Benchmarks/profiles/2026-11-29-journaled-bridge-on-event-loops.py ROUNDS BEFORE_FUSION AFTER_FUSION

Prints one JSON line per round: each variant's (p50, p99) in ms."""
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "cluster"))
import cluster_load as cl  # noqa: E402
from serve_load import run_once  # noqa: E402

rounds = int(sys.argv[1])
binaries = {"base": sys.argv[2], "new": sys.argv[3]}
lib = str(ROOT / ".build/x86_64-unknown-linux-gnu/release/libFusionExamples.so")
loader = str(ROOT / ".build/bench/web_load")
out = []
with tempfile.TemporaryDirectory(prefix="ab-") as folder:
    scratch = Path(folder)
    pg = cl.deployment.Postgres(scratch / "postgres")
    try:
        for r in range(rounds):
            row = {}
            order = ["base", "new"] if r % 2 == 0 else ["new", "base"]
            for name in order:
                for mode in ("none", "file", "postgres"):
                    flags = cl.FAST
                    if mode == "file":
                        flags += ("--journal", str(scratch / f"j-{name}-{r}"))
                    if mode == "postgres":
                        flags += ("--journal", pg.url)
                    m, _ = run_once(binaries[name], loader, lib, 100, 100, 50, flags)
                    row[f"{name}-{mode}"] = (round(m["okP50Ms"], 3), round(m["okP99Ms"], 3))
            pa = cl.postgres_alone(pg, 1000, 5)
            row["pgbench"] = (round(pa["p50Ms"], 3), round(pa["p99Ms"], 3))
            for name in ("base", "new"):
                add = row[f"{name}-postgres"][0] - row[f"{name}-none"][0]
                row[f"{name}-pg-add-p50"] = round(add, 3)
            print(json.dumps(row), flush=True)
            out.append(row)
    finally:
        pg.remove()
