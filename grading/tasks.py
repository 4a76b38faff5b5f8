"""Celery tasks: thin wrappers that take ids and call one service each."""

from __future__ import annotations

import time

from celery import Task, shared_task

from grading import jobs
from grading.copies import CODEPRINTS, codeprint_compute
from grading.services import SUBMISSIONS, slot_time_record, submission_grade


def job_outcome(task: Task, outcome: jobs.Outcome, table: jobs.JobTable, pk: int) -> str:
    """What every job task does with an attempt's outcome: retry with backoff after a platform
    fault, come back once a live holder's lease may have run out, else report it."""
    if outcome is jobs.Outcome.RETRY:
        attempts = table.model._default_manager.values_list("attempts", flat=True).get(pk=pk)
        raise task.retry(countdown=jobs.retry_countdown(attempts))
    if outcome is jobs.Outcome.BUSY:
        # A redelivered message while the first worker still holds the lease: if that worker
        # is dead its lease runs out within one lease period, and this attempt takes over.
        raise task.retry(countdown=table.busy_countdown(pk))
    return str(outcome)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def grade_submission(self: Task, submission_id: int) -> str:
    """Grade one submission (the attempt cap lives in the database, see grading.jobs)."""
    began = time.monotonic()
    outcome = submission_grade(submission_id=submission_id)
    if outcome is jobs.Outcome.DONE:  # how long the slot was held: the queue's estimates
        slot_time_record(submission_id=submission_id, seconds=time.monotonic() - began)
    return job_outcome(self, outcome, SUBMISSIONS, submission_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def fingerprint_submission(self: Task, codeprint_id: int) -> str:
    """Fingerprint one Submit and compare it with the problem's stored ones (background)."""
    return job_outcome(self, codeprint_compute(codeprint_id=codeprint_id), CODEPRINTS, codeprint_id)


@shared_task(ignore_result=True)
def sweep_stale_jobs() -> dict[str, int]:
    """Periodic: hand out again every job (of every registered kind) that the broker or a dead
    worker may have lost, and the validations `loadproblems` left pending."""
    return jobs.requeue_all_stale()


@shared_task(ignore_result=True)
def reap_sandboxes() -> int:
    """Periodic: remove sandbox containers a killed worker left behind."""
    from sandbox import reap

    return len(reap())
