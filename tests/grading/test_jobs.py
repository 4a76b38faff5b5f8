"""Leases hold under load on SQLite, the embedded default of `make run` (issue 34.7): a renewal
that meets another writer's lock is retried within the lease instead of waiting for the next
beat, and eight gradings at once lose no lease and run no job twice. Real SQLite file, real
workers, Redis and Docker."""

from __future__ import annotations

import logging
import re
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connection

from grading import jobs
from grading.models import Submission
from grading.services import SUBMISSIONS, submission_create
from tests.factories import ADD_ONE, tiny_problem, user_with_role
from tests.processes import wait_for, worker

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not django_settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"),
        reason="SQLite's write lock is what these tests hold",
    ),
]

SLOW_ADD_ONE = "import time\n\ndef solve(x):\n    time.sleep(1.2)\n    return x + 1\n"


def _submission() -> Submission:
    """A job row that no worker will see (created directly: nothing is enqueued)."""
    problem = tiny_problem()
    owner = user_with_role("owner", "candidate")
    return Submission.objects.create(
        user=owner, problem=problem, version=problem.live_version, mode="run", code=ADD_ONE
    )


def _lease_until(pk: int) -> object:
    return Submission.objects.values_list("lease_until", flat=True).get(pk=pk)


@pytest.mark.slow  # real heartbeats: a beat every 4 s, each try waiting up to 3 s
def test_a_renewal_blocked_by_another_writer_is_retried_and_keeps_the_lease(  # type: ignore[no-untyped-def]
    settings, caplog
) -> None:
    settings.ONSITE_LEASE_SECONDS = 12.0  # a beat every 4 s, each try waits at most 3 s
    submission = _submission()
    claim = SUBMISSIONS.claim(submission.pk)
    assert isinstance(claim, jobs.Claim)
    first_lease = _lease_until(submission.pk)
    # Another process's connection to the same file, as a busy web process or worker is
    blocker = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None, timeout=30)

    def renewal_failures() -> list[str]:
        return [r.getMessage() for r in caplog.records if "lease renewal failed" in r.getMessage()]

    with caplog.at_level(logging.INFO, logger="grading.jobs"), SUBMISSIONS.heartbeat(claim):
        # Given another writer holding SQLite's write lock (readers still read: WAL)
        blocker.execute("BEGIN EXCLUSIVE")
        try:
            # When the heartbeat's renewal meets it, the failure is logged and retried ...
            wait_for(renewal_failures, timeout=120, what="a renewal to fail on the lock")
        finally:
            blocker.execute("COMMIT")
            blocker.close()
        # ... and once the writer is done, a retry renews the lease without waiting a beat
        wait_for(lambda: _lease_until(submission.pk) != first_lease, timeout=60,
                 what="the lease to be renewed")  # fmt: skip
        renewed_until = _lease_until(submission.pk)

    failures = renewal_failures()
    assert "database is locked" in failures[0] and "of the lease left" in failures[0]
    assert any("lease renewed after" in r.getMessage() for r in caplog.records)
    assert not any("lease ran out" in r.getMessage() for r in caplog.records)
    # Renewed within the lease: the renewal happened before the first lease ran out, so
    # there was no moment another worker could have taken the job over
    lease = timedelta(seconds=settings.ONSITE_LEASE_SECONDS)
    assert renewed_until - lease < first_lease  # type: ignore[operator]
    # The claim is still this worker's: another delivery of the job finds it busy
    row = Submission.objects.get(pk=submission.pk)
    assert row.claim_token == claim.token and row.attempts == 1
    assert SUBMISSIONS.claim(submission.pk) is jobs.Outcome.BUSY


DONE_LINE = re.compile(r"grade_submission\[[^\]]+\] succeeded in [^:]+: 'done'")


@pytest.mark.docker
@pytest.mark.slow
def test_eight_gradings_at_once_on_sqlite_lose_no_lease_and_run_no_job_twice(
    tmp_path: Path,
) -> None:
    problem = tiny_problem()
    candidates = [user_with_role(f"cand{n}", "candidate") for n in range(8)]
    log_path = tmp_path / "worker.log"
    # Eight worker processes grading at once, each renewing a short lease every 2 s while
    # they all write their results to one SQLite file
    with worker(log_path, concurrency=8, ONSITE_LEASE_SECONDS="6"):
        ids = [
            submission_create(
                user=candidate, problem_slug=problem.slug, code=SLOW_ADD_ONE, mode="submit"
            ).pk
            for candidate in candidates
        ]
        wait_for(
            lambda: Submission.objects.filter(pk__in=ids, status="done").count() == 8,
            timeout=600,
            interval=1,
            what="eight verdicts",
        )
        # A task writes its verdict before it returns: wait for the worker to say each one
        # succeeded before stopping it (stopping sooner kills tasks that are only finishing).
        wait_for(
            lambda: len(DONE_LINE.findall(log_path.read_text(errors="replace"))) >= 8,
            timeout=120,
            interval=0.5,
            what="eight tasks reported done",
        )
    log = log_path.read_text(errors="replace")
    graded = list(Submission.objects.filter(pk__in=ids))
    # They did run at once (the contention this test is about)
    spans = [(s.started_at, s.finished_at) for s in graded]
    assert max(sum(1 for a, b in spans if a <= start < b) for start, _ in spans) >= 2
    for submission in graded:
        assert (submission.verdict, submission.passed) == ("AC", submission.total)
        assert submission.attempts == 1, submission.pk  # claimed once: never taken over
        assert submission.results.count() == submission.total  # no duplicate results
        assert submission.claim_token is None and submission.lease_until is None
    # Every job ran to its verdict exactly once, and no lease was lost or ran out
    done = DONE_LINE.findall(log)
    assert len(done) == 8, log[-4000:]
    assert "claim lost" not in log and "lease ran out" not in log
