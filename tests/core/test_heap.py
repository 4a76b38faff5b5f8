"""The web process's start-up heap is frozen, so a full collection never walks it (core/heap.py).

The pauses themselves are measured by `python -m bench contention` (editor p99 with every
slot busy), not here: these tests check the facts the fix rests on, in a fresh interpreter
that loads the web's entry point exactly as daphne does.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core import heap

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, json, sys
import config.web  # what daphne serves
print(json.dumps({
    "frozen": gc.get_freeze_count(),
    "tracked": len(gc.get_objects()),
    "views_loaded": "interviews.views" in sys.modules and "loops.views" in sys.modules,
    "pause_log": sum(type(c).__name__ == "PauseLog" for c in gc.callbacks),
}))
"""


def test_loading_the_web_entry_point_freezes_everything_it_imported() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    # The URLconf was resolved before the freeze: the view modules (and what they import)
    # are in the frozen part, not made at the first request and walked by every collection.
    assert facts["views_loaded"]
    assert facts["frozen"] > 100_000
    # What a full collection still walks is a small part of what the process holds.
    assert facts["tracked"] < facts["frozen"] / 10
    assert facts["pause_log"] == 1


def test_a_long_collection_is_logged_and_a_short_one_is_not(
        caplog: pytest.LogCaptureFixture) -> None:
    pauses = heap.PauseLog(threshold_ms=0.0)
    caplog.set_level(logging.WARNING, logger="onsite.gc")
    pauses("start", {"generation": 2, "collected": 0, "uncollectable": 0})
    pauses("stop", {"generation": 2, "collected": 0, "uncollectable": 0})
    assert [r.getMessage() for r in caplog.records if "generation 2 paused" in r.getMessage()]

    caplog.clear()
    quiet = heap.PauseLog(threshold_ms=60_000.0)
    quiet("start", {"generation": 2})
    quiet("stop", {"generation": 2})
    quiet("stop", {"generation": 2})  # a stop without its start (installed mid-collection)
    assert not caplog.records


def test_the_pause_log_is_installed_once() -> None:
    before = list(gc.callbacks)
    thresholds = [(c, c.threshold_ms) for c in before if isinstance(c, heap.PauseLog)]
    try:
        first = heap.log_long_pauses(80.0)
        again = heap.log_long_pauses(60.0)
        assert first is again and again.threshold_ms == 60.0
        assert sum(isinstance(c, heap.PauseLog) for c in gc.callbacks) == 1
    finally:
        gc.callbacks[:] = before
        for callback, threshold in thresholds:
            callback.threshold_ms = threshold


def test_importing_the_application_alone_changes_no_collector() -> None:
    """Tests and tools import config.asgi: their processes are not frozen nor logged."""
    probe = ("import gc, json, config.asgi; print(json.dumps({'frozen': gc.get_freeze_count(), "
             "'pause_log': sum(type(c).__name__ == 'PauseLog' for c in gc.callbacks)}))")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"frozen": 0, "pause_log": 0}
