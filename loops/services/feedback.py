"""Independent feedback's background side: a loop's missing scorecards chased by e-mail, and
the `loop.scorecards_complete` webhook once the last one is in.

The chase: the io worker's beat runs `scorecards_chase` (loops.tasks) every
`CHASE_SWEEP_SECONDS`; a round whose session finished at least ONSITE_LOOP_CHASE_HOURS ago
and was not chased yet (`LoopRound.chased_at`) gets one e-mail to each of its panel (its
interviewer and co-interviewers) who has not submitted a scorecard, and is then marked
chased, under the round's row lock: a sweep run twice, or two workers at once, mail nobody
twice. A failed send leaves the round to the next sweep.
"""

from __future__ import annotations

import logging
import smtplib
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from django.urls import reverse
from django.utils import timezone

from core import visibility
from core.visibility import SessionState
from interviews.models import InterviewSession, ReviewAssignment, Scorecard
from interviews.review.webhooks import webhook_send
from interviews.services import session_clock_state
from loops.models import Loop, LoopRound

log = logging.getLogger(__name__)

LOOP_SCORECARDS_COMPLETE = "loop.scorecards_complete"
CHASE_SWEEP_SECONDS = 300.0


def round_panel(session: InterviewSession) -> list[Any]:
    """Who writes a scorecard of the round: its interviewer, then its co-interviewers."""
    people = [session.interviewer] if session.interviewer_id else []
    for assignment in ReviewAssignment.objects.filter(session=session).select_related(
            "interviewer").order_by("id"):
        if assignment.interviewer_id != session.interviewer_id:
            people.append(assignment.interviewer)
    return people


def missing_scorecards(session: InterviewSession) -> list[Any]:
    """The round's panel members without a submitted scorecard."""
    submitted = set(Scorecard.objects.filter(session=session).exclude(submitted_at=None)
                    .values_list("interviewer_id", flat=True))
    return [person for person in round_panel(session) if person.pk not in submitted]


def _chase_due(now: Any) -> list[int]:
    hours = float(settings.ONSITE_LOOP_CHASE_HOURS)
    return list(LoopRound.objects.filter(
        chased_at__isnull=True, session__status=InterviewSession.Status.FINISHED,
        session__finished_at__lte=now - timedelta(hours=hours),
    ).exclude(loop__status=Loop.Status.CANCELLED).values_list("pk", flat=True))


def chase_body(loop_round: LoopRound, person: Any) -> str:
    session = loop_round.session
    review = reverse("interviews:review", kwargs={"session_id": session.pk})
    name = loop_round.label or session.problem.title
    return (
        f"Hello {person.get_username()},\n\n"
        f"Round {loop_round.position} ({name}) of the loop \"{loop_round.loop.title}\" ended "
        f"and your scorecard is not submitted yet. The hiring packet waits for it, and the "
        f"other interviewers' scorecards stay closed to you until yours is in.\n\n"
        f"Your scorecard: {review}#scorecard (on Onsite)\n"
    )


def round_chase(round_id: int) -> list[str]:
    """Chase one round's missing scorecards, once; the addresses mailed."""
    with transaction.atomic():
        loop_round = (LoopRound.objects.select_for_update(of=("self",)).select_related(
            "loop", "session__problem", "session__interviewer").filter(pk=round_id).first())
        if loop_round is None or loop_round.chased_at is not None:
            return []
        people = [p for p in missing_scorecards(loop_round.session) if p.email]
        messages = [EmailMessage(
            subject=f"Scorecard missing: {loop_round.loop.title}, round {loop_round.position}",
            body=chase_body(loop_round, person), to=[person.email]) for person in people]
        if messages:
            try:
                with get_connection(fail_silently=False) as connection:
                    connection.send_messages(messages)
            except (smtplib.SMTPException, OSError) as exc:
                log.warning("loop round %s: the scorecard chase was not sent: %s", round_id, exc)
                return []
        loop_round.chased_at = timezone.now()
        loop_round.save(update_fields=["chased_at"])
    return [p.email for p in people]


def scorecards_chase() -> int:
    """The beat's sweep: chase every due round; how many people were mailed."""
    return sum(len(round_chase(pk)) for pk in _chase_due(timezone.now()))


# ---------------------------------------------------------------- complete


def loop_scorecards_complete(loop: Loop) -> bool:
    """Every round that took place (finished) has a submitted scorecard from each of its
    panel, and no round is still to come."""
    rounds = list(loop.rounds.select_related("session__interviewer"))
    states = {r.pk: session_clock_state(r.session) for r in rounds}
    held = [r for r in rounds if states[r.pk] in visibility.OVER]
    pending = [r for r in rounds if states[r.pk] in visibility.NOT_YET | {SessionState.LIVE}]
    if not held or pending:
        return False
    return all(not missing_scorecards(r.session) for r in held)


def scorecards_complete_data(loop: Loop) -> dict[str, Any]:
    """The `loop.scorecards_complete` webhook's data: which loop, and when (no scores: a
    webhook carries nothing private)."""
    return {
        "loop": loop.pk,
        "title": loop.title,
        "candidate": loop.candidate.get_username() if loop.candidate else None,
        "rounds": loop.rounds.count(),
        "completed_at": timezone.now().isoformat(),
    }


@receiver(pre_save, sender=Scorecard, dispatch_uid="loops_scorecard_was_submitted")
def _before_scorecard_save(sender: Any, instance: Scorecard, **kwargs: Any) -> None:
    """Whether the stored card was submitted before this save (a draft's save asks nothing)."""
    instance._loops_was_submitted = bool(  # type: ignore[attr-defined]
        instance.submitted_at is None or (
            instance.pk and Scorecard.objects.filter(pk=instance.pk)
            .exclude(submitted_at=None).exists()))


@receiver(post_save, sender=Scorecard, dispatch_uid="loops_scorecards_complete")
def _after_scorecard_save(sender: Any, instance: Scorecard, **kwargs: Any) -> None:
    """The first submit of a loop round's scorecard that completes the loop sends
    `loop.scorecards_complete` after commit (an amendment never does). The loop's row lock
    orders two last submits of two rounds at once: the second sees the first."""
    if instance.submitted_at is None or getattr(instance, "_loops_was_submitted", True):
        return
    loop_id = (LoopRound.objects.filter(session_id=instance.session_id)
               .values_list("loop_id", flat=True).first())
    if loop_id is None:
        return
    with transaction.atomic():
        loop = (Loop.objects.select_for_update(of=("self",)).select_related("candidate")
                .get(pk=loop_id))
        if loop.status == Loop.Status.CANCELLED or not loop_scorecards_complete(loop):
            return
        data = scorecards_complete_data(loop)
    transaction.on_commit(lambda: webhook_send(LOOP_SCORECARDS_COMPLETE, data))


