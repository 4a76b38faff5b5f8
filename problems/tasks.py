"""Celery tasks of the authoring studio: thin wrappers that take ids and call one service each.

Both run on the problem's own queue (cpu or gpu), where its sandbox image and devices are.
"""

from __future__ import annotations

from celery import Task, shared_task

from grading.services import retry_countdown
from problems.models import ProblemVersion
from problems.services import regrade_run, version_validate

MAX_RETRIES = 5  # platform faults (Docker down) only; a failing package fails at once


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=MAX_RETRIES)
def validate_version(self: Task, version_id: int) -> str:
    """Validate one problem version; retry with backoff while the grader is unavailable."""
    version = ProblemVersion.objects.filter(pk=version_id).first()
    if version is None:
        return "gone"
    final = self.request.retries >= MAX_RETRIES
    outcome = version_validate(version=version, final_attempt=final)
    if outcome == "retry":
        raise self.retry(countdown=retry_countdown(self.request.retries + 1))
    return outcome


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=MAX_RETRIES)
def regrade_version(self: Task, regrade_id: int) -> str:
    """Run one regrade preview; retry with backoff while the grader is unavailable."""
    final = self.request.retries >= MAX_RETRIES
    outcome = regrade_run(regrade_id=regrade_id, final_attempt=final)
    if outcome == "retry":
        raise self.retry(countdown=retry_countdown(self.request.retries + 1))
    return outcome
