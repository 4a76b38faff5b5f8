"""Celery tasks of loops, on the io queue: the chase of missing scorecards (loops.services.
feedback), run by the beat every CHASE_SWEEP_SECONDS."""

from __future__ import annotations

from celery import shared_task

from loops.services import feedback


@shared_task(name="loops.tasks.scorecards_chase", ignore_result=True)
def scorecards_chase() -> int:
    return feedback.scorecards_chase()
