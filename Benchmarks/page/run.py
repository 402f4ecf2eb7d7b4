#!/usr/bin/env python3
"""The page's round trip with the feature in the page (WebAssembly) beside the same page
over the bridge on loopback, in headless Chromium; the module's size; the time to the
first state drawn.

Each run starts `fusion serve` (which serves the demo pages and the module beside them)
and a fresh headless Chromium. In a page of the bridge's origin, fusionkit.js connects
both ways, `connect()` and `connect({wasm})`, and makes a Counter and a Wi-Fi instance on
each. Then, round after round, each of the four sends a block of inputs one after the
other, each awaited until its state is here (`await instance.send(…)`), and the block is
timed as a whole: a page's clock is coarsened (100 µs without cross-origin isolation), so
one send is too short to time alone. The order of the four alternates between rounds.
Then the demo page counter.html is loaded afresh, several times each way, and the time
from navigation to its first state drawn is read (the mark common.js sets).

    Benchmarks/page/run.py --fusion .build/release/fusion --library .build/release/libFusionExamples.so
        --module .build/wasm/FusionExamples.wasm [--runs 3] [--rounds 21] [--per-round 400]
        [--loads 10] [--results FILE]

The samples go to --results (Benchmarks/results/page-bench.json), from which
Benchmarks/report/page_bench.py renders the block of docs/performance.md.
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks" / "report"))

import results  # noqa: E402

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
#: The module's URL, where the demo pages load it from (scripts/build-wasm copies it there).
MODULE_URL = "/FusionExamples.wasm"
#: What each workload sends, in turn: every input changes the state.
WORKLOADS: dict[str, tuple[str, dict[str, Any] | None, list[Any]]] = {
    "counter": ("counter", None, ["increase"]),
    "wifi": ("wifi", {"settings": {"liveScan": False}}, [{"infoButtonTapped": {"id": "blob"}}, "destinationDismissed"]),
}
TRANSPORTS = ("bridge", "wasm")

#: Runs in the page: connects both ways and makes each workload's instance (window.bench).
SETUP = """
const [moduleURL, workloads, warmUp, done] = arguments;
(async () => {
    const { connect } = await import("/fusionkit.js");
    const bridges = { bridge: await connect(undefined, { storage: null }), wasm: await connect({ wasm: moduleURL, storage: null }) };
    const instances = {};
    for (const [transport, bridge] of Object.entries(bridges)) {
        for (const [name, [feature, options, inputs]] of Object.entries(workloads)) {
            const instance = await bridge.create(feature, options ? { options } : {});
            for (let i = 0; i < warmUp; i++) await instance.send(inputs[i % inputs.length]);
            instances[`${transport}-${name}`] = { instance, inputs };
        }
    }
    window.bench = { bridges, instances };
})().then(() => done(null), (error) => done(String(error && error.stack || error)));
"""

#: Runs in the page: one block of sends per workload named, in that order; µs per send.
BLOCK = """
const [names, count, done] = arguments;
(async () => {
    const perSend = {};
    for (const name of names) {
        const { instance, inputs } = window.bench.instances[name];
        const started = performance.now();
        for (let i = 0; i < count; i++) await instance.send(inputs[i % inputs.length]);
        perSend[name] = (performance.now() - started) * 1000 / count;
    }
    return perSend;
})().then(done, (error) => done({ error: String(error && error.stack || error) }));
"""


def start_bridge(fusion: Path, library: Path) -> tuple[subprocess.Popen[str], str]:
    # One page sends thousands of inputs a second here: the per-connection limit is lifted.
    process = subprocess.Popen([str(fusion), "serve", "--port", "0", "--max-messages-per-second", "1000000", str(library)],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    assert process.stdout is not None
    line = process.stdout.readline()
    if "Serving" not in line:
        process.kill()
        raise SystemExit(f"fusion serve did not start: {line!r}")
    return process, line.split(" at ")[1].split()[0]


def start_chromium() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(300)
    return driver


def first_state_ms(driver: Any, url: str) -> float:
    """Loads the page in a new tab and returns when it drew its first state (ms after
    navigation began)."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.switch_to.new_window("tab")
    driver.get(url)
    WebDriverWait(driver, 30, poll_frequency=0.02).until(
        lambda d: d.execute_script("return document.body && document.body.dataset.ready") == "true")
    mark = driver.execute_script(
        "const marks = performance.getEntriesByName('fusionkit:first-state'); return marks.length ? marks[0].startTime : null")
    driver.close()
    driver.switch_to.window(driver.window_handles[0])
    if mark is None:
        raise SystemExit(f"{url} drew no first state mark")
    return float(mark)


def one_run(args: argparse.Namespace) -> dict[str, Any]:
    process, url = start_bridge(args.fusion, args.library)
    driver = start_chromium()
    try:
        driver.get(url + "index.html?transport=bridge")
        workloads = {name: list(spec) for name, spec in WORKLOADS.items()}
        failed = driver.execute_async_script(SETUP, MODULE_URL, workloads, args.warm_up)
        if failed:
            raise SystemExit(f"the page could not set up: {failed}")
        names = [f"{transport}-{name}" for name in WORKLOADS for transport in TRANSPORTS]
        rounds = []
        for index in range(args.rounds):
            order = names if index % 2 == 0 else list(reversed(names))
            block = driver.execute_async_script(BLOCK, order, args.per_round)
            if "error" in block:
                raise SystemExit(f"a round failed: {block['error']}")
            rounds.append(block)
        driver.execute_script("for (const bridge of Object.values(window.bench.bridges)) bridge.close()")
        first_state = {transport: [first_state_ms(driver, f"{url}counter.html?transport={transport}&seed={n}")
                                   for n in range(args.loads)] for transport in TRANSPORTS}
        version = driver.capabilities.get("browserVersion", "unknown")
    finally:
        driver.quit()
        process.terminate()
        process.wait(timeout=10)
    return {"rounds": rounds, "firstStateMilliseconds": first_state, "chromium": version}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fusion", type=Path, required=True)
    parser.add_argument("--library", type=Path, required=True)
    parser.add_argument("--module", type=Path, required=True, help="the example module (scripts/build-wasm's output)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--per-round", type=int, default=400)
    parser.add_argument("--warm-up", type=int, default=500)
    parser.add_argument("--loads", type=int, default=10)
    parser.add_argument("--results", type=Path, help="keep every run's samples in this JSON file")
    args = parser.parse_args()
    served = ROOT / "examples/web" / args.module.name
    if not served.exists() or served.read_bytes() != args.module.read_bytes():
        shutil.copyfile(args.module, served)  # the pages load the module from their folder
    module = args.module.read_bytes()
    runs = [one_run(args) for _ in range(args.runs)]
    raw: dict[str, Any] = {
        "benchmark": "page-bench",
        "measured": results.measured_now(),
        "machine": {"cpu": results.cpu_model(), "cores": os.cpu_count() or 1, "chromium": runs[0]["chromium"]},
        "module": {"name": args.module.name, "bytes": len(module), "gzipBytes": len(gzip.compress(module, 9))},
        "perRound": args.per_round,
        "workloads": {name: {"feature": spec[0], "options": spec[1], "inputs": spec[2]} for name, spec in WORKLOADS.items()},
        "runs": runs,
    }
    if args.results:
        results.keep(args.results, raw)


if __name__ == "__main__":
    main()
