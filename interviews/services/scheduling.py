"""A scheduled live session's calendar: reschedule, resend, cancel, and when its link opens.

Each change is a `ScheduleChange` row (who, when, what it set, the calendar SEQUENCE it
raised) and one e-mail to the candidate and the interviewer, queued on the io queue after the
transaction commits (`invitations.invitation_enqueue`). Only a session that has not started
can change; the row lock orders a change against the candidate's join.

The link opens ONSITE_JOIN_EARLY_MINUTES before the planned start: earlier, the candidate sees
a waiting room; a cancelled session cannot be joined at all.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.roles import is_admin, is_interviewer
from interviews import hooks
from interviews.models import InterviewSession, ReviewAssignment, ScheduleChange
from interviews.services.invitations import invitation_enqueue, invitation_recipients
from interviews.services.sessions import (
    SCHEDULE_SLACK,
    SessionError,
    _check_duration,
    join_opens_at,
    join_too_early,
)

Action = ScheduleChange.Action
Status = InterviewSession.Status
__all__ = [
    "extension_runs_into",
    "join_opens_at",
    "join_too_early",
    "schedule_change_allowed",
    "schedule_change_record",
    "session_cancel",
    "session_invitation_resend",
    "session_reschedule",
]


def schedule_change_allowed(session: InterviewSession, user: Any) -> bool:
    """The session's interviewer(s) (its own, or one on its panel) and admins."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if is_admin(user):
        return True
    if not is_interviewer(user):
        return False
    return session.interviewer_id == user.pk or ReviewAssignment.objects.filter(
        session=session, interviewer=user).exists()


def schedule_change_record(*, session: InterviewSession, action: str, by: Any,
                           now: datetime | None = None) -> ScheduleChange:
    """Record a change of a (locked or new) session, raising its calendar SEQUENCE for every
    change after the invitation."""
    if action != Action.INVITED:
        session.calendar_sequence += 1
    session.invitation_sent_at = None
    session.invitation_error = ""
    session.save(update_fields=["calendar_sequence", "invitation_sent_at", "invitation_error",
                                "scheduled_for", "duration", "status", "cancelled_at"])
    return ScheduleChange.objects.create(
        session=session, action=action, sequence=session.calendar_sequence,
        scheduled_for=session.scheduled_for, duration=session.duration,
        by=by if getattr(by, "is_authenticated", False) else None, at=now or timezone.now(),
    )


def _locked_for_change(session_id: int, user: Any) -> InterviewSession:
    session = (InterviewSession.objects.select_for_update()
               .filter(pk=session_id, kind=InterviewSession.Kind.LIVE).first())
    if session is None or not schedule_change_allowed(session, user):
        # Worded as a missing session: a stranger learns nothing about which sessions exist.
        raise SessionError("not_participant", "no such session")
    if session.status == Status.CANCELLED:
        raise SessionError("conflict", "this interview was cancelled")
    if session.status != Status.SCHEDULED:
        raise SessionError("conflict", "the interview has started: its schedule is fixed")
    return session


def _kept_here_check(session: InterviewSession, user: Any) -> None:
    """A session whose time something else keeps with others (a loop round: interviews.hooks)
    is moved and called off there, where those others are checked too, never from here."""
    keeper = hooks.schedule_keeper(session, user)
    if keeper is not None:
        raise SessionError("kept_elsewhere",
                           f"this interview is {keeper.what}: it is moved or cancelled "
                           f"{keeper.where}")


def extension_runs_into(session: InterviewSession, user: Any) -> dict[str, str] | None:
    """After more time was given: what starts after this session where its time is kept (the
    loop's next round) and now starts before it ends, as `{"what", "starts"}` (that start
    does not move); None when nothing does."""
    keeper = hooks.schedule_keeper(session, user)
    if (keeper is None or keeper.next_start is None or session.deadline is None
            or session.deadline <= keeper.next_start):
        return None
    return {"what": keeper.next_what, "starts": keeper.next_start.isoformat()}


def _mail(session: InterviewSession, change: ScheduleChange, join_url: str) -> None:
    if invitation_recipients(session):
        invitation_enqueue(session_id=session.pk, join_url=join_url, change_id=change.pk)


def session_reschedule(*, session_id: int, user: Any, scheduled_for: datetime | None,
                       duration: timedelta, join_url: str) -> ScheduleChange:
    """Move a scheduled session (its start, its length) and e-mail the updated entry."""
    _check_duration(duration)
    if scheduled_for is not None and scheduled_for < timezone.now() - SCHEDULE_SLACK:
        raise SessionError("bad_start", "the start time is in the past")
    with transaction.atomic():
        session = _locked_for_change(session_id, user)
        _kept_here_check(session, user)
        session.scheduled_for, session.duration = scheduled_for, duration
        change = schedule_change_record(session=session, action=Action.RESCHEDULED, by=user)
        _mail(session, change, join_url)
    return change


def session_invitation_resend(*, session_id: int, user: Any, join_url: str) -> ScheduleChange:
    """E-mail the invitation and its calendar entry again (a new SEQUENCE, same UID)."""
    with transaction.atomic():
        session = _locked_for_change(session_id, user)
        if not invitation_recipients(session):
            raise SessionError("no_recipient", "nobody to e-mail: the session has no address")
        change = schedule_change_record(session=session, action=Action.RESENT, by=user)
        _mail(session, change, join_url)
    return change


def session_cancel(*, session_id: int, user: Any, join_url: str) -> ScheduleChange:
    """Call a scheduled session off: its link stops working and both sides get a CANCEL."""
    with transaction.atomic():
        session = _locked_for_change(session_id, user)
        _kept_here_check(session, user)
        now = timezone.now()
        session.status, session.cancelled_at = Status.CANCELLED, now
        change = schedule_change_record(session=session, action=Action.CANCELLED, by=user,
                                        now=now)
        _mail(session, change, join_url)
    return change
