"""Reads: who may see a submission, and what they see."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from core import visibility
from core.roles import is_admin, is_author
from core.visibility import Viewer
from grading import events, queueing, visible
from grading.models import Submission


@dataclass(frozen=True)
class Access:
    allowed: bool
    staff: bool


def submission_owner_viewer(submission: Submission, user: Any) -> Viewer | None:
    """Grading's part of who sees a submission: admins, and its owner (as author or not).

    The interviews app adds the interviewers assigned to a session the submission belongs to.
    """
    if not getattr(user, "is_authenticated", False):
        return None
    if is_admin(user):
        return Viewer.ADMIN
    if submission.user_id == user.pk:
        return Viewer.AUTHOR if is_author(user) else Viewer.CANDIDATE
    return None


def submission_access(*, user: Any, submission_id: int) -> Access | None:
    """None when the submission does not exist; `allowed` False when the user may not see it."""
    submission = Submission.objects.filter(pk=submission_id).first()
    if submission is None:
        return None
    viewer = visibility.viewer_of("submission", submission, user)
    return Access(allowed=viewer is not None,
                  staff=visibility.may_see(visibility.HIDDEN_TEST_IO, viewer))


def submission_get(*, submission_id: int) -> Submission:
    return Submission.objects.select_related("problem").get(pk=submission_id)


def submissions_of(user: Any, *, problem_slug: str = "") -> QuerySet[Submission]:
    """The user's own submissions, newest first (staff too see only their own here)."""
    if not getattr(user, "is_authenticated", False):
        return Submission.objects.none()
    own = Submission.objects.filter(user=user).select_related("problem").order_by("-created_at")
    return own.filter(problem__slug=problem_slug) if problem_slug else own


def submission_summary(submission: Submission) -> dict[str, Any]:
    """One row of a submission list: what it was and how it did, with the code."""
    return {
        "id": submission.pk,
        "problem": submission.problem.slug,
        "mode": submission.mode,
        "status": submission.status,
        "verdict": submission.verdict,
        "passed": submission.passed,
        "total": submission.total,
        "score": submission.score,
        "by_tag": submission.by_tag,
        "worst_by_tag": submission.worst_by_tag,
        "created_at": submission.created_at.isoformat(),
        "code": submission.code,
    }


def submission_detail(*, submission: Submission, staff: bool) -> dict[str, Any]:
    """The API's view of a submission: its tests as `visible.graded_tests_view` builds them
    (hidden ones for staff alone; a candidate reads them only in the summary's counts)."""
    audience = visible.STAFF if staff else visible.CANDIDATE
    tests = visible.graded_tests_view(submission.results.order_by("index"), audience=audience)
    position = queueing.queue_position(submission)
    return {
        "id": submission.pk,
        "problem": submission.problem.slug,
        "mode": submission.mode,
        "status": submission.status,
        "message": submission.message,
        "lane": submission.lane,
        "queue": position.as_event() if position else None,
        **events.verdict_summary(submission),
        "created_at": submission.created_at.isoformat(),
        "tests": tests,
    }
