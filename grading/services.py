"""Submissions: create, grade (claim, run, record, broadcast), retry, sweep."""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from grading import realtime
from grading.judge import Compare, GradeSpec, JudgeError, Judgement, TestSpec, TestVerdict, judge
from grading.models import Submission, TestResult
from problems.models import Problem, ProblemVersion
from sandbox.django_adapter import sandbox_gpu, sandbox_image, sandbox_limits

log = logging.getLogger(__name__)
UNAVAILABLE = "grader unavailable, retrying"


class GradingError(Exception):
    """A request the grading layer refuses; `code` says why (too_large, unknown_problem...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# ---------------------------------------------------------------- specs


def grade_spec_for(*, version: ProblemVersion, code: str, mode: str) -> GradeSpec:
    """Everything the judge needs to grade `code` against `version` in `mode`."""
    tests = [
        TestSpec(
            name=t["name"],
            input=t["input"],
            expected=t["expected"],
            tag=t.get("tag", "correctness"),
            hidden=t["hidden"],
            compare=t.get("compare"),
            group=t.get("group"),
        )
        for t in version.tests_for(mode)
    ]
    queue = version.problem.queue
    return GradeSpec(
        solution=code,
        driver={**version.driver, "source": version.driver_code}
        if version.driver["kind"] == "custom"
        else dict(version.driver),
        tests=tests,
        limits=sandbox_limits(version.limits),
        compare=Compare(**version.compare),
        image=sandbox_image(queue),
        gpu=sandbox_gpu(queue),
        checker_code=version.checker_code,
        support_code=version.support_code,
    )


def grade_now(*, problem: Problem, code: str, mode: str) -> Judgement:
    """Grade synchronously through the same pipeline as the queue, without storing anything."""
    version = problem.live_version
    if version is None:
        raise GradingError("no_version", f"problem {problem.slug} has no live version")
    return judge(grade_spec_for(version=version, code=code, mode=mode))


# ---------------------------------------------------------------- create


def _validate_code(code: str) -> None:
    limit = settings.ONSITE_MAX_CODE_BYTES
    size = len(code.encode("utf-8"))
    if size > limit:
        raise GradingError("too_large", f"code is {size} bytes; the limit is {limit} bytes")


def submission_create(*, user: User, problem_slug: str, code: str, mode: str) -> Submission:
    """Store a submission and queue its grading once the transaction commits."""
    if mode not in Submission.Mode.values:
        raise GradingError("bad_mode", f"mode must be one of {', '.join(Submission.Mode.values)}")
    _validate_code(code)
    problem = Problem.objects.filter(slug=problem_slug, published=True).first()
    if problem is None or problem.live_version is None:
        raise GradingError("unknown_problem", f"no published problem {problem_slug!r}")
    with transaction.atomic():
        submission = Submission.objects.create(
            user=user, problem=problem, version=problem.live_version, mode=mode, code=code
        )
        transaction.on_commit(lambda: submission_enqueue(submission=submission))
    return submission


def submission_enqueue(*, submission: Submission, countdown: float = 0) -> None:
    """Hand the submission to the queue of its problem. A broker outage loses nothing:
    the submission stays queued in the database and the sweeper hands it out again."""
    from grading.tasks import grade_submission

    Submission.objects.filter(pk=submission.pk).update(enqueued_at=timezone.now())
    try:
        grade_submission.apply_async(
            args=[submission.pk],
            queue=submission.problem.queue,
            countdown=countdown,
            **_task_time_limits(submission.version),
        )
    except Exception:  # kombu/redis raise many types; the sweeper retries all of them
        log.exception("could not enqueue submission %s; the sweeper will retry", submission.pk)


def _task_time_limits(version: ProblemVersion) -> dict[str, float]:
    """Celery's limits sit above the sandbox's own wall limit, never below it."""
    wall = sandbox_limits(version.limits).total_wall_seconds(len(version.tests_for("submit")))
    return {"soft_time_limit": wall + 30, "time_limit": wall + 60}


# ---------------------------------------------------------------- grade


def _claim(submission_id: int) -> uuid.UUID | None:
    """Take the submission for grading with one conditional UPDATE.

    The race it prevents: the same task delivered twice (a redelivery after a worker died, or
    the sweeper's re-enqueue) must grade once. Only a queued/retrying submission, or a running
    one whose holder's lease expired (its worker died), can be claimed.
    """
    now = timezone.now()
    token = uuid.uuid4()
    submission = Submission.objects.select_related("version").get(pk=submission_id)
    wall = sandbox_limits(submission.version.limits).total_wall_seconds(
        len(submission.version.tests_for(submission.mode))
    )
    claimed = (
        Submission.objects.filter(pk=submission_id)
        .filter(
            Q(status__in=[Submission.Status.QUEUED, Submission.Status.RETRYING])
            | Q(status=Submission.Status.RUNNING, lease_until__lt=now)
        )
        .update(
            status=Submission.Status.RUNNING,
            claim_token=token,
            lease_until=now + timedelta(seconds=wall + settings.ONSITE_LEASE_MARGIN_SECONDS),
            started_at=now,
            message="",
            attempts=F("attempts") + 1,
        )
    )
    return token if claimed == 1 else None


def _record_test(submission_id: int, verdict: TestVerdict, *, done: int, total: int) -> None:
    TestResult.objects.update_or_create(
        submission_id=submission_id,
        index=verdict.index,
        defaults={
            "name": verdict.name,
            "hidden": verdict.hidden,
            "tag": verdict.tag,
            "group": verdict.group or "",
            "verdict": verdict.verdict,
            "time_ms": verdict.time_ms,
            "detail": dict(verdict.detail),
        },
    )
    realtime.broadcast_test(submission_id, verdict, done=done, total=total)


def done_event(submission: Submission) -> dict[str, Any]:
    return {
        "type": "done",
        "verdict": submission.verdict,
        "passed": submission.passed,
        "total": submission.total,
        "score": submission.score,
        "by_tag": submission.by_tag,
        "by_group": submission.by_group,
    }


def status_event(submission: Submission) -> dict[str, Any]:
    return {"type": "status", "status": submission.status, "message": submission.message}


def _finish(submission_id: int, token: uuid.UUID, judgement: Judgement) -> bool:
    """Store the result unless another worker took the submission over meanwhile."""
    updated = Submission.objects.filter(pk=submission_id, claim_token=token).update(
        status=Submission.Status.DONE,
        verdict=judgement.verdict,
        passed=judgement.passed,
        total=judgement.total,
        score=judgement.score,
        by_tag={tag: list(counts) for tag, counts in judgement.by_tag.items()},
        by_group={group: list(counts) for group, counts in judgement.by_group.items()},
        finished_at=timezone.now(),
        claim_token=None,
        lease_until=None,
        message="",
    )
    return updated == 1


def _release_for_retry(submission_id: int, token: uuid.UUID, error: str) -> str:
    """Put the submission back after a platform fault; give up (IE) past the retry budget."""
    submission = Submission.objects.get(pk=submission_id)
    out_of_attempts = submission.attempts >= settings.ONSITE_GRADE_MAX_ATTEMPTS
    fields: dict[str, Any] = {"claim_token": None, "lease_until": None}
    if out_of_attempts:
        fields |= {
            "status": Submission.Status.FAILED,
            "verdict": Submission.Verdict.IE,
            "message": "the grader is unavailable; this run was not charged",
            "finished_at": timezone.now(),
        }
    else:
        fields |= {"status": Submission.Status.RETRYING, "message": UNAVAILABLE}
    Submission.objects.filter(pk=submission_id, claim_token=token).update(**fields)
    log.warning(
        "submission %s: platform fault (%s), %s",
        submission_id,
        error,
        "gave up" if out_of_attempts else "will retry",
    )
    return "failed" if out_of_attempts else "retry"


def submission_grade(*, submission_id: int) -> str:
    """Grade one submission. Returns "done", "skipped" (someone else has it), "retry" or
    "failed" (platform fault past the retry budget)."""
    token = _claim(submission_id)
    if token is None:
        return "skipped"
    submission = Submission.objects.select_related("version__problem").get(pk=submission_id)
    # A worker that died mid-grade may have left partial results: start clean.
    TestResult.objects.filter(submission_id=submission_id).delete()
    realtime.broadcast(submission_id, status_event(submission))
    spec = grade_spec_for(version=submission.version, code=submission.code, mode=submission.mode)
    finished = 0

    def on_verdict(verdict: TestVerdict) -> None:
        nonlocal finished
        finished += 1
        _record_test(submission_id, verdict, done=finished, total=len(spec.tests))

    try:
        judgement = judge(spec, on_verdict=on_verdict)
    except JudgeError as exc:
        outcome = _release_for_retry(submission_id, token, str(exc))
        submission.refresh_from_db()
        realtime.broadcast(submission_id, status_event(submission))
        if outcome == "failed":
            realtime.broadcast(submission_id, done_event(submission))
        return outcome
    if _finish(submission_id, token, judgement):
        submission.refresh_from_db()
        realtime.broadcast(submission_id, status_event(submission))
        realtime.broadcast(submission_id, done_event(submission))
    return "done"


def retry_countdown(attempts: int) -> float:
    """Exponential backoff for a grader outage: base, 2×base, 4×base… capped at 5 minutes."""
    base: float = settings.ONSITE_GRADE_RETRY_BASE_SECONDS
    return float(min(300.0, base * 2 ** max(0, attempts - 1)))


def submissions_requeue_stale() -> int:
    """Hand out again what the queue may have lost (broker restart, worker death).

    Grading claims are idempotent, so a duplicate message is harmless: it is skipped.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.ONSITE_STALE_SUBMISSION_SECONDS)
    candidates = Submission.objects.filter(
        Q(status__in=[Submission.Status.QUEUED, Submission.Status.RETRYING], enqueued_at__lt=stale)
        | Q(status=Submission.Status.QUEUED, enqueued_at__isnull=True)
        | Q(status=Submission.Status.RUNNING, lease_until__lt=now)
    ).select_related("problem", "version")
    count = 0
    for submission in candidates:
        submission_enqueue(submission=submission)
        count += 1
    return count
