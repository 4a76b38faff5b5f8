"""Who may review, score and read what, for one session.

* Authors and admins ("staff") review every session.
* An interviewer reviews only the sessions they are assigned to: the session's own interviewer
  or one added to its panel (`ReviewAssignment`).
* The candidate reads their own report (never hidden-test data, interviewer notes or scores
  that were not released), and nobody else's.
Refusals look like missing sessions (404) so that ids leak nothing.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from core.roles import is_admin, is_author, is_interviewer
from interviews.models import InterviewSession, ReviewAssignment, Scorecard

STAFF = "staff"
ASSIGNED = "assigned"
CANDIDATE = "candidate"


def is_assigned(session: InterviewSession, user: Any) -> bool:
    """The user is one of the session's interviewers (its own, or on its panel)."""
    if not getattr(user, "is_authenticated", False) or not is_interviewer(user):
        return False
    if session.interviewer_id == user.pk:
        return True
    return ReviewAssignment.objects.filter(session=session, interviewer=user).exists()


def review_role(session: InterviewSession, user: Any) -> str | None:
    """"staff", "assigned", or None for someone who may not review this session."""
    if not getattr(user, "is_authenticated", False):
        return None
    if is_author(user):
        return STAFF
    if is_assigned(session, user):
        return ASSIGNED
    return None


def report_role(session: InterviewSession, user: Any) -> str | None:
    """A reviewer's role, "candidate" for the session's own candidate, else None."""
    role = review_role(session, user)
    if role is not None:
        return role
    if getattr(user, "is_authenticated", False) and session.candidate_id == user.pk:
        return CANDIDATE
    return None


def can_score(session: InterviewSession, user: Any) -> bool:
    """Assigned interviewers and admins fill in a scorecard; authors only read."""
    return is_assigned(session, user) or is_admin(user)


def can_see_other_scores(session: InterviewSession, user: Any) -> bool:
    """Independent scoring: a scorer sees the others' scorecards only once theirs is submitted.

    A reviewer who does not score (an author) sees them all.
    """
    own = Scorecard.objects.filter(session=session, interviewer=user).first()
    if own is not None:
        return own.submitted_at is not None
    return not can_score(session, user)


def sessions_for_review(user: Any) -> QuerySet[InterviewSession]:
    """Every session for staff, the assigned ones for an interviewer, none for anyone else."""
    qs = InterviewSession.objects.select_related("problem", "candidate", "interviewer")
    if is_author(user):
        return qs
    if is_interviewer(user):
        return qs.filter(Q(interviewer=user) | Q(review_assignments__interviewer=user)).distinct()
    return qs.none()
