"""What each results file's figures depend on: the paths whose change makes them stale.
One place; Benchmarks/report/freshness.py checks every file of Benchmarks/results
against it, and a results file missing here fails that check.

A path is a folder or a file of the checkout, as `git log -- PATH` takes it. Each list
holds the code the benchmark exercises (the library's sources, the front end it drives),
the benchmark's own program, and what builds them; not the renderers (a renderer's
change is seen by Tests/docs/test_measured_blocks.py)."""
from __future__ import annotations

#: The example library as every benchmark loads it (libFusionExamples.so), and its C ABI.
#: Package.swift too: its build settings (optimization, the dropped _StringProcessing import)
#: change every program built from it.
LIBRARY = ("Sources/FusionKit", "Sources/FusionABI", "Sources/FusionJSON", "Sources/FusionExamples",
           "Sources/CFusionKit", "Sources/CFusionLimits", "include", "Package.swift")
#: `fusion serve`: the bridge, the host it loads the library through, and what the handshake
#: and a crash run (sign-in, the fatal-signal handler), linked into every bridge.
BRIDGE = (*LIBRARY, "Sources/FusionWeb", "Sources/FusionHost", "Sources/CFFI", "Sources/CFileSync",
          "Sources/FusionAuth", "Sources/CFatalSignal", "Sources/fusion")
#: The crash journal as the Python package writes and replays it.
PYTHON = (*LIBRARY, "bindings/python/fusionkit")

#: results file -> the paths its figures depend on.
DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "fusion-bench.json": (*LIBRARY, "Benchmarks/fusion-bench", "Benchmarks/heap-probe", "Benchmarks/start"),
    "python-bench.json": (*PYTHON, "bindings/python/bench.py"),
    "java-bench.json": (*LIBRARY, "bindings/java", "Benchmarks/java"),
    "web-load.json": (*BRIDGE, "Benchmarks/web-load"),
    # The smoke run's load on the tests' debug build: the regression guard's reference.
    "web-load-guard.json": (*BRIDGE, "Benchmarks/web-load"),
    "time-travel.json": (*LIBRARY, "Benchmarks/time-travel"),
    # The page both ways: the bridge and the page's client, the module's runtime and build,
    # the demo pages it loads.
    # The native library now against the one before issue 37 (built from a fixed commit).
    "baseline.json": (*PYTHON, "Benchmarks/baseline"),
    "page-bench.json": (*BRIDGE, "Wasm", "bindings/web", "examples/web", "Benchmarks/page"),
    # The example module run in WasmKit beside the native library, and the bridge serving it.
    "sandbox-bench.json": (*BRIDGE, "Sources/FusionSandbox", "Wasm", "Benchmarks/sandbox", "Benchmarks/sandbox-bench",
                           "Benchmarks/web-load", "Benchmarks/heap-probe"),
    "journal-cost.json": (*PYTHON, "Benchmarks/journal/cost.py"),
    "clock-records.json": (*PYTHON, "Benchmarks/journal/clock_records.py"),
    "group-commit.json": (*BRIDGE, "Benchmarks/journal/group_commit.py", "Benchmarks/web-load"),
    "cluster-load.json": (*BRIDGE, "Sources/FusionJournalPostgres", "deploy", "Benchmarks/cluster",
                          "Benchmarks/web-load"),
    # The fuzzing, the sanitizers and the soak: the code they run (the library, the bridge's
    # handshake), the fuzz targets, the C programs, the sanitizer settings and the scripts.
    # Its CI-time figure also grows with every test added; tying it to all of Tests would
    # ask for a 25-minute run with every commit, so it ages with the scripts that run CI.
    "reliability.json": (*BRIDGE, "Tests/fuzz", "Tests/abi", "Tests/sanitizers", "scripts/test-reliability",
                         "scripts/test", ".ci", "Benchmarks/reliability"),
}

#: How to measure them again (and render the docs from them).
REMEASURE: dict[str, str] = {
    "reliability.json": "scripts/test-reliability, then copy .build-fuzz/reliability.json to Benchmarks/results "
                        "and run python3 Benchmarks/report/render.py (.ci/run records scripts/test's time too)",
}
REMEASURE_DEFAULT = "scripts/bench (every benchmark, release builds; rewrites Benchmarks/results and the docs)"
