"""Celery tasks: the session clock.

One mechanism keeps a session's stored status in step with its deadline: the beat runs
`sessions_expire_overdue` every ONSITE_SESSION_SWEEP_SECONDS, which finishes (and submits the
final code of) every active session past its deadline. Readers never write: they derive the
status from the deadline (InterviewSession.status_now). Finishing is idempotent.
"""

from __future__ import annotations

from celery import shared_task

from interviews import services


@shared_task(name="interviews.tasks.session_expire", ignore_result=True)
def session_expire(session_id: int) -> bool:
    """Finish one session if its deadline has passed (the clock's step for one session)."""
    return services.session_expire_if_due(session_id)


@shared_task(name="interviews.tasks.sessions_expire_overdue", ignore_result=True)
def sessions_expire_overdue() -> int:
    return services.sessions_expire_overdue()


@shared_task(name="interviews.tasks.invitation_deliver", ignore_result=True)
def invitation_deliver(session_id: int, join_url: str, change_id: int | None = None) -> bool:
    """Send one schedule e-mail (invitation, reschedule, resend or cancel) to the candidate and
    the interviewer (the io worker's; the views only queue it)."""
    return services.invitation_send(session_id=session_id, join_url=join_url,
                                    change_id=change_id)
