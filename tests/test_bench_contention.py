"""`python -m bench contention`: its own arguments only, and the summary arithmetic.

The benchmark itself (a fresh platform, minutes of load) is `make bench`, never a test; these
check what must not break silently: `--help` whatever the process's own argv holds (the runner
and pytest put other words there), and the figures and targets it prints.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from bench import contention


def test_help_exits_0_whatever_sys_argv_holds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["python -m bench", "contention", "--no-such-flag", "-x"])
    with pytest.raises(SystemExit) as exited:
        contention.main(["--help"])
    assert exited.value.code == 0
    assert "--keystrokes" in capsys.readouterr().out


def test_the_runner_passes_no_arguments_and_gets_the_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "argv", ["pytest", "--runs", "oops"])
    args = contention.parse([])
    assert (args.runs, args.keystrokes, args.budget) == (15, 300, 900.0)


def test_run_figures_are_nearest_rank_percentiles() -> None:
    figures = contention.run_figures([float(n) for n in range(1, 21)])  # 1..20 ms
    assert figures["n"] == 20
    assert figures["p50_ms"] == 11.0  # rank round(0.5 * 19) = 10 (0-based)
    assert figures["p95_ms"] == 19.0  # rank round(0.95 * 19) = 18
    assert figures["max_ms"] == 20.0
    assert math.isnan(contention.run_figures([])["p95_ms"])


def test_run_target_allows_one_and_a_half_idle_p95_plus_one_test() -> None:
    assert contention.run_target(1000.0, 1700.0, 250.0) == {"limit_ms": 1750.0, "met": True}
    assert contention.run_target(1000.0, 1800.0, 250.0)["met"] is False
    assert contention.run_target(float("nan"), 1.0, 1.0)["met"] is False  # no idle: not met


def test_paired_ratios_skip_pairs_with_a_lost_run() -> None:
    ratios = contention.paired_ratios(
        [(100.0, 300.0), (200.0, 400.0), (None, 500.0), (100.0, None), (100.0, 500.0)]
    )
    assert ratios == {"n": 3, "median": 3.0, "min": 2.0, "max": 5.0}
    assert contention.paired_ratios([])["n"] == 0


def test_editor_figures_count_what_was_delivered() -> None:
    figures = contention.editor_figures([1.0] * 199 + [100.0], sent=201)
    assert (figures["sent"], figures["delivered"]) == (201, 200)
    assert figures["p50_ms"] == 1.0
    assert figures["p99_ms"] == 1.0  # rank round(0.99 * 199) = 197: one slow edit is not p99


SLOTS = {"cpu.fg": 2, "gpu.fg": 1, "cpu.bg": 1, "gpu.bg": 1}


def test_every_slot_busy_needs_each_lane_of_each_kind() -> None:
    full = {
        "running": {"cpu.submit": 1, "cpu.interactive": 1, "gpu.submit": 1},
        "waiting": {"cpu.submit": 8},
        "validating": {"cpu": 1, "gpu": 1},
        "pending": {},
    }
    assert contention.all_busy(full, SLOTS)
    assert contention.busy(full) == {"cpu.fg": 2, "gpu.fg": 1, "cpu.bg": 1, "gpu.bg": 1}
    no_gpu = {**full, "running": {"cpu.submit": 2}}
    assert not contention.all_busy(no_gpu, SLOTS)
    assert not contention.nothing_running(full)


def test_nothing_running_ignores_versions_only_pending() -> None:
    quiet = {"running": {}, "waiting": {}, "validating": {}, "pending": {"cpu": 14}}
    assert contention.nothing_running(quiet)
    assert not contention.nothing_running({**quiet, "waiting": {"cpu.submit": 1}})


def test_the_platform_env_points_everything_at_the_throwaway_places(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://elsewhere/db")
    monkeypatch.setenv("ONSITE_CACHE_URL", "redis://elsewhere:1/0")
    env = contention.platform_env(tmp_path, 8123, 6400, "bench-owner")
    assert env["DATABASE_URL"] == f"sqlite:///{tmp_path / 'var' / 'onsite.sqlite3'}"
    assert env["REDIS_URL"] == env["CELERY_BROKER_URL"] == "redis://127.0.0.1:6400/0"
    assert "ONSITE_CACHE_URL" not in env
    assert (env["ONSITE_PORT"], env["ONSITE_VAR_DIR"]) == ("8123", str(tmp_path / "var"))
    assert env["ONSITE_SANDBOX_OWNER"] == "bench-owner"


def test_the_outside_hog_leg_is_on_by_default_two_busy_processes_per_core() -> None:
    args = contention.parse([])
    assert args.hogs_per_core == 2
    assert contention.parse(["--hogs-per-core", "0"]).hogs_per_core == 0


def test_hogs_are_real_busy_processes_at_the_default_priority_and_are_stopped() -> None:
    import os

    hogs = contention.start_hogs(1)
    try:
        assert len(hogs) == (os.cpu_count() or 1)
        for hog in hogs:
            assert hog.poll() is None
            # The nice value the kernel reports (field 19 of /proc/<pid>/stat): the default.
            stat = Path(f"/proc/{hog.pid}/stat").read_text().rsplit(")", 1)[1].split()
            assert int(stat[16]) == 0 or os.nice(0) > 0  # raising it back needs privilege
    finally:
        contention.stop_hogs(hogs)
    assert all(hog.poll() is not None for hog in hogs)


def test_an_update_names_its_client_and_first_clock() -> None:
    import pycrdt

    from bench.sessions import EDIT, update_start

    doc: pycrdt.Doc = pycrdt.Doc()
    text = doc.get("code", type=pycrdt.Text)
    text += EDIT
    before = doc.get_state()
    text += EDIT
    assert update_start(doc.get_update(before)) == (doc.client_id, len(EDIT))
    assert update_start(b"\x00\x00") is None  # no structs: a deletion only
    assert update_start(b"\x01") is None  # cut short


def test_edit_integrity_needs_every_edit_stored_in_order_and_seen_in_order() -> None:
    order = {"stored": 3, "in_order": True, "clock": 18}
    assert contention.edit_integrity(3, 3, 0, order, 6)["met"]
    assert not contention.edit_integrity(4, 3, 0, order, 6)["met"]  # one never stored
    assert not contention.edit_integrity(3, 2, 0, order, 6)["met"]  # one never seen
    assert not contention.edit_integrity(3, 3, 1, order, 6)["met"]  # one seen out of order
    assert not contention.edit_integrity(3, 3, 0, {**order, "in_order": False}, 6)["met"]


def test_the_web_gc_pauses_are_read_from_what_the_web_logged(tmp_path: Path) -> None:
    """The figure is the web's own log line (core/heap.py), found among the other processes'."""
    import logging

    from django.conf import settings

    from core import heap

    log = tmp_path / "platform.log"
    handler = logging.FileHandler(log)
    handler.setFormatter(logging.Formatter(settings.LOGGING["formatters"]["plain"]["format"]))
    logger = logging.getLogger("onsite.gc")
    logger.addHandler(handler)
    try:
        pauses = heap.PauseLog(threshold_ms=0.0)
        pauses("start", {"generation": 2})
        pauses("stop", {"generation": 2})
    finally:
        logger.removeHandler(handler)
        handler.close()
    with log.open("a") as out:
        out.write("2026-12-06 11:00:00,000 INFO celery.worker: garbage collection elsewhere\n")
    assert [p["generation"] for p in contention.gc_pauses(log)] == [2]
    assert contention.gc_pauses(tmp_path / "missing.log") == []
