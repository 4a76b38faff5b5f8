"""Faults survived, nothing lost: a worker SIGKILLed mid-grade, a Redis restart with
submissions queued, and a burst of identical submissions. Real workers, Redis and Docker."""

from __future__ import annotations

import signal
from pathlib import Path

import docker
import pytest

from grading.models import Submission
from grading.services import submission_create
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


def sandbox_container_count() -> int:
    return len(docker.from_env().containers.list(all=True, filters={"label": "onsite.sandbox=1"}))


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
    assert Submission.objects.get(pk=submission.pk).status == "running"
    with worker(tmp_path / "second.log", beat=True, **FAST_RECOVERY):
        wait_for(
            lambda: Submission.objects.filter(pk=submission.pk, status="done").exists(),
            timeout=120,
            what="the regrade",
        )
    graded = Submission.objects.get(pk=submission.pk)
    assert graded.verdict == "AC" and graded.passed == graded.total == 5
    assert graded.attempts == 2  # claimed by the killed worker, then exactly once more
    assert graded.results.count() == 5  # no duplicate or partial results


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
    containers_before = sandbox_container_count()
    with worker(tmp_path / "worker.log", concurrency=2):
        ids = [
            submission_create(
                user=candidate, problem_slug=problem.slug, code=ADD_ONE, mode="submit"
            ).pk
            for _ in range(50)
        ]
        wait_for(
            lambda: Submission.objects.filter(pk__in=ids, status="done").count() == 50,
            timeout=400,
            interval=1,
            what="50 verdicts",
        )
    verdicts = list(Submission.objects.filter(pk__in=ids).values_list("verdict", "passed", "total"))
    assert verdicts == [("AC", 3, 3)] * 50
    assert sandbox_container_count() <= containers_before
