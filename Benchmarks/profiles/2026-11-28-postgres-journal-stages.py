"""Where the PostgreSQL journal's `ok` time goes (2026-11-28-postgres-journal-stages.md):
the cluster benchmark's load on one `fusion serve` without and with the PostgreSQL
journal, then pgbench alone at the same rate, each round; the bridge built with the
stage timers of 2026-11-28-postgres-journal-stages.patch prints each stage's percentiles
on stderr (lines starting STAGE), which this prints beside the loader's figures.

    python3 Benchmarks/profiles/2026-11-28-postgres-journal-stages.py [ROUNDS]
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "deploy"), str(ROOT / "Benchmarks/cluster")]
import cluster as deployment  # noqa: E402
import cluster_load  # noqa: E402

RELEASE = ROOT / ".build/x86_64-unknown-linux-gnu/release"
FUSION, LIBRARY, LOADER = str(RELEASE / "fusion"), str(RELEASE / "libFusionExamples.so"), str(ROOT / ".build/bench/web_load")


def once(flags: list[str]) -> dict[str, float]:
    server = subprocess.Popen([FUSION, "serve", LIBRARY, "--port", "0", "--max-sessions", "400", *flags],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None
    found = re.search(r":(\d+)/", server.stdout.readline())
    assert found, "fusion serve did not start"
    loaded = subprocess.run([LOADER, "--port", found.group(1), "--server-pid", str(server.pid), "--library", LIBRARY,
                             "--sessions", "100", "--inputs", "50", "--interval-ms", "100", "--seconds", "120",
                             "--wait", "sleep"], capture_output=True, text=True, check=True)
    server.terminate()
    _, errors = server.communicate(timeout=30)
    for line in errors.splitlines():
        if "STAGE" in line:
            print("   ", line)
    measured: dict[str, float] = json.loads(loaded.stdout)
    return measured


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    with tempfile.TemporaryDirectory() as folder:
        postgres = deployment.Postgres(Path(folder) / "postgres")
        try:
            for _ in range(rounds):
                for name, flags in (("none", []), ("postgres", ["--journal", postgres.url])):
                    measured = once([*cluster_load.FAST, *flags])
                    print(name, {key: measured[key] for key in ("okP50Ms", "okP99Ms", "inputsPerSecond")})
                print("pgbench", cluster_load.postgres_alone(postgres, 1000, 5))
        finally:
            postgres.stop()


if __name__ == "__main__":
    main()
