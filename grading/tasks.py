"""Celery tasks: thin wrappers that take ids and call one service each."""

from __future__ import annotations

from celery import Task, shared_task

from grading.models import Submission
from grading.services import retry_countdown, submission_grade, submissions_requeue_stale


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def grade_submission(self: Task, submission_id: int) -> str:
    """Grade one submission; on a platform fault, retry later with backoff."""
    outcome = submission_grade(submission_id=submission_id)
    if outcome == "retry":
        attempts = Submission.objects.values_list("attempts", flat=True).get(pk=submission_id)
        raise self.retry(countdown=retry_countdown(attempts))
    return outcome


@shared_task(ignore_result=True)
def sweep_stale_submissions() -> int:
    """Periodic: re-enqueue submissions the broker or a dead worker may have lost."""
    return submissions_requeue_stale()


@shared_task(ignore_result=True)
def reap_sandboxes() -> int:
    """Periodic: remove sandbox containers a killed worker left behind."""
    from sandbox import reap

    return len(reap())
