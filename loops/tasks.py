"""The loops' Celery tasks (the io queue's: e-mail, never a grading slot)."""

from __future__ import annotations

from celery import shared_task

from loops.services.mail import loop_mail_send


@shared_task(name="loops.tasks.loop_mail_deliver", ignore_result=True)
def loop_mail_deliver(loop_id: int, change_ids: list[int], site: str) -> bool:
    """Send one change of a loop to its candidate and interviewers (the views only queue it)."""
    return loop_mail_send(loop_id=loop_id, change_ids=change_ids, site=site)
