"""Scheduling a loop: build it, move or cancel one round or the whole loop, claim its
invitation.

Each round IS a live interview session, scheduled by `interviews.services.session_schedule_live`
(which sends nothing) with its co-interviewers on its panel (`ReviewAssignment`). Every change
goes through `interviews.services.schedule_change_record`, so each round keeps the single
session's calendar conventions: one UID per session, a SEQUENCE raised by each change, a
CANCEL for a cancelled round; a later change of one round from the session's own schedule
page updates the same calendar entry.

The loop sends ONE e-mail per change to the candidate (one .ics, one VEVENT per round it is
about: `loops.services.mail`), and one to each interviewer whose rounds it is about, on the io
queue after the transaction commits. Refusals are `SessionError`s with a clear message (the
round's number first), never a server error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.roles import is_interviewer
from interviews.models import InterviewSession, ReviewAssignment, ScheduleChange
from interviews.review.webhooks import webhook_send
from interviews.services import (
    MIN_DURATION,
    SessionError,
    email_check,
    schedule_change_record,
    session_schedule_live,
)
from loops.access import loop_build_allowed, loop_manage_allowed
from loops.models import Loop, LoopRound
from loops.services.mail import loop_mail_enqueue, loop_of_token

LOOP_SCHEDULED = "loop.scheduled"
MAX_ROUNDS = 8
MAX_TITLE_CHARS = 120
# A start a few minutes in the past is "now" typed slowly (as for a single session).
SCHEDULE_SLACK = timedelta(minutes=10)
# Further ahead is a typo (and near year 9999 the end of a round overflows).
MAX_AHEAD = timedelta(days=366)
Action = ScheduleChange.Action
Status = InterviewSession.Status


@dataclass(frozen=True)
class RoundPlan:
    """One round as the builder asks for it."""

    problem: str  # the problem's slug
    interviewer: str  # the interviewer's username
    start: datetime
    duration: timedelta
    label: str = ""
    co_interviewers: tuple[str, ...] = field(default_factory=tuple)


# ---------------------------------------------------------------- checks


def zone_check(name: str) -> str:
    name = (name or "").strip() or "UTC"
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # "America" is a folder: OSError
        raise SessionError("bad_timezone", f"{name[:64]!r} is not a time zone") from None
    return name


def _duration_check(duration: timedelta, where: str) -> None:
    longest = timedelta(minutes=settings.ONSITE_SESSION_MAX_MINUTES)
    if not MIN_DURATION <= duration <= longest:
        raise SessionError("bad_duration", f"{where}: the length is between "
                                           f"{MIN_DURATION.seconds} s and {longest}")


def _start_check(start: datetime, where: str) -> None:
    if timezone.is_naive(start):
        raise SessionError("bad_start", f"{where}: the start needs its time zone")
    if start < timezone.now() - SCHEDULE_SLACK:
        raise SessionError("bad_start", f"{where}: the start time is in the past")
    if start > timezone.now() + MAX_AHEAD:
        raise SessionError("bad_start", f"{where}: the start is more than a year away")


def _interviewer(username: str, where: str) -> Any:
    name = (username or "").strip()
    user = get_user_model().objects.filter(username=name).first() if name else None
    if user is None or not is_interviewer(user):
        raise SessionError("bad_interviewer", f"{where}: no interviewer {name[:150]!r}")
    return user


def _overlap_check(spans: Sequence[tuple[str, datetime, timedelta]]) -> None:
    """Rounds in order: each starts once the one before it has ended."""
    for (before, start, length), (after, next_start, _) in pairwise(spans):
        if next_start < start + length:
            raise SessionError("overlap", f"{after} starts before {before} ends")


# ---------------------------------------------------------------- build


def loop_schedule(
    *,
    by: Any,
    title: str,
    rounds: Sequence[RoundPlan],
    candidate_email: str = "",
    candidate: str = "",
    candidate_timezone: str = "UTC",
    call_link: str = "",
    site: str,
) -> Loop:
    """Build a loop for a candidate (their e-mail and/or username): every round a scheduled
    live session, in order; ONE invitation e-mail to the candidate and one per interviewer
    after the commit, and the `loop.scheduled` webhook. `site` is the scheme and host the
    links in the e-mails start with."""
    if not loop_build_allowed(by):
        raise SessionError("forbidden", "only interviewers, recruiters and admins build loops")
    title = (title or "").strip()
    if not 0 < len(title) <= MAX_TITLE_CHARS:
        raise SessionError("bad_title", f"give the loop a title (up to {MAX_TITLE_CHARS} "
                                        "characters)")
    zone = zone_check(candidate_timezone)
    email = email_check(candidate_email)
    candidate_user = None
    if (candidate or "").strip():
        name = candidate.strip()
        candidate_user = get_user_model().objects.filter(username=name).first()
        if candidate_user is None:
            raise SessionError("bad_candidate", f"no user {name[:150]!r}")
        email = email or (candidate_user.email or "").strip()
    if not email and candidate_user is None:
        raise SessionError("bad_email", "give the candidate's e-mail: the invitation goes there")
    if not rounds:
        raise SessionError("bad_rounds", "a loop has at least one round")
    if len(rounds) > MAX_ROUNDS:
        raise SessionError("bad_rounds", f"a loop has at most {MAX_ROUNDS} rounds")
    people: list[tuple[Any, list[Any]]] = []
    for number, plan in enumerate(rounds, start=1):
        where = f"round {number}"
        _duration_check(plan.duration, where)
        _start_check(plan.start, where)
        interviewer = _interviewer(plan.interviewer, where)
        if candidate_user is not None and interviewer.pk == candidate_user.pk:
            raise SessionError("bad_candidate", f"{where}: the interviewer cannot be the "
                                                "candidate")
        panel = []
        for name in dict.fromkeys(n.strip() for n in plan.co_interviewers if n.strip()):
            other = _interviewer(name, f"{where}'s co-interviewers")
            if other.pk == interviewer.pk:
                raise SessionError("bad_interviewer", f"{where}: {name} already runs it")
            if candidate_user is not None and other.pk == candidate_user.pk:
                raise SessionError("bad_interviewer", f"{where}: the candidate cannot be on "
                                                      "the panel")
            panel.append(other)
        people.append((interviewer, panel))
    _overlap_check([(f"round {n}", p.start, p.duration) for n, p in enumerate(rounds, start=1)])

    with transaction.atomic():
        loop = Loop.objects.create(
            title=title, candidate=candidate_user, candidate_email=email,
            candidate_timezone=zone, created_by=by,
        )
        change_ids: list[int] = []
        for number, (plan, (interviewer, panel)) in enumerate(
                zip(rounds, people, strict=True), start=1):
            try:
                session = session_schedule_live(
                    interviewer=interviewer, problem_slug=plan.problem, duration=plan.duration,
                    candidate=candidate_user, scheduled_for=plan.start, candidate_email=email,
                    call_link=call_link,
                )
            except SessionError as exc:  # the round's number first
                raise SessionError(exc.code, f"round {number}: {exc.message}") from None
            for other in panel:
                ReviewAssignment.objects.get_or_create(session=session, interviewer=other)
            LoopRound.objects.create(loop=loop, position=number, session=session,
                                     label=(plan.label or "").strip()[:60])
            change_ids += ScheduleChange.objects.filter(session=session).values_list(
                "pk", flat=True)
        _breaks_refresh(loop)
        _mail(loop, change_ids, site)
        data = loop_webhook_data(loop)
        transaction.on_commit(lambda: webhook_send(LOOP_SCHEDULED, data))
    return loop


def loop_webhook_data(loop: Loop) -> dict[str, Any]:
    """The `loop.scheduled` webhook's data: the loop and its rounds (no e-mail address)."""
    rounds = loop.rounds.select_related("session__problem", "session__interviewer")
    return {
        "loop": loop.pk,
        "title": loop.title,
        "candidate": loop.candidate.get_username() if loop.candidate else None,
        "candidate_timezone": loop.candidate_timezone,
        "rounds": [
            {
                "position": r.position,
                "label": r.label,
                "session": r.session_id,
                "problem": r.session.problem.slug,
                "interviewer": (r.session.interviewer.get_username()
                                if r.session.interviewer else None),
                "scheduled_for": (r.session.scheduled_for.isoformat()
                                  if r.session.scheduled_for else None),
                "minutes": int(r.session.duration.total_seconds() // 60),
            }
            for r in rounds
        ],
    }


def _breaks_refresh(loop: Loop) -> None:
    """Each round's break: from its end to the next round's start (cancelled rounds skipped)."""
    live = [r for r in loop.rounds.select_related("session").order_by("position")
            if r.session.status != Status.CANCELLED and r.session.scheduled_for is not None]
    for this, after in zip(live, [*live[1:], None], strict=True):
        gap = timedelta(0)
        if after is not None:
            assert this.session.scheduled_for and after.session.scheduled_for
            end = this.session.scheduled_for + this.session.duration
            gap = max(timedelta(0), after.session.scheduled_for - end)
        if this.break_after != gap:
            LoopRound.objects.filter(pk=this.pk).update(break_after=gap)


def _mail(loop: Loop, change_ids: list[int], site: str) -> None:
    if change_ids:
        loop_mail_enqueue(loop_id=loop.pk, change_ids=change_ids, site=site)


# ---------------------------------------------------------------- change


def _locked(loop_id: int, user: Any) -> Loop:
    loop = Loop.objects.select_for_update().filter(pk=loop_id, kind=Loop.Kind.LIVE).first()
    if loop is None or not loop_manage_allowed(loop, user):
        # Worded as a missing loop: a stranger learns nothing about which loops exist.
        raise SessionError("not_participant", "no such loop")
    if loop.status == Loop.Status.CANCELLED:
        raise SessionError("conflict", "this loop was cancelled")
    if loop.status != Loop.Status.SCHEDULED:
        raise SessionError("conflict", "this loop is closed")
    return loop


def _locked_rounds(loop: Loop) -> list[LoopRound]:
    rounds = list(loop.rounds.order_by("position"))
    sessions = {s.pk: s for s in InterviewSession.objects.select_for_update()
                .filter(pk__in=[r.session_id for r in rounds])}
    for r in rounds:
        r.session = sessions[r.session_id]
    return rounds


def _round(rounds: list[LoopRound], position: int) -> LoopRound:
    found = next((r for r in rounds if r.position == position), None)
    if found is None:
        raise SessionError("not_found", f"this loop has no round {position}")
    status = found.session.status
    if status == Status.CANCELLED:
        raise SessionError("conflict", f"round {position} was cancelled")
    if status != Status.SCHEDULED:
        raise SessionError("conflict", f"round {position} has started: its schedule is fixed")
    return found


def _spans(rounds: list[LoopRound]) -> list[tuple[str, datetime, timedelta]]:
    return [(f"round {r.position}", r.session.scheduled_for, r.session.duration)
            for r in rounds
            if r.session.status != Status.CANCELLED and r.session.scheduled_for is not None]


def loop_round_reschedule(*, loop_id: int, position: int, user: Any, start: datetime,
                          duration: timedelta, site: str) -> Loop:
    """Move one round (its start and length), between the rounds before and after it; the
    candidate and its interviewer get the updated entry (same UID, next SEQUENCE)."""
    where = f"round {position}"
    _duration_check(duration, where)
    _start_check(start, where)
    with transaction.atomic():
        loop = _locked(loop_id, user)
        rounds = _locked_rounds(loop)
        moved = _round(rounds, position)
        moved.session.scheduled_for, moved.session.duration = start, duration
        _overlap_check(_spans(rounds))
        change = schedule_change_record(session=moved.session, action=Action.RESCHEDULED,
                                        by=user)
        _breaks_refresh(loop)
        _mail(loop, [change.pk], site)
    return loop


def loop_reschedule(*, loop_id: int, user: Any, start: datetime, site: str) -> Loop:
    """Move the whole loop: every round still to come shifts by the same amount, so its first
    round starts at `start` (the breaks stay). Only before any round has started."""
    _start_check(start, "the loop")
    with transaction.atomic():
        loop = _locked(loop_id, user)
        rounds = _locked_rounds(loop)
        if any(r.session.status not in (Status.SCHEDULED, Status.CANCELLED) for r in rounds):
            raise SessionError("conflict", "a round has started: move the rounds still to come "
                                           "one by one")
        coming = [r for r in rounds
                  if r.session.status == Status.SCHEDULED and r.session.scheduled_for]
        if not coming:
            raise SessionError("conflict", "no round of this loop is still to come")
        first = min(r.session.scheduled_for for r in coming if r.session.scheduled_for)
        shift = start - first
        if not shift:
            raise SessionError("unchanged", "the loop already starts then")
        now = timezone.now()
        changes = []
        for r in coming:
            assert r.session.scheduled_for is not None
            r.session.scheduled_for += shift
            changes.append(schedule_change_record(session=r.session, action=Action.RESCHEDULED,
                                                  by=user, now=now).pk)
        _mail(loop, changes, site)
    return loop


def loop_round_cancel(*, loop_id: int, position: int, user: Any, site: str) -> Loop:
    """Call one round off: its link stops working, the candidate and its interviewer get a
    CANCEL for it. The other rounds keep their times."""
    with transaction.atomic():
        loop = _locked(loop_id, user)
        rounds = _locked_rounds(loop)
        called_off = _round(rounds, position)
        if all(r.session.status == Status.CANCELLED for r in rounds if r is not called_off):
            raise SessionError("last_round", "this is the loop's last round: cancel the loop")
        change = _cancel(called_off.session, user, timezone.now())
        _breaks_refresh(loop)
        _mail(loop, [change.pk], site)
    return loop


def loop_cancel(*, loop_id: int, user: Any, site: str) -> Loop:
    """Call the whole loop off: every round still to come is cancelled (one CANCEL with all of
    them); a round already held keeps its work and its scorecards."""
    with transaction.atomic():
        loop = _locked(loop_id, user)
        now = timezone.now()
        changes = [_cancel(r.session, user, now).pk for r in _locked_rounds(loop)
                   if r.session.status == Status.SCHEDULED]
        loop.status, loop.cancelled_at = Loop.Status.CANCELLED, now
        loop.save(update_fields=["status", "cancelled_at"])
        _mail(loop, changes, site)
    return loop


def _cancel(session: InterviewSession, user: Any, now: datetime) -> ScheduleChange:
    session.status, session.cancelled_at = Status.CANCELLED, now
    return schedule_change_record(session=session, action=Action.CANCELLED, by=user, now=now)


# ---------------------------------------------------------------- the candidate's claim


def loop_claim(*, token: str, user: Any) -> Loop:
    """The candidate opens the loop's invitation: the loop and its rounds still to come are
    theirs (each round's own link then lets them in, as for a single session). The loop's
    interviewers and managers opening it claim nothing."""
    from loops.access import loop_visible

    loop = loop_of_token(token or "")
    if loop is None:
        raise SessionError("not_found", "no such invitation")
    if not getattr(user, "is_authenticated", False):
        raise SessionError("not_found", "no such invitation")
    if loop.candidate_id == user.pk or (loop.candidate_id is None and loop_visible(loop, user)):
        return loop  # theirs already, or someone who runs it checking the link
    if loop.candidate_id is not None:
        raise SessionError("forbidden", "this invitation is for another candidate")
    if loop.status == Loop.Status.CANCELLED:
        raise SessionError("forbidden", "this loop was cancelled")
    with transaction.atomic():
        claimed = Loop.objects.filter(pk=loop.pk, candidate__isnull=True).update(candidate=user)
        if claimed != 1:
            raise SessionError("forbidden", "this invitation was already used")
        InterviewSession.objects.filter(
            Q(candidate__isnull=True), loop_round__loop=loop, status=Status.SCHEDULED,
        ).exclude(interviewer=user).update(candidate=user)
    loop.refresh_from_db()
    return loop
