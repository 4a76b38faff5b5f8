"""Regrade previews: past submissions graded again against a new version before it goes
live; nothing about the submissions changes."""

from __future__ import annotations

import hashlib
import logging

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from grading import jobs
from grading.judge import JudgeError, judge
from grading.lanes import Lane
from grading.models import Submission
from grading.sandboxing import job_budget_seconds
from grading.services import grade_spec_for
from problems.models import ProblemVersion
from studio.models import Regrade, RegradeItem

log = logging.getLogger(__name__)


# ---------------------------------------------------------------- regrade preview

MAX_REGRADE_SUBMISSIONS = 500  # the most recent ones; older ones rarely change a decision
REGRADES = jobs.JobTable(
    model=Regrade,
    status_field="status",
    waiting=(Regrade.Status.QUEUED,),
    running=Regrade.Status.RUNNING,
    retrying=Regrade.Status.QUEUED,
    failed=Regrade.Status.FAILED,
)


def regrade_submissions(version: ProblemVersion) -> QuerySet[Submission]:
    """Past graded submit-mode submissions of the problem, newest first, not on `version`."""
    return (
        Submission.objects.filter(
            problem_id=version.problem_id,
            mode=Submission.Mode.SUBMIT,
            status=Submission.Status.DONE,
            trial=False,  # an author's try-out is not one of the problem's submissions
        )
        .exclude(version_id=version.pk)
        .select_related("version")
        .order_by("-created_at", "-pk")[:MAX_REGRADE_SUBMISSIONS]
    )


def _regrade_budget_seconds(regrade: Regrade) -> float:
    version = regrade.version
    return job_budget_seconds(version.limits, len(version.tests_for("submit")),
                              runs=max(1, regrade.total), batch=True)


REGRADE_JOBS = jobs.register(
    jobs.JobKind(
        name="regrade",
        table=REGRADES,
        task="studio.tasks.regrade_version",
        queue_kind=lambda regrade: regrade.version.problem.queue,
        lane=lambda regrade: Lane.BACKGROUND,
        budget_seconds=_regrade_budget_seconds,
        related=("version__problem",),
    )
)


def version_regrade_preview(*, version: ProblemVersion, user: User | None = None) -> Regrade:
    """Queue a regrade preview of `version` (graded in the background, once committed)."""
    with transaction.atomic():
        regrade = Regrade.objects.create(
            version=version, requested_by=user, total=regrade_submissions(version).count()
        )
        REGRADE_JOBS.enqueue_on_commit(regrade)
    return regrade


def regrade_run(*, regrade_id: int) -> jobs.Outcome:
    """Grade each past submission again against the regrade's version; record old → new.

    Submissions themselves are untouched. Identical code is graded once. A resumed run (after
    a platform fault or a dead worker) skips submissions it already recorded. Returns the
    job's outcome: DONE, SKIPPED, RETRY or FAILED.
    """
    claim = REGRADES.claim(regrade_id, started_at=timezone.now(), message="")
    if claim is jobs.Outcome.FAILED:
        REGRADES.give_up(regrade_id, message="the regrade stopped: too many attempts",
                         finished_at=timezone.now())
        return jobs.Outcome.FAILED
    if not isinstance(claim, jobs.Claim):
        return jobs.Outcome.SKIPPED  # busy (a duplicate delivery) or nothing to do
    try:
        with REGRADES.heartbeat(claim):
            return _regrade_grade_all(claim)
    except Exception as exc:
        # A platform fault, a bug or Celery's soft time limit: never left "running".
        return _regrade_fault(claim, repr(exc) if not isinstance(exc, JudgeError) else str(exc))


def _regrade_grade_all(claim: jobs.Claim) -> jobs.Outcome:
    regrade_id = claim.pk
    regrade = Regrade.objects.select_related("version__problem").get(pk=regrade_id)
    version = regrade.version
    submissions = list(regrade_submissions(version))
    Regrade.objects.filter(pk=regrade_id).update(total=len(submissions))
    recorded = set(regrade.items.values_list("submission_id", flat=True))
    by_code: dict[str, tuple[str, int, int, str]] = {}
    for submission in submissions:
        if submission.pk in recorded:
            continue
        key = hashlib.sha256(submission.code.encode()).hexdigest()
        if key not in by_code:
            spec = grade_spec_for(version=version, code=submission.code, mode="submit")
            try:
                judgement = judge(spec)
                by_code[key] = (judgement.verdict, judgement.passed, judgement.total, "")
            except JudgeError as exc:
                if exc.platform:
                    raise  # the platform, not the submission: retry the whole preview
                by_code[key] = ("IE", 0, len(spec.tests), str(exc)[:300])
        verdict, passed, total, message = by_code[key]
        RegradeItem.objects.update_or_create(
            regrade_id=regrade_id,
            submission=submission,
            defaults={
                "old_version_number": submission.version.number,
                "old_verdict": submission.verdict,
                "old_passed": submission.passed,
                "old_total": submission.total,
                "new_verdict": verdict,
                "new_passed": passed,
                "new_total": total,
                "changed": verdict != submission.verdict,
                "message": message,
            },
        )
        _regrade_count(regrade_id)
    _regrade_count(regrade_id)
    REGRADES.finish(claim, status=Regrade.Status.DONE, finished_at=timezone.now())
    return jobs.Outcome.DONE


def _regrade_count(regrade_id: int) -> None:
    items = RegradeItem.objects.filter(regrade_id=regrade_id)
    Regrade.objects.filter(pk=regrade_id).update(
        done=items.count(), changed=items.filter(changed=True).count()
    )


def _regrade_fault(claim: jobs.Claim, message: str) -> jobs.Outcome:
    # Back to queued so the retried task can claim it again; recorded items are kept.
    outcome = REGRADES.release(
        claim,
        error=message,
        retry_fields={"message": "grader unavailable, retrying"},
        failed_fields={"message": f"the regrade stopped: {message}"[:300],
                       "finished_at": timezone.now()},
    )
    return outcome
