#!/usr/bin/env python3
"""counter.py: drive the Counter feature of libFusionExamples.so from Python.

Run from the repository root, after `swift build --product FusionExamples`:
    python3 examples/python/counter.py
"""
from __future__ import annotations

import sys
from pathlib import Path

try:
    import fusionkit
except ImportError:  # not installed (`pip install bindings/python`): use the checkout's copy
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
    import fusionkit

# The library's types, written beside this script by `fusion types --lang python`:
# lib.create("…") gives an instance typed by the feature's state and inputs.
import fusion_examples  # noqa: E402


def main() -> int:
    lib = fusion_examples.load()  # libFusionExamples.so: $FUSIONKIT_LIBRARY's, or the checkout's .build
    print(f"{lib.manifest.library.name} {lib.version}, ABI {lib.abi_version}")

    with lib.create("counter") as counter:
        changes: list[int] = []
        # The Counter has no asynchronous effects, so this runs on our own thread.
        subscription = counter.subscribe(changes.append)

        def send(input: fusion_examples.CounterInput) -> None:
            print(f"send {input}")
            try:
                counter.send(input)
            except fusionkit.FusionError as error:
                # A refused input changes nothing; say why and carry on.
                print(f"  refused: {error}")
                return
            state, version = counter.snapshot()
            print(f"state v{version}: {state}")

        print(f"state v{counter.version}: {counter.state}")
        inputs: list[fusion_examples.CounterInput] = ["increase", "increase", "decrease", "show", "alertDismissed", "reset"]
        for input in inputs:
            send(input)
        # An input the Counter does not have: a type error here, so sent as JSON text,
        # and the library refuses it.
        try:
            counter.send_json('"jump"')
        except fusionkit.UnknownInputError as error:
            print(f"send jump\n  refused: {error}")
        subscription.unsubscribe()
        send("increase")  # no callback any more
        print(f"told about {len(changes)} changes, the last at version {changes[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
