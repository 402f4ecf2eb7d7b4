"""Keeping ctypes callbacks alive exactly as long as the library may call them, and
destroying instances that were garbage collected without close().

Two hazards shape this module:

* A ctypes callback object (the C trampoline) must outlive every call the library may
  make to it. The header promises that once fk_unsubscribe(), fk_set_request_handler()
  or fk_destroy() returns, the old callback is neither running nor called again, except
  when that call is made from inside the callback itself. So a trampoline is dropped
  right away only when no thread is inside one of our callbacks; otherwise it is parked
  and dropped at the next release that finds no thread inside.

* fk_last_error_message() is per thread and cleared by every successful call. A garbage
  collection can run a finalizer on any thread between a failed call and the reading of
  its message; if that finalizer called fk_destroy() there, it would wipe the message.
  Finalizers therefore never call the library: they hand the handle to one background
  thread (the reaper), which destroys it. That also keeps fk_destroy(), which waits for
  running effects to stop, off whatever thread the collector happened to run on.
"""
from __future__ import annotations

import atexit
import logging
import queue
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger("fusionkit")

_lock = threading.Lock()
# Thread ident -> how many of our callbacks that thread is inside (callbacks may nest
# across instances: a callback may send to another instance and hear its change).
_inside: dict[int, int] = {}
# Trampolines released while some thread was inside a callback.
_parked: list[object] = []


def enter_callback(ident: int) -> None:
    with _lock:
        _inside[ident] = _inside.get(ident, 0) + 1


def leave_callback(ident: int) -> None:
    with _lock:
        depth = _inside[ident] - 1
        if depth:
            _inside[ident] = depth
        else:
            del _inside[ident]


def inside_callback(ident: int) -> bool:
    with _lock:
        return ident in _inside


def release(trampolines: list[object]) -> None:
    """Drops trampolines the library will not call again (its unsubscribe/destroy
    returned). While any thread is inside one of our callbacks they are parked instead:
    that thread may be running one of them, from which the release was made."""
    dropped: list[object] = []
    with _lock:
        if _inside:
            _parked.extend(trampolines)
        else:
            dropped.extend(_parked)
            _parked.clear()
            dropped.extend(trampolines)
    # Freed here, outside the lock (a trampoline's closure may hold anything).
    dropped.clear()


def parked_count() -> int:
    with _lock:
        return len(_parked)


class Closable(Protocol):
    def close(self) -> None: ...


# Every instance not yet closed, so that interpreter exit can close them before Python
# shuts down: a library thread calling back into a finalizing interpreter would hang.
_live: weakref.WeakSet[Any] = weakref.WeakSet()
_live_lock = threading.Lock()


def track(instance: Closable) -> None:
    with _live_lock:
        _live.add(instance)


def untrack(instance: Closable) -> None:
    with _live_lock:
        _live.discard(instance)


class _Reaper:
    """One daemon thread running the destroy jobs of collected instances, in order."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._pending = 0
        self._idle = threading.Condition(self._lock)

    def submit(self, job: Callable[[], None]) -> None:
        if sys.is_finalizing():
            # No new threads now; by this point atexit has closed every tracked instance.
            job()
            return
        with self._lock:
            self._pending += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="fusionkit-reaper", daemon=True)
                self._thread.start()
        self._jobs.put(job)

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job()
            except BaseException:  # a job must not end the thread the others wait for
                log.exception("fusionkit: destroying a collected instance failed")
            finally:
                job = None  # drop the trampolines before reporting idle
                with self._lock:
                    self._pending -= 1
                    if self._pending == 0:
                        self._idle.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Waits until every submitted job has run; False on timeout."""
        with self._lock:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def stop(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._jobs.put(None)
            thread.join()


reaper = _Reaper()


def _at_exit() -> None:
    with _live_lock:
        instances = list(_live)
    for instance in instances:
        try:
            instance.close()
        except Exception:
            log.exception("fusionkit: closing an instance at exit failed")
    reaper.flush()
    reaper.stop()


atexit.register(_at_exit)
