"""Celery tasks: finish a session at its deadline, and sweep any that a lost task missed."""

from __future__ import annotations

from celery import shared_task

from interviews import services


@shared_task(name="interviews.tasks.session_expire", ignore_result=True)
def session_expire(session_id: int) -> bool:
    """Scheduled with eta = the deadline. Redelivery is harmless: finishing is idempotent."""
    return services.session_expire_if_due(session_id)


@shared_task(name="interviews.tasks.sessions_expire_overdue", ignore_result=True)
def sessions_expire_overdue() -> int:
    return services.sessions_expire_overdue()
