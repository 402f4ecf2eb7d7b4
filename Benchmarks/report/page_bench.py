"""The page-bench block of docs/performance.md, from Benchmarks/results/page-bench.json
(Benchmarks/page/run.py): the page's round trip with the feature in the page as
WebAssembly beside the same page over the bridge on loopback, in headless Chromium; the
module's size; the time from navigation to the first state drawn. Each target decided
over every run."""
from __future__ import annotations

from typing import Any

from figures import column, median, paired, sig, times
from verdicts import judge, judged

DOCUMENT, BLOCK, RESULTS = "docs/performance.md", "page-bench", "page-bench.json"

ROWS = (
    ("Counter: `send(\"increase\")`", "counter"),
    ("Wi-Fi: `infoButtonTapped` then `destinationDismissed`, in turn (no live scan)", "wifi"),
)
#: The in-page round trip at least this many times faster than the bridge's.
FASTER = 20
#: The module's most, gzip-compressed (KB of 1,000 bytes, as the issue counts them).
GZIP_MOST_KB = 400


def us(value: float) -> str:
    return f"{sig(value)} µs"


def kb(value: float) -> str:
    return f"{sig(value / 1000)} KB"


def render(raw: dict[str, Any]) -> str:
    runs: list[dict[str, Any]] = raw["runs"]
    last = runs[-1]
    machine, module = raw["machine"], raw["module"]
    lines = [
        f"Measured {raw['measured']} on {machine['cpu']}, {machine['cores']} cores, headless Chromium "
        f"{machine['chromium']}, release builds: `Benchmarks/page/run.py`, {len(runs)} run{'s' if len(runs) > 1 else ''}, each a fresh "
        f"`fusion serve` and Chromium, {len(last['rounds'])} interleaved rounds of {raw['perRound']:,} sends per "
        "workload, each send awaited until its state is in the page (`await instance.send(…)`); the table is the "
        "last run's. Times are medians over the rounds; ratios are medians of the ratios within each round.",
        "",
        "| round trip in the page | over the bridge (loopback) | in the page (WebAssembly) | in the page is |",
        "|---|---|---|---|",
    ]
    for label, name in ROWS:
        bridge, wasm = column(last, f"bridge-{name}"), column(last, f"wasm-{name}")
        lines.append(f"| {label} | {us(median(bridge))} | {us(median(wasm))} | "
                     f"{times(paired(bridge, wasm))} faster |")
    first = last["firstStateMilliseconds"]
    lines += [
        "",
        f"The module, `{module['name']}`: {kb(module['bytes'])} ({module['bytes']:,} bytes), "
        f"{kb(module['gzipBytes'])} compressed with gzip -9. From navigation to counter.html's first state "
        f"drawn ({len(first['wasm'])} loads each way, the last run): {sig(median(first['wasm']))} ms in the page "
        f"(fetching and compiling the module included; the first load {sig(first['wasm'][0])} ms), "
        f"{sig(median(first['bridge']))} ms over the bridge.",
        "",
    ]
    for label, name in ROWS:
        per_run = [paired(column(run, f"bridge-{name}"), column(run, f"wasm-{name}")) for run in runs]
        lines.append(f"- {label.split(':')[0]} round trip, in the page against over the bridge: "
                     f"{', '.join(times(r) for r in per_run)} (run by run); target at least {FASTER}× in every "
                     f"run: {judge(per_run, lambda r: r >= FASTER)}.")
    gzip_kb = module["gzipBytes"] / 1000
    lines.append(f"- The example module, gzip: {kb(module['gzipBytes'])}; target at most {GZIP_MOST_KB} KB: "
                 f"{judged([gzip_kb <= GZIP_MOST_KB], 'builds')}.")
    return "\n".join(lines)
