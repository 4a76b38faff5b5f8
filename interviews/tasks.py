"""Celery tasks: finish a session at its deadline, and sweep any that a lost task missed."""

from __future__ import annotations

import time

from celery import shared_task
from django.utils import timezone

from interviews import services
from interviews.models import InterviewSession

EARLY_WAIT_SECONDS = 5.0


@shared_task(name="interviews.tasks.session_expire", ignore_result=True)
def session_expire(session_id: int) -> bool:
    """Scheduled with eta = the deadline. Redelivery is harmless: finishing is idempotent.

    Celery may start an eta task a little before its eta (its timer rounds), and the broker may
    redeliver it early (visibility timeout): a task that finds the deadline just ahead waits
    for it; one that finds it far ahead schedules itself again for it.
    """
    if services.session_expire_if_due(session_id):
        return True
    deadline = (InterviewSession.objects.filter(pk=session_id, status="active")
                .values_list("deadline", flat=True).first())
    if deadline is None:
        return False  # finished already (or never started)
    ahead = (deadline - timezone.now()).total_seconds()
    if ahead > EARLY_WAIT_SECONDS:
        services.schedule_expiry(session_id, deadline)
        return False
    time.sleep(max(0.0, ahead) + 0.05)
    return services.session_expire_if_due(session_id)


@shared_task(name="interviews.tasks.sessions_expire_overdue", ignore_result=True)
def sessions_expire_overdue() -> int:
    return services.sessions_expire_overdue()
