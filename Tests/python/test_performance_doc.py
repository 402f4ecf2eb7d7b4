"""docs/performance.md stays true: measured numbers live only in the blocks the benchmarks
write, and each block's verdict sentences agree with its own table."""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "performance.md"
BLOCKS = ("fusion-bench", "python-bench", "web-load")
# A number with the unit of something measured: a time, a ratio, a size, a share.
MEASURED = re.compile(r"\d[\d,.]*\s*(?:µs|ns|ms|×|B\b|KiB|MiB|GiB|%|instructions)")


def block(text: str, name: str) -> str:
    match = re.search(f"<!-- {name}:begin -->(.*?)<!-- {name}:end -->", text, flags=re.S)
    assert match, f"no {name} block"
    return match.group(1)


def prose(text: str) -> str:
    for name in BLOCKS:
        text = re.sub(f"<!-- {name}:begin -->.*?<!-- {name}:end -->", "", text, flags=re.S)
    return text


def micros(cell: str) -> float:
    number, unit = cell.split()
    return float(number) * {"ns": 1e-3, "µs": 1.0, "ms": 1e3}[unit]


def test_no_measured_number_outside_the_benchmarks_blocks() -> None:
    found = [line for line in prose(DOC.read_text()).splitlines() if MEASURED.search(line)]
    assert found == [], "measured numbers outside the blocks the benchmarks write (they go stale):\n" + "\n".join(found)


def test_the_check_would_catch_stale_prose() -> None:
    stale = "<!-- python-bench:begin -->\n| a | 1.29 µs |\n<!-- python-bench:end -->\nSo it loses by about 1.6×."
    assert MEASURED.search(prose(stale))
    assert not MEASURED.search(prose(stale.replace("about 1.6×", "a little")))


def python_verdicts(text: str) -> dict[str, tuple[float, list[float], bool]]:
    """Each target's sentence in the python-bench block: (the last run's ratio, every
    run's ratio, whether it says met)."""
    found = {}
    for key, pattern in (
        ("plain", r"round trip, JSON in and JSON out, is ([\d.]+)× faster"),
        ("floor", r"costs ([\d.]+)× one bare ctypes call"),
        ("dict", r"`send_and_read` is ([\d.]+)× faster"),
    ):
        match = re.search(pattern + r"[^\n]*?; per run: ([^;]+); target [^:]+: (met|NOT met)\.", text)
        assert match, f"no verdict sentence for {key}"
        runs = [float(value.rstrip("×")) for value in match.group(2).split(", ")]
        found[key] = (float(match.group(1)), runs, match.group(3) == "met")
    return found


def test_python_verdicts_agree_with_the_python_table() -> None:
    text = block(DOC.read_text(), "python-bench")
    cells = {}
    for label, key in (("JSON in and out", "package"), ("the state as a dict", "dict"),
                       ("one ctypes call", "call"), ("plain Python Counter", "plain")):
        row = next(line for line in text.splitlines() if line.startswith("|") and label in line)
        time, plain_is, calls = (cell.strip() for cell in row.split("|")[2:5])
        cells[key] = (micros(time), float(plain_is.removesuffix("× that")), float(calls))
    verdicts = python_verdicts(text)
    # The tables are the last run's: the ratios stated are the table's (each the median of
    # the per-round ratios), and the last run listed is that run.
    for key, shown in (("plain", cells["package"][1]), ("floor", cells["package"][2]), ("dict", cells["dict"][1])):
        stated, runs, _ = verdicts[key]
        assert stated == shown, key
        assert runs[-1] == stated, key
    # Against themselves, the baselines are 1.
    assert cells["plain"][1] == 1.0 and cells["call"][2] == 1.0
    # Paired ratios and ratios of medians measure the same thing; they part only by noise.
    assert 0.7 < cells["package"][0] / cells["call"][0] / cells["package"][2] < 1.4


def test_python_targets_are_decided_from_every_run() -> None:
    text = block(DOC.read_text(), "python-bench")
    verdicts = python_verdicts(text)
    runs = re.search(r"(\d+) consecutive runs", text)
    count = int(runs.group(1)) if runs else 1
    targets: tuple[tuple[str, Callable[[float], bool]], ...] = (
        ("plain", lambda ratio: ratio >= 3), ("floor", lambda ratio: ratio <= 1.3), ("dict", lambda ratio: ratio >= 2))
    for key, good in targets:
        _, listed, met = verdicts[key]
        assert len(listed) == count, key
        assert met == all(good(ratio) for ratio in listed), key


def test_scripts_bench_writes_five_python_runs() -> None:
    assert "bindings/python/bench.py --runs 5 --write" in (ROOT / "scripts" / "bench").read_text()


def test_fusion_bench_verdicts_agree_with_their_tables() -> None:
    text = block(DOC.read_text(), "fusion-bench")
    scaling = re.search(r"\| two threads, one instance each \| [\d,]+ inputs \| ([\d.]+)× \|", text)
    assert scaling
    verdict = re.search(r"Two threads on two instances: ([\d.]+)× the one-thread rate.*target at least 1\.6×: (met|NOT met)",
                        text)
    assert verdict and verdict.group(1) == scaling.group(1)
    assert (verdict.group(2) == "met") == (float(scaling.group(1)) >= 1.6)
    heap = re.search(r"\| created through the C ABI[^|]*\| [\d,]+ B \| ([\d,]+) B \|", text)
    memory = re.search(r"Per instance through the C ABI: ([\d,]+) B of heap \(target at most 1,000 B: (met|NOT met)\)", text)
    assert heap and memory and heap.group(1) == memory.group(1)
    assert (memory.group(2) == "met") == (int(heap.group(1).replace(",", "")) <= 1000)
    start = re.search(r"\| a host's load: [^|]*\| [^|]* \| ([\d.]+)× \|", text)
    start_verdict = re.search(r"a host's load \([^)]*\) costs ([\d.]+)× loading libswiftCore alone; target at most 2×: (met|NOT met)",
                              text)
    assert start and start_verdict and start.group(1) == start_verdict.group(1)
    assert (start_verdict.group(2) == "met") == (float(start.group(1)) <= 2)
    for label, words in (("the first Counter", "The first Counter round trip after it costs"),
                         ("the whole manifest", "reading the whole manifest, which describes every feature,")):
        cell = re.search(r"\| [^|]*" + label + r"[^|]*\| [^|]* \| ([\d.]+)× \|", text)
        said = re.search(re.escape(words) + r" ([\d.]+)×", text)
        assert cell and said and cell.group(1) == said.group(1), label
