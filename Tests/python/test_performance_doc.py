"""The docs' prose stays true: measured numbers live only in the blocks rendered from the
benchmarks' results (Tests/docs/test_measured_blocks.py checks the blocks themselves)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A number with the unit of something measured: a time, a ratio, a size, a share.
MEASURED = re.compile(r"\d[\d,.]*\s*(?:µs|ns|ms|×|B\b|KB|KiB|MiB|GiB|%|instructions)")
# In the other documents, where sizes and intervals are also settings (a 1 MiB answer, a
# clock record every 10 ms): what only a measurement gives.
# ("4 × 10,000 inputs" is a size; "25×" a measured ratio.)
MEASURED_ELSEWHERE = re.compile(r"\d[\d,.]*(?:×|\s*(?:µs|ns|KB|%|executions|edges|files))|\d+ min \d+ s")


def prose(text: str) -> str:
    """The text without its measured blocks."""
    return re.sub(r"<!-- ([a-z-]+):begin -->.*?<!-- \1:end -->", "", text, flags=re.S)


def test_no_measured_number_outside_the_blocks_of_performance_md() -> None:
    found = [line for line in prose((ROOT / "docs" / "performance.md").read_text()).splitlines()
             if MEASURED.search(line)]
    assert found == [], "measured numbers outside the blocks the benchmarks write (they go stale):\n" + "\n".join(found)


def test_no_measured_number_outside_the_blocks_of_scenarios_and_reliability() -> None:
    for name in ("scenarios.md", "reliability.md"):
        found = [line for line in prose((ROOT / "docs" / name).read_text()).splitlines()
                 if MEASURED_ELSEWHERE.search(line)]
        assert found == [], f"docs/{name}: measured numbers outside its blocks:\n" + "\n".join(found)


def test_the_check_would_catch_stale_prose() -> None:
    stale = "<!-- python-bench:begin -->\n| a | 1.29 µs |\n<!-- python-bench:end -->\nSo it loses by about 1.6×."
    assert MEASURED.search(prose(stale))
    assert not MEASURED.search(prose(stale.replace("about 1.6×", "a little")))
    assert MEASURED_ELSEWHERE.search("the run took 24 min 35 s") and MEASURED_ELSEWHERE.search("1,839 files")


def test_scripts_bench_keeps_five_python_runs() -> None:
    script = (ROOT / "scripts" / "bench").read_text()
    assert "bindings/python/bench.py" in script and "--runs $((smoke ? 1 : 5))" in script
