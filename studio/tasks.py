"""Celery tasks of the authoring studio: thin wrappers that take ids and call one service each.

Both run on the background lane of the problem's own queue kind (cpu or gpu), where its sandbox
image and devices are; both follow grading.jobs' lifecycle (the attempt cap lives in the
database, the sweep is grading.tasks.sweep_stale_jobs).
"""

from __future__ import annotations

from celery import Task, shared_task

from grading import jobs
from grading.tasks import job_outcome
from problems.models import ProblemVersion
from studio.services.regrades import REGRADES, regrade_run
from studio.services.validations import VALIDATIONS, version_validate

AGAIN = (jobs.Outcome.RETRY, jobs.Outcome.BUSY)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def validate_version(self: Task, version_id: int) -> str:
    """Validate one problem version; retry with backoff while the grader is unavailable."""
    version = ProblemVersion.objects.filter(pk=version_id).first()
    if version is None:
        return "gone"
    result = version_validate(version=version)
    if result in AGAIN:
        return job_outcome(self, jobs.Outcome(result), VALIDATIONS, version_id)
    return str(result)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def regrade_version(self: Task, regrade_id: int) -> str:
    """Run one regrade preview; retry with backoff while the grader is unavailable."""
    result = regrade_run(regrade_id=regrade_id)
    if result in AGAIN:
        return job_outcome(self, jobs.Outcome(result), REGRADES, regrade_id)
    return str(result)
