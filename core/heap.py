"""The web process's heap and its garbage collector: why a keystroke never waits for a sweep.

A web process runs every websocket on one event loop. CPython's full collection (generation 2)
walks every tracked object and holds the interpreter meanwhile, so while it runs no keystroke
is read, stored or sent on. What the process imports at start (Django, the URLconf and every
view module with matplotlib, numpy, pycrdt, the docker SDK...) is about 240,000 objects that
live as long as the process; under load (a collection every few seconds) each full sweep of
them took 140-200 ms on a 2-core machine, and the editor's p99 was those pauses
(`python -m bench contention`, README).

So the web's entry point (config/web.py, what daphne serves) loads what a first request would
load, collects once and freezes what is left (`gc.freeze`): the collector never walks the
start-up heap again, and a full collection only visits what was made since (15,000-65,000
objects under the same load: 10-37 ms). Objects made later are collected as before, cycles
included; nothing frozen was garbage (it is collected first), so no memory is held that would
otherwise be freed.

A collection that still pauses the loop for long is logged (`log_long_pauses`), so that a
future heap growth shows up in the log before it shows up as typing lag.
"""

from __future__ import annotations

import gc
import logging
import time
from typing import Any

log = logging.getLogger("onsite.gc")

# A pause the log reports: the editor's budget with every slot busy is 50 ms (issue 42).
LONG_PAUSE_MS = 50.0


def freeze_startup_heap() -> int:
    """Load the URLconf (and with it every view module), collect, then freeze what is alive:
    the garbage collector skips those objects from now on. Returns how many were frozen."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports every view module now, not at request 1
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


class PauseLog:
    """A gc callback that logs each collection longer than `threshold_ms`."""

    def __init__(self, threshold_ms: float = LONG_PAUSE_MS) -> None:
        self.threshold_ms = threshold_ms
        self.started: float | None = None

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            return
        if self.started is None:
            return
        paused_ms = (time.perf_counter() - self.started) * 1000.0
        self.started = None
        if paused_ms >= self.threshold_ms:
            log.warning(
                "garbage collection of generation %s paused the process for %.0f ms "
                "(%s objects tracked, %s frozen)",
                info.get("generation"), paused_ms, len(gc.get_objects()),
                gc.get_freeze_count(),
            )


def log_long_pauses(threshold_ms: float = LONG_PAUSE_MS) -> PauseLog:
    """Install (once per process) the callback that logs long collections; returns it."""
    for callback in gc.callbacks:
        if isinstance(callback, PauseLog):
            callback.threshold_ms = threshold_ms
            return callback
    callback = PauseLog(threshold_ms)
    gc.callbacks.append(callback)
    return callback
