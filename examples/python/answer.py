#!/usr/bin/env python3
"""answer.py: the Answer form (seed 002) from asyncio.

`isSubmitEnabled` is decided by the feature, never here. Submitting takes half a
second on the library's clock; the result arrives as a change made on a library
thread, which `changes()` hands to this event loop.

    python3 examples/python/answer.py
"""
from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Mapping
from pathlib import Path

try:
    import fusionkit  # noqa: F401 (found first, for fusion_examples)
except ImportError:  # not installed: use the checkout's copy
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
    import fusionkit  # noqa: F401 (found first, for fusion_examples)

# The library's types, written beside this script by `fusion types --lang python`:
# lib.create("…") gives an instance typed by the feature's state and inputs.
import fusion_examples  # noqa: E402


def show(label: str, state: fusion_examples.AnswerState | Mapping[str, object]) -> None:
    print(f"{label:<22} answer={state['answer']!r} submit enabled={state['isSubmitEnabled']} "
          f"submitting={state['isSubmitting']} submitted={state['submitted']!r}")


async def main() -> int:
    lib = fusion_examples.load()
    with lib.create("answer") as answer:
        show("start", answer.state)
        answer.send({"answerChanged": {"text": "   "}})
        show("typed spaces", answer.state)
        answer.send("submitTapped")  # not enabled: ignored by the feature
        answer.send({"answerChanged": {"text": "  blue  "}})
        show("typed '  blue  '", answer.state)
        # The subscription starts with the iteration; the current state comes first.
        async with contextlib.aclosing(answer.changes(include_current=True)) as changes:
            async for state in changes:
                if state["submitted"] is not None:
                    show("after half a second", state)
                    break
                if state["isSubmitting"]:
                    show("submitting", state)
                else:
                    answer.send("submitTapped")
        answer.send("resultDismissed")
        show("dismissed", answer.state)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
