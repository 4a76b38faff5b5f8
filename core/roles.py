"""Roles are Django groups; this module is the one place that knows their names."""

from __future__ import annotations

from typing import Any

CANDIDATE = "candidate"
INTERVIEWER = "interviewer"
AUTHOR = "author"
# Builds onsite loops for candidates and reads their hiring packets and calibration; does not
# interview, author problems or see sessions outside the loops they run.
RECRUITER = "recruiter"
ROLES = (CANDIDATE, INTERVIEWER, AUTHOR, RECRUITER)


def _in_group(user: Any, name: str) -> bool:
    return bool(user.is_authenticated and user.groups.filter(name=name).exists())


def is_admin(user: Any) -> bool:
    return bool(user.is_authenticated and (user.is_superuser or user.is_staff))


def is_interviewer(user: Any) -> bool:
    return is_admin(user) or _in_group(user, INTERVIEWER)


def is_author(user: Any) -> bool:
    return is_admin(user) or _in_group(user, AUTHOR)


def is_recruiter(user: Any) -> bool:
    return is_admin(user) or _in_group(user, RECRUITER)



def may_end_session(user: Any, *, candidate_id: int | None,
                    interviewer_id: int | None) -> bool:
    """Who ends a session early: the interviewer runs a live room, so only they end it (the
    candidate says "I'm done" instead); a session without an interviewer (solo practice) is
    the candidate's own to end."""
    if not getattr(user, "is_authenticated", False):
        return False
    if interviewer_id is not None:
        return bool(user.pk == interviewer_id)
    return candidate_id is not None and user.pk == candidate_id


def may_add_co_interviewer(user: Any, *, interviewer_id: int | None) -> bool:
    """Who adds interviewers to a session's panel: the interviewer who runs it and admins.
    A candidate, another interviewer or an author may not."""
    if is_admin(user):
        return True
    return bool(interviewer_id is not None and getattr(user, "is_authenticated", False)
                and user.pk == interviewer_id and is_interviewer(user))
