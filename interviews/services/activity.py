"""Runs, timeline events and hints inside a session."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from grading import copies
from grading.models import Submission
from grading.scratch import SCRATCH_MODES
from grading.services import GRADED_MODES, GradingError, submission_create
from interviews import realtime
from interviews.models import (
    InterviewSession,
    SessionEvent,
)
from interviews.services.documents import session_code
from interviews.services.sessions import SessionError, _participant, _require_active

log = logging.getLogger(__name__)
Kind = InterviewSession.Kind
Status = InterviewSession.Status


# ---------------------------------------------------------------- runs


# The timeline event of each kind of run at the desk.
RUN_EVENT_KINDS = {
    Submission.Mode.RUN: SessionEvent.Kind.RUN,
    Submission.Mode.SUBMIT: SessionEvent.Kind.SUBMIT,
    Submission.Mode.CUSTOM: SessionEvent.Kind.CUSTOM_RUN,
    Submission.Mode.SCRIPT: SessionEvent.Kind.CONSOLE_RUN,
}


def session_run(
    *, session_id: int, user: Any, mode: str, custom_input: Any = None, idempotency_key: str = ""
) -> Submission:
    """Run (public tests), submit (every test), or a scratch run of the desk (custom input,
    console) on the document's current code.

    The code is the server's copy, not the page's: what is graded is what the replay shows.
    The submission belongs to the candidate whoever clicked, so both sides may follow it; a
    scratch run is on the timeline too (its own event kind, never counted as a run or a
    pass by the review), and the broadcast carries a custom run's input, so the other side
    sees what it ran on. `idempotency_key` (the page's Idempotency-Key): a repeat of one click
    grades once; empty code and an unchanged starter's Submit are refused, as at the desk.
    """
    session, role = _participant(session_id, user)
    _require_active(session)
    if session.candidate is None:
        raise SessionError("not_active", "the session has no candidate yet")
    if mode not in (*GRADED_MODES, *SCRATCH_MODES):
        raise SessionError("bad_mode", "mode must be run, submit, custom or script")
    try:
        submission = submission_create(
            user=session.candidate,
            problem_slug=session.problem.slug,
            code=session_code(session_id),
            mode=mode,
            custom_input=custom_input,
            in_session=True,
            idempotency_key=idempotency_key,
            refuse_unworked=True,
        )
    except GradingError as exc:
        raise SessionError(exc.code, exc.message) from exc
    event = SessionEvent.objects.create(
        session=session,
        kind=RUN_EVENT_KINDS[Submission.Mode(mode)],
        actor=user,
        at=submission.created_at,
        submission=submission,
        data={"role": role},
    )
    message: dict[str, Any] = {
        "type": "submission",
        "id": submission.pk,
        "mode": mode,
        "by": user.get_username(),
        "role": role,
    }
    if mode == Submission.Mode.CUSTOM:
        message["input"] = submission.custom_input
    realtime.broadcast(session_id, message)
    if mode in SCRATCH_MODES:
        # The interviewer's live Activity list: what the candidate tried at the desk.
        realtime.broadcast_interviewer(
            session_id,
            {"type": "event", "kind": event.kind, "at": event.at.isoformat(),
             "by": user.get_username(), "role": role},
        )
    return submission


# ---------------------------------------------------------------- timeline events


def event_record(
    *, session_id: int, kind: str, actor: Any = None, data: dict[str, Any] | None = None,
    at: datetime | None = None,
) -> SessionEvent:
    return SessionEvent.objects.create(
        session_id=session_id, kind=kind, actor=actor, at=at or timezone.now(), data=data or {}
    )


def paste_record(
    *, session_id: int, actor: Any, role: str, chars: int, text: str
) -> SessionEvent:
    """A large paste into the editor (ONSITE_PASTE_CHARS or more), compared with other
    candidates' stored Submits of the problem and its known solutions (grading/copies.py):
    a match at or above ONSITE_SIMILARITY_THRESHOLD is kept beside the paste (`similar`, a
    percentage, and `similar_to`: a known solution's file, or empty for another candidate's
    code, never named). The event is an activity signal: the interviewers' alone."""
    data: dict[str, Any] = {"chars": chars, "role": role}
    session = InterviewSession.objects.select_related("problem__live_version").get(pk=session_id)
    version = session.problem.live_version
    if text and version is not None and session.content.kind_spec.runs_code:
        candidate = session.candidate_id if session.candidate_id is not None else -1
        score, known = copies.paste_match(version=version, text=text, exclude_user_id=candidate)
        if score >= copies.threshold():
            data |= {"similar": round(100 * score), "similar_to": known}
    return event_record(session_id=session_id, kind=SessionEvent.Kind.PASTE, actor=actor,
                        data=data)


def page_event_report(*, session_id: int, user: Any, kind: str) -> SessionEvent | None:
    """What only the page knows: the candidate's tab hidden or visible again."""
    session, role = _participant(session_id, user)  # the door first: who, and when
    if kind not in (SessionEvent.Kind.TAB_HIDDEN, SessionEvent.Kind.TAB_VISIBLE):
        raise SessionError("bad_event", "unknown event")
    if role != "candidate" or session.status != Status.ACTIVE:
        return None  # the interviewer's own tab is nobody's business
    data: dict[str, Any] = {}
    now = timezone.now()  # one instant: the event's time and the away time it closes agree
    if kind == SessionEvent.Kind.TAB_VISIBLE:
        # Back: how long the tab was away is measured here, from the leave it closes (the
        # server's clock, not the page's). A return with no open leave is not a signal.
        last = (session.events.filter(kind__in=[SessionEvent.Kind.TAB_HIDDEN,
                                                SessionEvent.Kind.TAB_VISIBLE])
                .order_by("-at", "-id").first())
        if last is None or last.kind != SessionEvent.Kind.TAB_HIDDEN:
            return None
        data["away_ms"] = max(0, int((now - last.at).total_seconds() * 1000))
    event = event_record(session_id=session_id, kind=kind, actor=user, data=data, at=now)
    realtime.broadcast_interviewer(
        session_id, {"type": "event", "kind": kind, "at": event.at.isoformat(), **data}
    )
    return event


def session_candidate_done(*, session_id: int, user: Any) -> SessionEvent:
    """The live candidate says they have finished: the interviewer's cockpit shows a notice,
    the timeline keeps the moment, and the session runs on until the interviewer ends it.
    Saying it twice records it once (the first moment is the one that counts)."""
    session, role = _participant(session_id, user)
    if role != "candidate":
        raise SessionError("not_candidate", "only the candidate says they are done")
    if session.interviewer_id is None:
        raise SessionError("no_interviewer", "a solo session has nobody to tell: end it instead")
    _require_active(session)
    with transaction.atomic():
        # Lock the session row: a double click must not record two moments.
        InterviewSession.objects.select_for_update().filter(pk=session.pk).first()
        earlier = session.events.filter(kind=SessionEvent.Kind.DONE).first()
        if earlier is not None:
            return earlier
        event = event_record(session_id=session_id, kind=SessionEvent.Kind.DONE, actor=user)
    realtime.broadcast_interviewer(
        session_id,
        {"type": "event", "kind": "done", "by": user.get_username(), "at": event.at.isoformat()},
    )
    return event


# ---------------------------------------------------------------- hints


def hints_revealed(session: InterviewSession) -> list[str]:
    """The problem's hints the candidate has opened so far, in order."""
    shown = session.events.filter(kind=SessionEvent.Kind.HINT).count()
    return list(session.content.hints)[:shown]


def candidate_hints(session: InterviewSession) -> dict[str, Any]:
    """The candidate's hints panel: the hints open to them (none unreleased: the policy's
    UNRELEASED_HINT row), whether their own button opens the next one, and the last hint the
    interviewer released (the page's banner, so a reload still says so)."""
    shown = hints_revealed(session)
    released = (session.events.filter(kind=SessionEvent.Kind.HINT, data__by="interviewer")
                .order_by("-at", "-id").first())
    number = int(released.data.get("number", 0)) if released else 0
    return {
        "shown": shown,
        "total": len(session.content.hints),
        "own_button": session.candidate_opens_hints,
        "released": {"number": number, "text": shown[number - 1]}
        if 0 < number <= len(shown) else None,
    }


def hint_open(
    session: InterviewSession, user: Any, **data: Any
) -> tuple[int, str, SessionEvent] | None:
    """Record the session's next hint as opened: (its number, its text, the timeline event),
    or None when every hint is open already. The one place hints are counted."""
    with transaction.atomic():
        # Lock the session row: two quick clicks (or the candidate and the interviewer at the
        # same moment) must not record the same hint twice.
        InterviewSession.objects.select_for_update().filter(pk=session.pk).first()
        hints = list(session.content.hints)
        shown = session.events.filter(kind=SessionEvent.Kind.HINT).count()
        if shown >= len(hints):
            return None
        event = event_record(
            session_id=session.pk,
            kind=SessionEvent.Kind.HINT,
            actor=user,
            data={"number": shown + 1, **data},
        )
    return shown + 1, str(hints[shown]), event


def session_hint_reveal(*, session_id: int, user: Any) -> tuple[int, str] | None:
    """Open the candidate's next hint and record it (hints used are a rubric signal).

    Returns (its number, its text), or None when every hint is already open."""
    session, role = _participant(session_id, user)
    if role != "candidate":
        raise SessionError("not_candidate", "only the candidate opens hints")
    if not session.candidate_opens_hints:
        raise SessionError("forbidden", "your interviewer releases the hints in this interview")
    _require_active(session)
    opened = hint_open(session, user)
    if opened is None:
        return None
    number, text, event = opened
    realtime.broadcast_interviewer(
        session_id,
        {"type": "event", "kind": "hint", "number": number, "at": event.at.isoformat()},
    )
    return number, text
