"""`python -m bench fresh_start`: its arguments, the schedule of clicks and the summary arithmetic.

The benchmark itself (a fresh platform, five minutes of Runs) is `make bench`, never a test; these
check what must not break silently: the clicks it schedules, the figures and the target it prints,
and which Runs it names as over the target.
"""

from __future__ import annotations

import math
import sys

import pytest

from bench import fresh_start


def test_help_exits_0_whatever_sys_argv_holds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["python -m bench", "fresh_start", "--no-such-flag"])
    with pytest.raises(SystemExit) as exited:
        fresh_start.main(["--help"])
    assert exited.value.code == 0
    assert "--every" in capsys.readouterr().out


def test_the_defaults_are_every_20_s_over_five_minutes() -> None:
    args = fresh_start.parse([])
    assert (args.minutes, args.every) == (5.0, 20.0)


def test_it_is_registered_with_the_runner() -> None:
    from bench.__main__ import BENCHMARKS

    assert "fresh_start" in BENCHMARKS


def test_a_tick_every_20_s_from_the_web_answering_inside_five_minutes() -> None:
    times = fresh_start.click_times(5, 20)
    assert times[:3] == [0.0, 20.0, 40.0]
    assert times[-1] == 280.0  # 300 s is past the first five minutes
    assert len(times) == 15
    assert fresh_start.click_times(1, 25) == [0.0, 25.0, 50.0]  # a last tick inside the window
    assert fresh_start.click_times(0, 20) == []
    with pytest.raises(ValueError):
        fresh_start.click_times(5, 0)


def test_both_problems_are_measured_a_cpu_one_and_continuous_batching() -> None:
    assert fresh_start.PROBLEMS == ("token-bucket", "continuous-batching-engine")


def sample(problem: str, latency: float | None, t: float = 0.0) -> dict[str, object]:
    return {"problem": problem, "latency_ms": latency, "t": t}


def test_figures_are_per_problem_nearest_rank_and_the_target_is_p95_within_1_s() -> None:
    runs = [sample("a", float(n)) for n in range(100, 2000, 100)]  # 100..1900 ms, 19 Runs
    runs += [sample("b", 300.0)] * 19 + [sample("b", 5600.0)]
    a = fresh_start.problem_figures(runs, "a")
    assert (a["n"], a["clicked"], a["lost"]) == (19, 19, 0)
    assert a["p50_ms"] == 1000.0  # rank round(0.5 * 18) = 9
    assert a["p95_ms"] == 1800.0  # rank round(0.95 * 18) = 17
    assert a["max_ms"] == 1900.0
    assert a["over_target"] == 9
    assert a["met"] is False
    b = fresh_start.problem_figures(runs, "b")
    assert (b["p95_ms"], b["max_ms"], b["over_target"]) == (300.0, 5600.0, 1)
    assert b["met"] is True  # one slow Run in 20 is not the p95


def test_a_lost_run_is_not_a_fast_one() -> None:
    runs = [sample("a", 200.0)] * 19 + [sample("a", None)]
    figures = fresh_start.problem_figures(runs, "a")
    assert (figures["n"], figures["clicked"], figures["lost"]) == (19, 20, 1)
    assert figures["met"] is False
    nothing = fresh_start.problem_figures([], "a")
    assert math.isnan(nothing["p95_ms"])
    assert nothing["met"] is False


def test_the_slow_runs_are_named_in_click_order_with_what_explains_them() -> None:
    runs = [
        {**sample("b", 5600.0, t=30.0), "wait_ms": 5000.0, "busy": {"gpu.bg": 1}},
        sample("a", 400.0, t=10.0),
        {**sample("a", None, t=20.0), "error": "TimeoutError"},
        sample("a", 1000.0, t=40.0),  # on the target: not over it
    ]
    slow = fresh_start.slow_runs(runs)
    assert [s["t"] for s in slow] == [20.0, 30.0]
    assert slow[0]["error"] == "TimeoutError"
    assert (slow[1]["wait_ms"], slow[1]["busy"]) == (5000.0, {"gpu.bg": 1})


def test_the_runs_clicked_while_a_validation_ran_are_also_counted_apart() -> None:
    runs = [
        {**sample("a", 2000.0), "validation_states": {"pending": 20}},
        {**sample("a", 300.0), "validation_states": {"running": 2, "pending": 17, "passed": 1}},
        {**sample("a", 500.0), "validation_states": {"running": 1, "passed": 19}},
        {**sample("a", 100.0), "validation_states": {"passed": 20}},
    ]
    during = fresh_start.problem_figures(runs, "a")["validating"]
    assert (during["n"], during["p50_ms"], during["max_ms"]) == (2, 300.0, 500.0)
    assert fresh_start.validating(runs[1]) and not fresh_start.validating(runs[0])
    assert not fresh_start.validating(sample("a", 1.0))  # no state recorded
