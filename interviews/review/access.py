"""Who may review, score and read what, for one session: the interviews app's side of the
visibility policy (`core.visibility`, which holds the rules; this module tells who a user is).

* Admins ("staff") review every session.
* An interviewer reviews only the sessions they are assigned to: the session's own interviewer
  or one added to its panel (`ReviewAssignment`).
* Authors write problems: they review no session (a candidate's session is not theirs).
* The candidate reads their own report (never hidden-test data, interviewer notes or scores
  that were not released), and nobody else's.
Refusals look like missing sessions (404) so that ids leak nothing.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from core import visibility
from core.roles import is_admin, is_interviewer
from core.visibility import Viewer
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
    viewer = session_viewer(session, user)
    if viewer == Viewer.ADMIN:
        return STAFF
    if viewer == Viewer.ASSIGNED:
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

    An admin who does not score sees them all.
    """
    own = Scorecard.objects.filter(session=session, interviewer=user).first()
    state = None if own is None else ("submitted" if own.submitted_at else "draft")
    return visibility.others_scorecards_visible(session_viewer(session, user), own_card=state)


def sessions_for_review(user: Any) -> QuerySet[InterviewSession]:
    """Every session for admins, the assigned ones for an interviewer, none for anyone else."""
    qs = InterviewSession.objects.select_related("problem", "candidate", "interviewer")
    if is_admin(user):
        return qs
    if is_interviewer(user):
        return qs.filter(Q(interviewer=user) | Q(review_assignments__interviewer=user)).distinct()
    return qs.none()


def session_viewer(session: InterviewSession, user: Any) -> Viewer:
    """Who `user` is for `session`, in the policy's vocabulary (`core.visibility.Viewer`)."""
    if getattr(user, "is_authenticated", False) and session.candidate_id == user.pk:
        return Viewer.CANDIDATE
    viewer = visibility.base_viewer(user)
    if viewer == Viewer.UNASSIGNED and is_assigned(session, user):
        return Viewer.ASSIGNED
    return viewer


def submission_viewer(submission: Any, user: Any) -> Viewer | None:
    """An interviewer assigned to a session the submission was made in sees it as ASSIGNED
    (grading's own resolver already answered for admins and the owner)."""
    if not getattr(user, "is_authenticated", False) or not is_interviewer(user):
        return None
    sessions = InterviewSession.objects.filter(
        Q(events__submission_id=submission.pk) | Q(final_submission_id=submission.pk))
    assigned = sessions.filter(Q(interviewer=user) | Q(review_assignments__interviewer=user))
    return Viewer.ASSIGNED if assigned.exists() else None


def resolvers_register() -> None:
    """From `InterviewsConfig.ready`: teach the policy who a user is for sessions and for the
    submissions made in them."""
    visibility.viewer_resolver_register("session", session_viewer)
    visibility.viewer_resolver_register("submission", submission_viewer)
