"""Reads of the loop pages: the day's schedule in the candidate's zone, and the next round.

A round's "state" is its session's (`status_now`: a session past its deadline reads finished);
the next round is the first, in order, that is neither finished nor cancelled. What a viewer
may open in a round is the session's own rule (`interviews.services.session_role`): the
candidate gets the round's invitation link, its interviewers the session page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.urls import reverse

from interviews.models import InterviewSession
from interviews.services import INTERVIEWER_ROLES, join_opens_at, session_role
from loops.models import Loop, LoopRound

Status = InterviewSession.Status
OVER = (Status.FINISHED, Status.CANCELLED)


@dataclass(frozen=True)
class RoundRow:
    position: int
    label: str
    problem: str
    interviewer: str
    panel: list[str]
    start: datetime | None  # in the candidate's zone
    end: datetime | None
    opens: datetime | None
    minutes: int
    break_minutes: int
    state: str  # scheduled, active, finished, cancelled
    session_id: int
    link: str  # what this viewer opens: the invitation (candidate) or the session page
    link_label: str
    is_next: bool


@dataclass(frozen=True)
class LoopDay:
    loop: Loop
    zone: str
    rounds: list[RoundRow]
    next: RoundRow | None
    previous: RoundRow | None  # the round just before the next one (a lead from it)
    done: bool


def _link(session: InterviewSession, role: str | None) -> tuple[str, str]:
    state = session.status_now()
    if role == "candidate":
        if state == Status.SCHEDULED and session.invite_token:
            return reverse("interviews:join", kwargs={"token": session.invite_token}), "Join"
        if state == Status.ACTIVE:
            return reverse("interviews:detail", kwargs={"session_id": session.pk}), "Back in"
        return "", ""
    if role in INTERVIEWER_ROLES and state != Status.CANCELLED:
        label = {Status.FINISHED: "Review", Status.ACTIVE: "Go to the room"}.get(
            Status(state), "Session page")
        name = "interviews:review" if state == Status.FINISHED else "interviews:detail"
        return reverse(name, kwargs={"session_id": session.pk}), label
    return "", ""


def _break_after(this: LoopRound, rounds: list[LoopRound]) -> int:
    """Minutes from this round's end to the next held round's start, read from the sessions'
    times (a round moved from its own session page counts too); 0 for the last."""
    s = this.session
    if s.status == Status.CANCELLED or s.scheduled_for is None:
        return 0
    after = next((r.session for r in rounds if r.position > this.position
                  and r.session.status != Status.CANCELLED and r.session.scheduled_for), None)
    if after is None or after.scheduled_for is None:
        return 0
    gap = after.scheduled_for - (s.scheduled_for + s.duration)
    return max(0, int(gap.total_seconds() // 60))


def loop_day(loop: Loop, user: Any) -> LoopDay:
    zone = ZoneInfo(loop.candidate_timezone or "UTC")
    rounds: list[LoopRound] = list(
        loop.rounds.select_related("session__problem", "session__interviewer",
                                   "session__candidate")
        .prefetch_related("session__review_assignments__interviewer").order_by("position"))
    upcoming = next((r for r in rounds if r.session.status_now() not in OVER), None)
    rows = []
    for r in rounds:
        s = r.session
        start = s.scheduled_for.astimezone(zone) if s.scheduled_for else None
        opens = join_opens_at(s)
        link, label = _link(s, session_role(s, user))
        rows.append(RoundRow(
            position=r.position, label=r.label or f"Round {r.position}",
            problem=s.problem.title,
            interviewer=s.interviewer.get_username() if s.interviewer else "",
            panel=[a.interviewer.get_username() for a in s.review_assignments.all()],
            start=start, end=start + s.duration if start else None,
            opens=opens.astimezone(zone) if opens else None,
            minutes=int(s.duration.total_seconds() // 60),
            break_minutes=_break_after(r, rounds),
            state=s.status_now(), session_id=s.pk, link=link, link_label=label,
            is_next=upcoming is not None and r.pk == upcoming.pk,
        ))
    following = next((row for row in rows if row.is_next), None)
    before = None
    if following is not None:
        held = [row for row in rows if row.position < following.position
                and row.state == Status.FINISHED]
        before = held[-1] if held else None
    return LoopDay(loop=loop, zone=zone.key, rounds=rows, next=following, previous=before,
                   done=following is None)


def round_of(session: InterviewSession) -> LoopRound | None:
    """The loop round this session is (with its loop), or None."""
    return LoopRound.objects.filter(session=session).select_related("loop").first()


def round_after(this: LoopRound) -> LoopRound | None:
    """The round after `this` still to come (not cancelled), with its session, or None."""
    return (LoopRound.objects.filter(loop=this.loop, position__gt=this.position)
            .exclude(session__status=Status.CANCELLED).select_related("session")
            .order_by("position").first())


def next_round_of(session: InterviewSession) -> tuple[Loop, LoopRound | None] | None:
    """For a round's session: its loop and the round after it still to come (None: it was
    the last); None when the session is no loop's round."""
    this = round_of(session)
    if this is None:
        return None
    return this.loop, round_after(this)
