#!/usr/bin/env python3
"""home.py: the Home screen (seed 001). The view only renders title and desc; the number
comes from the instance's random source, which a seed makes repeatable.

    python3 examples/python/home.py [SEED]
"""
from __future__ import annotations

import sys
from pathlib import Path

try:
    import fusionkit  # noqa: F401 (found first, for fusion_examples)
except ImportError:  # not installed: use the checkout's copy
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
    import fusionkit  # noqa: F401 (found first, for fusion_examples)

# The library's types, written beside this script by `fusion types --lang python`:
# lib.create("…") gives an instance typed by the feature's state and inputs.
import fusion_examples  # noqa: E402


def main(argv: list[str]) -> int:
    seed = int(argv[1]) if len(argv) > 1 else 2024
    lib = fusion_examples.load()
    print(f"home, seeded with {seed}")
    with lib.create("home", seed=seed) as home:
        print(f"  {'(created)':<12} {home.state['title']!r:<24} {home.state['desc']!r}")
        for tap in ("viewDidLoad", "tap1", "tap2", "tap1"):
            home.send(tap)
            state = home.state
            print(f"  {tap:<12} {state['title']!r:<24} {state['desc']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
