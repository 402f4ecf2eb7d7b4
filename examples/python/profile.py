#!/usr/bin/env python3
"""profile.py: the Profile store's four fetches (seed 004), answered by this script.

The feature asks the host for the pet, the family, the preschool and the baby profile.
The request handler runs on the library's threads; it only queues the requests, and the
main thread answers them, in reverse order; each answer lands as its own change. Then it
loads again, fails the family fetch, and shows the error and the cancellation of the
other three.

    python3 examples/python/profile.py
"""
from __future__ import annotations

import queue
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    import fusionkit
except ImportError:  # not installed: use the checkout's copy
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
    import fusionkit

# The library's types, written beside this script by `fusion types --lang python`:
# lib.create("…") gives an instance typed by the feature's state and inputs.
import fusion_examples  # noqa: E402

ANSWERS: dict[str, Any] = {
    "fetchPet": {"name": "Dubu", "species": "cat", "age": 4},
    "fetchFamily": {"members": [{"name": "Yuna", "relation": "mother"}]},
    "fetchPreschool": {"name": "Maple", "className": "Owls", "teacher": "Mr. Seo"},
    "fetchBabyProfile": {"name": "Haneul", "birthDate": "2024-02-29", "heightCm": 84, "weightKg": 11.2},
}


def wait(instance: fusionkit.Instance[fusion_examples.ProfileStoreState, fusion_examples.ProfileStoreInput],
         done: Callable[[fusion_examples.ProfileStoreState], bool], timeout: float = 10) -> fusion_examples.ProfileStoreState:
    deadline = time.monotonic() + timeout
    while not done(state := instance.state):
        if time.monotonic() > deadline:
            raise TimeoutError("the profile did not settle")
        time.sleep(0.005)
    return state


def main() -> int:
    lib = fusion_examples.load()
    events: queue.Queue[fusionkit.HostEvent] = queue.Queue()
    cancelled: list[int] = []

    def on_event(event: fusionkit.HostEvent) -> None:  # on a library thread: keep it short
        print(f"  host told: {event.raw}")
        if event.is_cancel:
            cancelled.append(event.id)
        else:
            events.put(event)

    with lib.create("profile") as profile:
        profile.set_request_handler(on_event)  # also selects "host" requests

        print("load:")
        profile.send("loadAllProfiles")
        requests = [events.get(timeout=10) for _ in range(4)]
        for event in reversed(requests):
            profile.respond(event.id, ANSWERS[event.kind or ""])
            print(f"  answered {event.kind} (request {event.id})")
        state = wait(profile, lambda s: not s["isLoading"])
        school, baby = state["school"], state["babyProfile"]
        print(f"loaded: pet={state['pet']} school={school and school['name']!r} baby={baby and baby['name']!r}")

        print("load again, and the family fetch fails:")
        profile.send("retryTapped")
        again = [events.get(timeout=10) for _ in range(4)]
        family = next(event for event in again if event.kind == "fetchFamily")
        profile.fail_request(family.id, "the server is down")
        state = wait(profile, lambda s: s["error"] is not None)
        deadline = time.monotonic() + 10
        while len(cancelled) < 3 and time.monotonic() < deadline:
            time.sleep(0.005)
        print(f"failed: error={state['error']!r}")
        print(f"cancelled requests: {len(cancelled)}")
        profile.send("errorDismissed")
    return 0 if len(cancelled) == 3 else 1


if __name__ == "__main__":
    sys.exit(main())
