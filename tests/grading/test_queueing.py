"""Queue estimates that hold (issue 36): the wait is simulated from measured service times of
each run's own problem and mode, running gradings count for the time they have left, and a
wide spread is shown as a range."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from grading import queueing, service_times
from grading.models import Submission
from grading.services import submission_create
from tests.factories import ADD_ONE, tiny_problem, user_with_role
from tests.processes import broker_purge

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_slot_times() -> None:
    """Problem ids come back in the next test: start with no worker measurements."""
    service_times.forget_all()


# ---------------------------------------------------------------- the simulation (pure)


def test_one_slot_takes_what_is_ahead_in_order() -> None:
    assert queueing.start_after(slots=1, running_left=[], ahead=[]) == 0.0
    assert queueing.start_after(slots=1, running_left=[], ahead=[4.0, 1.0]) == 5.0
    assert queueing.start_after(slots=1, running_left=[3.0], ahead=[4.0]) == 7.0


def test_two_slots_take_each_run_at_the_slot_that_frees_first() -> None:
    # slot A: 1 s left, slot B: 6 s left; the two ahead (2 s each) both go to A.
    assert queueing.start_after(slots=2, running_left=[1.0, 6.0], ahead=[2.0, 2.0]) == 5.0
    # a free slot and nothing ahead: it starts now
    assert queueing.start_after(slots=2, running_left=[9.0], ahead=[]) == 0.0


def test_more_running_than_slots_queue_too() -> None:
    assert queueing.start_after(slots=1, running_left=[2.0, 3.0], ahead=[]) == 5.0


def test_a_range_is_shown_only_when_the_spread_is_wide() -> None:
    narrow = queueing.Position(
        ahead=1, running=0, slots=1, wait_seconds=4.0, wait_low_seconds=3.8, wait_high_seconds=4.2
    )
    wide = queueing.Position(
        ahead=1, running=0, slots=1, wait_seconds=6.0, wait_low_seconds=2.0, wait_high_seconds=12.0
    )
    assert "wait_range" not in narrow.as_event()
    assert wide.as_event()["wait_range"] == [2.0, 12.0]


def test_service_quartiles_of_few_and_many_gradings() -> None:
    assert queueing.Service.of([]) == queueing.Service(*(3 * [queueing.DEFAULT_SERVICE_SECONDS]))
    assert queueing.Service.of([2.0]) == queueing.Service(2.0, 2.0, 2.0)
    service = queueing.Service.of([1.0, 2.0, 3.0, 4.0, 5.0])
    assert (service.low, service.mid, service.high) == (2.0, 3.0, 4.0)


# ---------------------------------------------------------------- from the database


def _graded(*, problem_slug: str, mode: str, seconds: float, count: int, who: str = "") -> None:
    """`count` finished gradings that each held a slot for `seconds`."""
    user = user_with_role(f"hist-{mode}-{problem_slug}{who}", "candidate")
    now = timezone.now()
    for _ in range(count):
        sub = submission_create(user=user, problem_slug=problem_slug, code=ADD_ONE, mode=mode)
        Submission.objects.filter(pk=sub.pk).update(
            status=Submission.Status.DONE,
            started_at=now - timedelta(seconds=seconds),
            finished_at=now,
        )


def test_runs_ahead_count_for_their_own_problem_and_mode() -> None:
    """The issue's "2 ahead, about 5 s" that waited 21 s: two Submits of a slow problem were
    ahead, and the estimate used the median of every grading of the kind (mostly quick Runs).
    Each run ahead now counts for its own problem's and mode's time."""
    broker_purge()
    slow, quick = tiny_problem(slug="slow-submits"), tiny_problem(slug="quick-runs")
    _graded(problem_slug=slow.slug, mode="submit", seconds=8.0, count=4)
    _graded(problem_slug=quick.slug, mode="run", seconds=0.5, count=12)
    user = user_with_role("waiting", "candidate")
    ahead = [
        submission_create(user=user, problem_slug=slow.slug, code=ADD_ONE, mode="submit")
        for _ in range(2)
    ]
    mine = submission_create(user=user, problem_slug=slow.slug, code=ADD_ONE, mode="submit")
    position = queueing.queue_position(mine)
    assert position is not None and position.ahead == 2 and position.slots == 1
    assert position.wait_seconds == pytest.approx(16.0)  # 2 × 8 s, not 2 × the 0.5 s median
    # A run of the quick problem behind the same two Submits waits for them as well, and a
    # Run (the interactive lane) goes before both.
    run = submission_create(user=user, problem_slug=quick.slug, code=ADD_ONE, mode="run")
    run_position = queueing.queue_position(run)
    assert run_position is not None and run_position.ahead == 0
    assert run_position.wait_seconds == 0.0
    # A grading already running counts for the time it has left; the Run, now ahead of the
    # Submits too, for its own 0.5 s.
    Submission.objects.filter(pk=ahead[0].pk).update(
        status=Submission.Status.RUNNING, started_at=timezone.now() - timedelta(seconds=6)
    )
    mine.refresh_from_db()
    position = queueing.queue_position(mine)
    assert position is not None and position.ahead == 2 and position.running == 1
    assert position.wait_seconds == pytest.approx(10.5, abs=0.3)  # 2 s left + 0.5 s + 8 s
    broker_purge()


def test_a_problem_with_few_gradings_borrows_its_mode_and_kind() -> None:
    broker_purge()
    known, fresh = tiny_problem(slug="known-times"), tiny_problem(slug="fresh-problem")
    _graded(problem_slug=known.slug, mode="submit", seconds=3.0, count=5)
    user = user_with_role("borrow", "candidate")
    submission_create(user=user, problem_slug=fresh.slug, code=ADD_ONE, mode="submit")
    mine = submission_create(user=user, problem_slug=fresh.slug, code=ADD_ONE, mode="submit")
    position = queueing.queue_position(mine)
    assert position is not None and position.wait_seconds == pytest.approx(3.0)
    # Borrowed from another problem: a range about it, not a number.
    assert position.as_event()["wait_range"] == [1.5, 6.0]
    broker_purge()


def test_a_problem_measured_once_by_its_validation_counts_for_its_own_time() -> None:
    """Issue 36.5: the first Submits of a problem were told the kind's mean (a quick problem's
    time for a slow one). The studio's validation records the live reference's grading as the
    problem's first Submit (studio/services/validations.py); one measure of its own beats any
    number of another problem's, as a range about it."""
    broker_purge()
    service_times.forget_all()
    known, slow = tiny_problem(slug="quick-known"), tiny_problem(slug="slow-validated")
    _graded(problem_slug=known.slug, mode="submit", seconds=1.0, count=5)
    service_times.record(kind=slow.queue, mode="submit", problem_id=slow.pk, seconds=8.0)
    user = user_with_role("validated", "candidate")
    submission_create(user=user, problem_slug=slow.slug, code=ADD_ONE, mode="submit")
    mine = submission_create(user=user, problem_slug=slow.slug, code=ADD_ONE, mode="submit")
    position = queueing.queue_position(mine)
    assert position is not None and position.wait_seconds == pytest.approx(8.0)
    assert position.as_event()["wait_range"] == [4.0, 16.0]
    service_times.forget_all()
    broker_purge()


def test_a_wide_spread_of_gradings_is_a_range_in_the_status_event() -> None:
    broker_purge()
    problem = tiny_problem(slug="spread-times")
    for n, seconds in enumerate((1.0, 1.0, 2.0, 9.0, 10.0)):
        _graded(problem_slug=problem.slug, mode="submit", seconds=seconds, count=1, who=str(n))
    user = user_with_role("spread", "candidate")
    submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="submit")
    mine = submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="submit")
    position = queueing.queue_position(mine)
    assert position is not None
    event = position.as_event()
    assert event["wait_seconds"] == 2.0 and event["wait_range"] == [1.0, 9.0]
    broker_purge()


# ---------------------------------------------------------------- the worker's slot times


def test_weighted_mean_follows_the_newest_slot_times() -> None:
    times = service_times.EMPTY
    for seconds in (2.0, 2.0, 2.0, 2.0):
        times = times.add(seconds)
    assert (times.n, times.mean, times.sd) == (4, pytest.approx(2.0), pytest.approx(0.0))
    for _ in range(5):  # the machine got busy: each grading now takes 6 s
        times = times.add(6.0)
    assert 5.0 < times.mean < 6.0  # five runs move it most of the way (a median of 30 would not)
    assert times.sd > 0.5


def test_measured_service_has_quartiles_about_the_mean() -> None:
    service = queueing.Service.measured(service_times.Measured(n=10, mean=4.0, var=4.0))
    assert (service.low, service.mid, service.high) == (
        pytest.approx(4.0 - 0.674 * 2), 4.0, pytest.approx(4.0 + 0.674 * 2)
    )
    assert queueing.Service(3.0, 4.0, 5.0).widened() == queueing.Service(2.0, 4.0, 8.0)


def test_the_redis_store_keeps_a_weighted_mean_per_problem_and_kind() -> None:
    """The Lua update in Redis computes what the pure `add` does, and the kind's group takes
    every problem's times."""
    expected = service_times.EMPTY
    for seconds in (1.0, 3.0, 2.0, 8.0):
        service_times.record(kind="cpu", mode="submit", problem_id=7, seconds=seconds)
        expected = expected.add(seconds)
    service_times.record(kind="cpu", mode="submit", problem_id=8, seconds=4.0)
    mine = service_times.read(kind="cpu", mode="submit", problem_id=7)
    assert mine.n == 4
    assert mine.mean == pytest.approx(expected.mean) and mine.var == pytest.approx(expected.var)
    assert service_times.read(kind="cpu", mode="submit", problem_id=None).n == 5
    assert service_times.read(kind="cpu", mode="run", problem_id=7) == service_times.EMPTY
    assert service_times.forget_all() == 3
    assert service_times.read(kind="cpu", mode="submit", problem_id=7) == service_times.EMPTY


def test_the_estimate_takes_the_workers_slot_times_over_the_database() -> None:
    """The worker's slot time (claim to announced verdict) is what the runs behind wait for;
    with enough of it, it is used rather than the database's start-to-verdict spans."""
    broker_purge()
    problem = tiny_problem(slug="slot-times")
    _graded(problem_slug=problem.slug, mode="submit", seconds=1.0, count=4)
    for _ in range(4):
        service_times.record(
            kind=problem.queue, mode="submit", problem_id=problem.pk, seconds=3.0
        )
    user = user_with_role("slot-waiter", "candidate")
    for _ in range(2):
        submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="submit")
    mine = submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="submit")
    position = queueing.queue_position(mine)
    assert position is not None and position.ahead == 2
    assert position.wait_seconds == pytest.approx(6.0)  # 2 ahead × 3 s on the one submit slot
    assert "wait_range" not in position.as_event()  # steady times: one number
    broker_purge()


def test_no_measurement_at_all_is_a_wide_range_about_the_default() -> None:
    broker_purge()
    problem = tiny_problem(slug="never-graded")
    user = user_with_role("first-ever", "candidate")
    submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="submit")
    mine = submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="submit")
    event = queueing.queue_position(mine).as_event()  # type: ignore[union-attr]
    default = queueing.DEFAULT_SERVICE_SECONDS
    assert event["wait_seconds"] == default
    assert event["wait_range"] == [default / 2, default * 2]
    broker_purge()


def test_a_graded_submission_records_its_slot_time() -> None:
    from grading.services import slot_time_record

    problem = tiny_problem(slug="recorded")
    user = user_with_role("recorded", "candidate")
    sub = submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="run")
    slot_time_record(submission_id=sub.pk, seconds=0.75)
    times = service_times.read(kind=problem.queue, mode="run", problem_id=problem.pk)
    assert (times.n, times.mean) == (1, 0.75)


def test_the_broker_order_not_the_id_order_decides_who_is_ahead() -> None:
    """Eight Submits sent at once commit and reach the broker out of id order (the contention
    benchmark's burst started 8, 10, 9, 12, 13, 7, 11): a run's place is its place in the
    broker's queue."""
    broker_purge()
    problem = tiny_problem(slug="burst-order")
    _graded(problem_slug=problem.slug, mode="submit", seconds=4.0, count=4)
    user = user_with_role("burst", "candidate")
    first, second = (
        submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="submit")
        for _ in range(2)
    )
    second.refresh_from_db()
    assert second.enqueued_at is not None
    # The second request reached the broker first.
    Submission.objects.filter(pk=first.pk).update(
        enqueued_at=second.enqueued_at + timedelta(seconds=1)
    )
    first.refresh_from_db()
    position = queueing.queue_position(second)
    assert position is not None and position.ahead == 0
    position = queueing.queue_position(first)
    assert position is not None and position.ahead == 1
    assert position.wait_seconds == pytest.approx(4.0)
    # Not in the broker yet (it was down; the sweep hands it out later): behind every run
    # that is.
    late = submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="submit")
    Submission.objects.filter(pk=late.pk).update(enqueued_at=None)
    late.refresh_from_db()
    position = queueing.queue_position(late)
    assert position is not None and position.ahead == 2
    broker_purge()
