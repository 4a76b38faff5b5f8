"""Faults survived, nothing lost: a worker SIGKILLed mid-grade, a Redis outage while grading,
a submission accepted while the broker is down, a Redis restart with submissions queued, and a
burst of identical submissions. Real workers, Redis and Docker.

How long each recovery took is recorded (bench/results/recovery.json), never asserted: the
README quotes the figures."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import docker
import pytest
from django.utils import timezone

from grading.models import Submission
from grading.services import submission_create
from sandbox.docker_runner import LABEL_OWNER, container_owner
from tests import services
from tests.factories import ADD_ONE, tiny_problem, user_with_role
from tests.processes import start_worker, stop, wait_for, worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.docker, pytest.mark.slow]

SLOW_ADD_ONE = "import time\n\ndef solve(x):\n    time.sleep(1.2)\n    return x + 1\n"
# Short clocks so a dead worker's claim expires within seconds, and the sweeper runs often.
FAST_RECOVERY = {
    "ONSITE_SANDBOX_STARTUP_MARGIN_SECONDS": "4",
    "ONSITE_LEASE_SECONDS": "3",
    "ONSITE_VISIBILITY_TIMEOUT_SECONDS": "6",
    "ONSITE_SWEEP_INTERVAL_SECONDS": "2",
    "ONSITE_STALE_SUBMISSION_SECONDS": "3",
}


RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results" / "recovery.json"


def record(name: str, seconds: float) -> None:
    """Keep a recovery figure (seconds) for the README; nothing here asserts on it."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    figures = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    figures[name] = round(seconds, 2)
    RESULTS.write_text(json.dumps(figures, indent=2, sort_keys=True))
    print(f"{name}: {seconds:.2f} s")


def sandbox_container_count(owner: str) -> int:
    """The sandbox containers labelled with `owner` (other tests of this run, on other
    workers, and other runs and stacks share the engine: each counts only its own)."""
    label = f"{LABEL_OWNER}={owner}"
    # sparse: the list alone, no inspect of each (one removed meanwhile would answer 404)
    return len(docker.from_env().containers.list(all=True, filters={"label": label},
                                                 sparse=True))


def test_worker_killed_mid_grade_is_graded_again_exactly_once(tmp_path: Path) -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    first = start_worker(tmp_path / "first.log", **FAST_RECOVERY)
    try:
        submission = submission_create(
            user=candidate, problem_slug=problem.slug, code=SLOW_ADD_ONE, mode="submit"
        )
        wait_for(
            lambda: Submission.objects.filter(pk=submission.pk, status="running").exists(),
            what="grading to start",
        )
    finally:
        stop(first, signal.SIGKILL)  # the whole process group: main process and pool children
        killed_at = time.monotonic()
    assert Submission.objects.get(pk=submission.pk).status == "running"
    with worker(tmp_path / "second.log", beat=True, **FAST_RECOVERY):
        wait_for(
            lambda: Submission.objects.filter(pk=submission.pk, status="done").exists(),
            timeout=120,
            what="the regrade",
        )
    record("worker SIGKILLed mid-grade: kill to verdict", time.monotonic() - killed_at)
    graded = Submission.objects.get(pk=submission.pk)
    assert graded.verdict == "AC" and graded.passed == graded.total == 5
    assert graded.attempts == 2  # claimed by the killed worker, then exactly once more
    assert graded.results.count() == 5  # no duplicate or partial results


def test_a_redis_outage_during_grading_does_not_abort_it(tmp_path: Path) -> None:
    """Realtime is best effort: broadcasts fail while Redis is gone, grading goes on, and the
    database (the truth) gets the verdict from the first and only attempt."""
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    with worker(tmp_path / "worker.log", **FAST_RECOVERY):
        submission = submission_create(
            user=candidate, problem_slug=problem.slug, code=SLOW_ADD_ONE, mode="submit"
        )
        wait_for(
            lambda: Submission.objects.filter(pk=submission.pk, status="running").exists(),
            what="grading to start",
        )
        started = time.monotonic()
        services.stop_redis()
        try:
            time.sleep(3)  # tests finish meanwhile; each broadcast of them fails
        finally:
            services.start_redis_again()
        wait_for(
            lambda: Submission.objects.filter(pk=submission.pk, status="done").exists(),
            timeout=120,
            what="the verdict",
        )
    record("Redis outage during grading: start to verdict", time.monotonic() - started)
    graded = Submission.objects.get(pk=submission.pk)
    assert graded.verdict == "AC" and graded.passed == graded.total == 5
    assert graded.attempts == 1  # never aborted, never graded again
    assert graded.results.count() == 5


def test_a_submission_accepted_while_the_broker_is_down_is_enqueued_once_it_returns(
    tmp_path: Path,
) -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    with worker(tmp_path / "worker.log", beat=True, **FAST_RECOVERY):
        services.stop_redis()
        try:
            submission = submission_create(
                user=candidate, problem_slug=problem.slug, code=ADD_ONE, mode="run"
            )
            stored = Submission.objects.get(pk=submission.pk)
            # The publish failed: nothing claims it was handed out, so the sweeper will.
            assert stored.status == "queued" and stored.enqueued_at is None
        finally:
            services.start_redis_again()
        back = timezone.now()
        wait_for(
            lambda: Submission.objects.filter(pk=submission.pk, status="done").exists(),
            timeout=120,
            what="the verdict",
        )
    graded = Submission.objects.get(pk=submission.pk)
    assert graded.verdict == "AC" and graded.attempts == 1
    assert graded.enqueued_at is not None and graded.enqueued_at >= back
    record(
        "broker back after an outage: return to enqueue",
        (graded.enqueued_at - back).total_seconds(),
    )


def test_redis_restart_with_queued_submissions_loses_none(tmp_path: Path) -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    queued = [
        submission_create(user=candidate, problem_slug=problem.slug, code=ADD_ONE, mode="run")
        for _ in range(4)
    ]
    services.restart_redis()  # no persistence: every queued message is gone with it
    with worker(tmp_path / "worker.log", beat=True, **FAST_RECOVERY):
        wait_for(
            lambda: (
                Submission.objects.filter(pk__in=[s.pk for s in queued], status="done").count() == 4
            ),
            timeout=120,
            what="all queued submissions to be graded",
        )
    assert set(
        Submission.objects.filter(pk__in=[s.pk for s in queued]).values_list("verdict", flat=True)
    ) == {"AC"}


def test_fifty_identical_submissions_get_fifty_verdicts_and_leak_nothing(tmp_path: Path) -> None:
    problem = tiny_problem(hidden=1)
    candidate = user_with_role("cand", "candidate")
    # The worker's containers carry an owner of their own: a sandbox another test runs at the
    # same moment on another worker is not this test's leak (it once counted as one).
    owner = f"{container_owner()}-fifty-{time.time_ns()}"
    with worker(tmp_path / "worker.log", concurrency=2, ONSITE_SANDBOX_OWNER=owner):
        ids = [
            submission_create(
                user=candidate, problem_slug=problem.slug, code=ADD_ONE, mode="submit"
            ).pk
            for _ in range(50)
        ]
        seen = [0]  # the most of its containers seen at once: the label is the worker's

        def all_graded() -> bool:
            seen[0] = max(seen[0], sandbox_container_count(owner))
            return Submission.objects.filter(pk__in=ids, status="done").count() == 50

        wait_for(all_graded, timeout=400, interval=0.2, what="50 verdicts")
    assert seen[0] > 0
    verdicts = list(Submission.objects.filter(pk__in=ids).values_list("verdict", "passed", "total"))
    assert verdicts == [("AC", 3, 3)] * 50
    wait_for(lambda: sandbox_container_count(owner) == 0, timeout=30,
             what="the stopped worker's sandbox containers to be gone")
