"""Many cycles with bounded memory, owned strings freed one for one, and one instance
driven from two threads."""
from __future__ import annotations

import gc
import os
import threading
from typing import Any

import fusionkit
import pytest

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    """Resident set size in bytes, from /proc/self/statm (its second field, in pages)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


def cycle(lib: fusionkit.Library) -> None:
    with lib.create("counter") as counter:
        heard: list[int] = []
        counter.subscribe(heard.append)
        counter.send("increase")
        assert counter.state["value"] == 1 and heard == [1]


def test_ten_thousand_cycles_in_bounded_memory(lib: fusionkit.Library) -> None:
    for _ in range(1000):  # warm up: allocator pools, ctypes caches, the library's tables
        cycle(lib)
    gc.collect()
    before = rss()
    for _ in range(10_000):
        cycle(lib)
    gc.collect()
    grown = rss() - before

    # What one leaked instance would cost, measured here: the bound must catch a leak of
    # one instance per cycle, or it means nothing.
    leaked = []
    gc.collect()
    start = rss()
    for _ in range(2000):
        instance = lib.create("counter")
        instance.send("increase")
        leaked.append(instance)
    per_instance = (rss() - start) / 2000
    for instance in leaked:
        instance.close()

    bound = 4 * 1024 * 1024
    assert 10_000 * per_instance > 2 * bound, f"an instance costs only {per_instance:.0f} bytes: the bound is too loose"
    assert grown < bound, f"RSS grew by {grown / 1e6:.1f} MB over 10,000 create/send/close cycles"


class Counting:
    def __init__(self, real: Any, count_ok_only: bool) -> None:
        self.real = real
        self.count_ok_only = count_ok_only
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, *args: Any) -> Any:
        result = self.real(*args)
        if not self.count_ok_only or result == 0:
            with self.lock:
                self.calls += 1
        return result


def test_every_owned_string_is_freed_once(library_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = fusionkit.Library(library_path)
    owners = {name: Counting(getattr(lib.c, name), True) for name in ("fk_manifest", "fk_state", "fk_state_patch")}
    free = Counting(lib.c.fk_free, False)
    for name, spy in owners.items():
        monkeypatch.setattr(lib.c, name, spy)
    monkeypatch.setattr(lib.c, "fk_free", free)
    lib.manifest_json()
    with lib.create("counter") as counter:
        for _ in range(100):
            counter.send("increase")
            counter.state_json()
            counter.state_patch(0)
            counter.state  # read into the instance's own buffer (fk_state_into): nothing to free
    with pytest.raises(fusionkit.InvalidHandleError):
        counter.state_json()  # refused after close: nothing handed out, nothing freed
    handed_out = sum(spy.calls for spy in owners.values())
    assert handed_out == 201
    assert free.calls == handed_out


def test_two_threads_sending_to_one_instance(counter: fusionkit.Instance) -> None:
    per_thread = 5000
    versions: list[int] = []
    counter.subscribe(versions.append)
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def send_many() -> None:
        try:
            start.wait()
            for _ in range(per_thread):
                counter.send("increase")
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=send_many) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert counter.snapshot() == ({"value": 2 * per_thread, "isReset": False, "alert": None}, 2 * per_thread)
    # One change each, reported in increasing version order, none lost or repeated.
    assert versions == list(range(1, 2 * per_thread + 1))
