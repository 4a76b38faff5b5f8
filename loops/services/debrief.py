"""The loop's debrief: the decision and its reason, amendable (each change audited) until the
loop is closed; the candidate's combined feedback report released.

Who may: the hiring manager, the recruiter who runs the loop and admins (`loops.access.
may_judge`). A refusal to anyone else is the 404 of a missing loop. `loop.decided` goes out
after commit on every recorded decision and on the close.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from core.errors import ApplicationError
from interviews.models import InterviewSession, ScoreRelease
from interviews.review.webhooks import webhook_send
from loops import access
from loops.models import Loop, LoopDecisionChange

LOOP_DECIDED = "loop.decided"
MAX_REASON_CHARS = 4000


class DebriefError(ApplicationError):
    """A refused debrief action."""


def _judge(loop: Loop, user: Any) -> None:
    if not access.may_read_packet(loop, user) and not access.may_judge(loop, user):
        raise DebriefError("not_found", "no such loop")
    if not access.may_judge(loop, user):
        raise DebriefError("forbidden", "only the hiring manager, the loop's recruiter or an "
                           "admin records the decision")


def decided_data(loop: Loop) -> dict[str, Any]:
    """The `loop.decided` webhook's data: the decision, never its reason (a webhook carries
    nothing private) nor any score."""
    return {
        "loop": loop.pk,
        "title": loop.title,
        "candidate": loop.candidate.get_username() if loop.candidate else None,
        "decision": loop.decision,
        "decided_by": loop.decided_by.get_username() if loop.decided_by else None,
        "decided_at": loop.decided_at.isoformat() if loop.decided_at else None,
        "closed": loop.status == Loop.Status.CLOSED,
    }


def decision_record(*, loop: Loop, user: Any, decision: str, reason: str,
                    close: bool = False) -> Loop:
    """Record (or amend) the decision and its reason; `close` makes it final. Each change is
    one `LoopDecisionChange`; a closed or cancelled loop refuses any further change."""
    _judge(loop, user)
    reason = (reason or "").strip()
    if decision not in Loop.Decision.values or not decision:
        raise DebriefError("bad_decision", "choose hire, no hire or hold")
    if not reason:
        raise DebriefError("bad_reason", "say why: the reason is part of the decision")
    if len(reason) > MAX_REASON_CHARS:
        raise DebriefError("bad_reason", f"a reason is at most {MAX_REASON_CHARS} characters")
    with transaction.atomic():
        locked = Loop.objects.select_for_update().get(pk=loop.pk)
        if locked.status == Loop.Status.CLOSED:
            raise DebriefError("closed", "the loop is closed: its decision is final")
        if locked.status == Loop.Status.CANCELLED:
            raise DebriefError("cancelled", "the loop was cancelled")
        now = timezone.now()
        changed = (locked.decision, locked.decision_reason) != (decision, reason)
        if not changed and not close:
            return locked  # nothing to record
        locked.decision, locked.decision_reason = decision, reason
        locked.decided_by, locked.decided_at = user, now
        if close:
            locked.status, locked.closed_at = Loop.Status.CLOSED, now
        locked.save()
        LoopDecisionChange.objects.create(loop=locked, by=user, at=now, decision=decision,
                                          reason=reason, closed=close)
        data = decided_data(locked)
        transaction.on_commit(lambda: webhook_send(LOOP_DECIDED, data))
    return locked


def decision_close(*, loop: Loop, user: Any) -> Loop:
    """Close the loop on its recorded decision (final from now on)."""
    _judge(loop, user)
    stored = Loop.objects.get(pk=loop.pk)
    if not stored.decision:
        raise DebriefError("no_decision", "record a decision before closing the loop")
    return decision_record(loop=stored, user=user, decision=stored.decision,
                           reason=stored.decision_reason, close=True)


def feedback_release(*, loop: Loop, user: Any) -> Loop:
    """Release the candidate's combined feedback report: each round with a submitted
    scorecard is released as its single-session report is (`ScoreRelease`, under the
    session's lock, the one an amendment takes), then the loop's report opens to them."""
    _judge(loop, user)
    with transaction.atomic():
        locked = Loop.objects.select_for_update().get(pk=loop.pk)
        if locked.status == Loop.Status.CANCELLED:
            raise DebriefError("cancelled", "the loop was cancelled")
        released = 0
        for loop_round in locked.rounds.select_related("session"):
            session = loop_round.session
            InterviewSession.objects.select_for_update().filter(pk=session.pk).first()
            if session.scorecards.exclude(submitted_at=None).exists():
                ScoreRelease.objects.get_or_create(session=session,
                                                   defaults={"released_by": user})
                released += 1
        if not released:
            raise DebriefError("nothing_to_release", "no round has a submitted scorecard yet")
        if locked.released_at is None:
            locked.released_at = timezone.now()
            locked.save(update_fields=["released_at"])
    return locked
