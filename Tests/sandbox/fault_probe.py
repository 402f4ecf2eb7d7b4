"""Run by test_sandbox_faults.py in a process of its own (the sandbox library runs one
module per process): the faulty plugin through the fusionkit package, one fault per
instance while another instance answers inputs on a second thread. Prints one JSON object."""
from __future__ import annotations

import json
import sys
import threading
import time

import fusionkit

library = fusionkit.Library(sys.argv[1])
other = library.create("faulty")
report: dict[str, object] = {}
for fault in ("trap", "spin", "hog", "deep"):
    victim = library.create("faulty")
    victim.send("increase")
    latencies: list[float] = []
    done = threading.Event()

    def answer(latencies: list[float] = latencies, done: threading.Event = done) -> None:
        while not done.is_set():
            start = time.perf_counter()
            other.send("increase")
            other.state  # noqa: B018  (reads the state: a round trip)
            latencies.append(time.perf_counter() - start)

    thread = threading.Thread(target=answer)
    thread.start()
    start = time.perf_counter()
    try:
        victim.send(fault)
        error = None
    except fusionkit.FusionError as raised:
        error = raised
    took = time.perf_counter() - start
    # The other instance keeps answering a while after the fault too: a trap ends in
    # microseconds, and a window of that alone holds a handful of answers on a busy host.
    time.sleep(0.25)
    done.set()
    thread.join()
    try:
        victim.send("increase")
        after = "accepted"
    except fusionkit.FusionError as raised:
        after = type(raised).__name__
    latencies.sort()
    report[fault] = {
        "error": type(error).__name__ if error else None,
        "status": error.status if error else None,
        "message": str(error) if error else None,
        "seconds": took,
        "after": after,
        "last_good": victim.state,
        "other_answers": len(latencies),
        "other_p99_ms": latencies[int(len(latencies) * 0.99)] * 1000 if latencies else None,
    }
    victim.close()
report["other_state"] = other.state
print(json.dumps(report))
