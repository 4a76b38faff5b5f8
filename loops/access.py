"""Who may see and who may change a loop: the one place the loop pages and the API ask.

- See a loop (its page, its API detail): its candidate (once they claimed the invitation),
  the interviewers of its rounds (each round's own and its panel's co-interviewers), its
  creator, its hiring manager, recruiters and admins. Anyone else gets the 404 of a loop that
  does not exist.
- Build a loop: interviewers, recruiters and admins.
- Change a loop's schedule (move or cancel a round or the whole loop): its creator,
  recruiters and admins. A round's own interviewer still moves their round from the session's
  schedule page, as for any single session.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from core.roles import is_admin, is_interviewer, is_recruiter
from interviews.models import ReviewAssignment
from loops.models import Loop


def _signed_in(user: Any) -> bool:
    return user is not None and bool(getattr(user, "is_authenticated", False))


def loop_build_allowed(user: Any) -> bool:
    return _signed_in(user) and (is_interviewer(user) or is_recruiter(user))


def loop_manage_allowed(loop: Loop, user: Any) -> bool:
    if not _signed_in(user):
        return False
    return is_recruiter(user) or loop.created_by_id == user.pk


def loop_interviewer_ids(loop: Loop) -> set[int]:
    """Every interviewer of the loop's rounds: each round's own and its co-interviewers."""
    own = {i for i in loop.rounds.values_list("session__interviewer_id", flat=True) if i}
    panel = set(ReviewAssignment.objects.filter(session__loop_round__loop=loop)
                .values_list("interviewer_id", flat=True))
    return own | panel


def loop_visible(loop: Loop, user: Any) -> bool:
    if not _signed_in(user):
        return False
    if is_recruiter(user) or is_admin(user):
        return True
    if user.pk in (loop.candidate_id, loop.created_by_id, loop.hiring_manager_id):
        return True
    return user.pk in loop_interviewer_ids(loop)


def loops_visible_to(user: Any) -> QuerySet[Loop]:
    """The loops `user` may see (`loop_visible` as a query), newest first."""
    if not _signed_in(user):
        return Loop.objects.none()
    if is_recruiter(user) or is_admin(user):
        return Loop.objects.all()
    return Loop.objects.filter(
        Q(candidate=user) | Q(created_by=user) | Q(hiring_manager=user)
        | Q(rounds__session__interviewer=user)
        | Q(rounds__session__review_assignments__interviewer=user)
    ).distinct()
