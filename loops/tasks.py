"""The loops' Celery tasks, on the io queue (never a grading slot): a loop's e-mails, and the
beat's chase of missing scorecards (loops.services.feedback) every CHASE_SWEEP_SECONDS."""

from __future__ import annotations

from celery import shared_task

from loops.services import feedback
from loops.services.mail import loop_mail_send


@shared_task(name="loops.tasks.loop_mail_deliver", ignore_result=True)
def loop_mail_deliver(loop_id: int, change_ids: list[int], site: str) -> bool:
    """Send one change of a loop to its candidate and interviewers (the views only queue it)."""
    return loop_mail_send(loop_id=loop_id, change_ids=change_ids, site=site)


@shared_task(name="loops.tasks.scorecards_chase", ignore_result=True)
def scorecards_chase() -> int:
    return feedback.scorecards_chase()
