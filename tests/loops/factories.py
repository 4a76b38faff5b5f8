"""A loop built row by row for tests that need one before (or without) the loop builder:
each round a live session scheduled the ordinary way, without e-mail."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from interviews import services as session_services
from loops.models import Loop, LoopRound
from problems.models import Problem


def loop_with_rounds(
    *,
    candidate: User | None,
    rounds: list[tuple[Problem, User]],
    created_by: User,
    title: str = "ML infrastructure onsite",
    start: datetime | None = None,
    minutes: int = 45,
    break_minutes: int = 15,
    **fields: object,
) -> Loop:
    """A scheduled loop: one round per (problem, interviewer), back to back with breaks."""
    at = start or timezone.now() + timedelta(days=1)
    loop = Loop.objects.create(title=title, candidate=candidate, created_by=created_by,
                               **fields)
    for position, (problem, interviewer) in enumerate(rounds, start=1):
        session = session_services.session_schedule_live(
            interviewer=interviewer, problem_slug=problem.slug, candidate=candidate,
            duration=timedelta(minutes=minutes), scheduled_for=at,
        )
        LoopRound.objects.create(loop=loop, position=position, session=session,
                                 break_after=timedelta(minutes=break_minutes))
        at += timedelta(minutes=minutes + break_minutes)
    return loop
