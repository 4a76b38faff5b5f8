"""Accounts for the demo install, and interview sessions: start, join, edit, run, ask, finish.

Time is kept by the server: a session's deadline is fixed when it starts; a Celery task
scheduled for the deadline finishes it (submitting the last stored code), and every request
and every edit checks the deadline too, so a lost task or a slow worker changes nothing for
the candidate: an edit that arrives after the deadline is refused and never stored.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.errors import ApplicationError
from core.roles import AUTHOR, CANDIDATE, INTERVIEWER, ROLES, is_interviewer
from grading.models import Submission
from grading.services import GradingError, submission_create
from interviews import collab, matching, realtime
from interviews.models import (
    DocUpdate,
    InterviewSession,
    Note,
    Question,
    SessionEvent,
    new_invite_token,
)
from problems.models import Problem

log = logging.getLogger(__name__)

ASSUMPTION_ANSWER = (
    "There is no prepared answer to that question. State your assumption out loud (write it in "
    "the notes panel) and go on with it."
)
MAX_QUESTION_CHARS = 500
MAX_NOTE_CHARS = 2000
MIN_DURATION = timedelta(seconds=10)

Kind = InterviewSession.Kind
Status = InterviewSession.Status


@transaction.atomic
def demo_users_ensure(*, password: str) -> dict[str, User]:
    """Create (or reset the password of) one account per role plus an admin."""
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in ROLES}
    users: dict[str, User] = {}
    specs = [
        ("candidate", [CANDIDATE], False),
        ("interviewer", [INTERVIEWER], False),
        ("author", [AUTHOR], False),
        ("admin", [INTERVIEWER, AUTHOR], True),
    ]
    for username, roles, superuser in specs:
        user, _ = User.objects.get_or_create(username=username)
        user.is_staff = user.is_superuser = superuser
        user.set_password(password)
        user.save()
        user.groups.set([groups[r] for r in roles])
        users[username] = user
    return users


class SessionError(ApplicationError):
    """A session action the rules refuse (not_found, forbidden, not_active...)."""


# ---------------------------------------------------------------- roles


def session_role(session: InterviewSession, user: Any) -> str | None:
    """ "candidate", "interviewer", or None for someone who is not a participant."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    if session.candidate_id is not None and session.candidate_id == user.pk:
        return "candidate"
    if session.interviewer_id is not None and session.interviewer_id == user.pk:
        return "interviewer"
    return None


def role_can_edit(session: InterviewSession, role: str | None) -> bool:
    """Who may type in the document (while the session is active)."""
    return role == "candidate" or (role == "interviewer" and session.interviewer_can_edit)


def _participant(session_id: int, user: Any) -> tuple[InterviewSession, str]:
    session = InterviewSession.objects.select_related("problem").filter(pk=session_id).first()
    if session is None:
        raise SessionError("not_found", "no such session")
    role = session_role(session, user)
    if role is None:
        raise SessionError("not_participant", "you are not a participant of this session")
    return session, role


# ---------------------------------------------------------------- start


def _problem(slug: str) -> Problem:
    problem = Problem.objects.filter(slug=slug, published=True).first()
    if problem is None or problem.live_version_id is None:
        raise SessionError("unknown_problem", f"no published problem {slug!r}")
    return problem


def _check_duration(duration: timedelta) -> None:
    longest = timedelta(minutes=settings.ONSITE_SESSION_MAX_MINUTES)
    if not MIN_DURATION <= duration <= longest:
        raise SessionError(
            "bad_duration",
            f"the duration must be between {MIN_DURATION.seconds} s and {longest} long",
        )


def _store_starter(session: InterviewSession) -> None:
    DocUpdate.objects.create(
        session=session,
        author=None,
        created_at=timezone.now(),
        data=collab.initial_update(session.problem.starter_code),
    )


def _start_clock(session: InterviewSession, now: datetime) -> None:
    """Start a saved session's clock and schedule its end once the transaction commits."""
    session.status = Status.ACTIVE
    session.started_at = now
    session.deadline = now + session.duration
    session.save(update_fields=["status", "started_at", "deadline"])
    deadline, session_id = session.deadline, session.pk
    transaction.on_commit(lambda: schedule_expiry(session_id, deadline))


def schedule_expiry(session_id: int, deadline: datetime) -> None:
    """Ask Celery to finish the session at its deadline. A broker outage is survivable: every
    request and edit checks the deadline, and the beat sweeper finishes overdue sessions."""
    from interviews.tasks import session_expire

    try:
        session_expire.apply_async(args=[session_id], eta=deadline, queue="cpu")
    except Exception:  # kombu/redis raise many types; the lazy checks cover all of them
        log.exception("could not schedule the expiry of session %s", session_id)


def session_start_solo(
    *, candidate: Any, problem_slug: str, duration: timedelta
) -> InterviewSession:
    """Start a solo session now: the clock runs from this moment."""
    problem = _problem(problem_slug)
    _check_duration(duration)
    with transaction.atomic():
        session = InterviewSession(
            problem=problem, candidate=candidate, kind=Kind.SOLO, duration=duration
        )
        session.save()  # the id first: the expiry task is scheduled with it
        _start_clock(session, timezone.now())
        _store_starter(session)
    return session


def session_schedule_live(
    *,
    interviewer: Any,
    problem_slug: str,
    duration: timedelta,
    candidate: Any = None,
    interviewer_can_edit: bool = False,
) -> InterviewSession:
    """Schedule a live session; the clock starts when the candidate joins by its link."""
    if not is_interviewer(interviewer):
        raise SessionError("forbidden", "only interviewers schedule live sessions")
    if candidate is not None and candidate.pk == interviewer.pk:
        raise SessionError("bad_candidate", "the interviewer cannot be the candidate")
    problem = _problem(problem_slug)
    _check_duration(duration)
    with transaction.atomic():
        session = InterviewSession.objects.create(
            problem=problem,
            candidate=candidate,
            interviewer=interviewer,
            kind=Kind.LIVE,
            duration=duration,
            interviewer_can_edit=interviewer_can_edit,
            invite_token=new_invite_token(),
        )
        _store_starter(session)
    return session


def session_join(*, token: str, user: Any) -> InterviewSession:
    """The candidate opens the invitation: the session starts (once) and is theirs."""
    if not token:
        raise SessionError("not_found", "no such invitation")
    with transaction.atomic():
        session = (
            InterviewSession.objects.select_for_update()
            .filter(invite_token=token, kind=Kind.LIVE)
            .first()
        )
        if session is None:
            raise SessionError("not_found", "no such invitation")
        if session.interviewer_id == user.pk:
            return session  # the interviewer checking the link: nothing starts
        if session.candidate_id is not None and session.candidate_id != user.pk:
            raise SessionError("forbidden", "this invitation is for another candidate")
        if session.status == Status.SCHEDULED:
            # Conditional: of two people claiming the same link at once, one wins.
            now = timezone.now()
            claimed = InterviewSession.objects.filter(
                Q(candidate__isnull=True) | Q(candidate=user),
                pk=session.pk,
                status=Status.SCHEDULED,
            ).update(
                candidate=user,
                status=Status.ACTIVE,
                started_at=now,
                deadline=now + session.duration,
            )
            if claimed != 1:
                raise SessionError("forbidden", "this invitation was already used")
            session.refresh_from_db()
            deadline, session_id = session.deadline, session.pk
            assert deadline is not None
            SessionEvent.objects.create(
                session=session,
                kind=SessionEvent.Kind.JOINED,
                actor=user,
                at=now,
                data={"role": "candidate", "via": "invitation"},
            )
            transaction.on_commit(lambda: schedule_expiry(session_id, deadline))
            transaction.on_commit(
                lambda: realtime.broadcast(
                    session_id,
                    {
                        "type": "started",
                        "deadline": deadline.isoformat(),
                        "candidate": user.get_username(),
                    },
                )
            )
    return session


# ---------------------------------------------------------------- the document


def doc_update_store(*, session_id: int, author_id: int | None, data: bytes) -> int | None:
    """Store one update if the session still takes edits; its sequence number, or None."""
    return doc_updates_store([(session_id, author_id, data)])[0]


def doc_updates_store(items: list[tuple[int, int | None, bytes]]) -> list[int | None]:
    """Store a batch of (session id, author id, update) in one transaction (group commit).

    Each item gets its sequence number, or None when its session no longer takes edits. The
    session rows are locked while checking, so an edit and the finishing of its session are
    ordered: either the edit is stored first and is part of the final code, or it is refused.
    One transaction for many edits is what lets a durable store keep up with many editors:
    the commit (an fsync) is paid once per batch, not once per keystroke.
    """
    now = timezone.now()
    with transaction.atomic():
        open_ids = set(
            InterviewSession.objects.select_for_update()
            .filter(pk__in={sid for sid, _, _ in items}, status=Status.ACTIVE, deadline__gt=now)
            .values_list("pk", flat=True)
        )
        rows = [
            DocUpdate(session_id=sid, author_id=author, created_at=now, data=data)
            for sid, author, data in items
            if sid in open_ids
        ]
        DocUpdate.objects.bulk_create(rows)  # sets pk on SQLite and PostgreSQL
    stored = iter(rows)
    return [next(stored).pk if sid in open_ids else None for sid, _, _ in items]


def session_status(session_id: int) -> str:
    return str(InterviewSession.objects.values_list("status", flat=True).get(pk=session_id))


def doc_updates(session_id: int, *, until: datetime | None = None) -> list[tuple[int, bytes]]:
    """The stored updates of a session, in order, as (sequence number, bytes)."""
    rows = DocUpdate.objects.filter(session_id=session_id)
    if until is not None:
        rows = rows.filter(created_at__lte=until)
    return [(pk, bytes(data)) for pk, data in rows.order_by("id").values_list("id", "data")]


def session_code(session_id: int, *, at: datetime | None = None) -> str:
    """The document's text now, or as it was at `at` (replay)."""
    return collab.text_from_updates(data for _, data in doc_updates(session_id, until=at))


# ---------------------------------------------------------------- finish


def session_finish(*, session_id: int, reason: str, by: Any = None) -> InterviewSession:
    """Finish an active session and submit its last stored code. Idempotent: the second
    caller (the deadline task racing a page load, say) finds it finished and does nothing."""
    return _finish(session_id, reason, by)[0]


def _finish(session_id: int, reason: str, by: Any) -> tuple[InterviewSession, bool]:
    """The session, and whether this call is the one that finished it."""
    now = timezone.now()
    with transaction.atomic():
        finished = InterviewSession.objects.filter(pk=session_id, status=Status.ACTIVE).update(
            status=Status.FINISHED, finished_at=now, finish_reason=reason
        )
        session = InterviewSession.objects.select_related("problem", "candidate").get(pk=session_id)
        if finished != 1:
            return session, False
        code = session_code(session_id)
        submission: Submission | None = None
        error = ""
        if session.candidate is not None:
            try:
                submission = submission_create(
                    user=session.candidate,
                    problem_slug=session.problem.slug,
                    code=code,
                    mode=Submission.Mode.SUBMIT,
                )
            except GradingError as exc:
                error = exc.message
        SessionEvent.objects.create(
            session=session,
            kind=SessionEvent.Kind.FINAL_SUBMIT,
            actor=by,
            at=now,
            submission=submission,
            data={"reason": reason, "error": error},
        )
        SessionEvent.objects.create(
            session=session,
            kind=SessionEvent.Kind.FINISHED,
            actor=by,
            at=now,
            data={"reason": reason},
        )
        session.final_submission = submission
        session.save(update_fields=["final_submission"])
        payload = {
            "type": "finished",
            "reason": reason,
            "finished_at": now.isoformat(),
            "submission": submission.pk if submission else None,
            "error": error,
        }
        transaction.on_commit(lambda: realtime.broadcast(session_id, payload))
    return session, True


def session_finish_by(*, session_id: int, user: Any) -> InterviewSession:
    """A participant ends the session early (the final code is submitted as at the deadline)."""
    session, role = _participant(session_id, user)
    if session.status != Status.ACTIVE:
        raise SessionError("not_active", "the session is not running")
    reason = (
        InterviewSession.FinishReason.CANDIDATE
        if role == "candidate"
        else InterviewSession.FinishReason.INTERVIEWER
    )
    return session_finish(session_id=session_id, reason=reason, by=user)


def session_expire_if_due(session_id: int) -> bool:
    """Finish the session if its deadline has passed; whether this call finished it."""
    due = InterviewSession.objects.filter(
        pk=session_id, status=Status.ACTIVE, deadline__lte=timezone.now()
    ).exists()
    if not due:
        return False
    return _finish(session_id, InterviewSession.FinishReason.DEADLINE, None)[1]


def sessions_expire_overdue() -> int:
    """Finish every active session past its deadline (the beat sweeper's safety net)."""
    overdue = InterviewSession.objects.filter(status=Status.ACTIVE, deadline__lte=timezone.now())
    return sum(session_expire_if_due(pk) for pk in overdue.values_list("pk", flat=True))


def _require_active(session: InterviewSession) -> None:
    if session_expire_if_due(session.pk):
        session.refresh_from_db()
    if session.status != Status.ACTIVE:
        raise SessionError(
            "not_active",
            "time is up: the session is over"
            if session.status == Status.FINISHED
            else "the session has not started",
        )


# ---------------------------------------------------------------- runs


def session_run(*, session_id: int, user: Any, mode: str) -> Submission:
    """Run (public tests) or submit (every test) the document's current code.

    The code is the server's copy, not the page's: what is graded is what the replay shows.
    The submission belongs to the candidate whoever clicked, so both sides may follow it.
    """
    session, role = _participant(session_id, user)
    _require_active(session)
    if session.candidate is None:
        raise SessionError("not_active", "the session has no candidate yet")
    if mode not in Submission.Mode.values:
        raise SessionError("bad_mode", "mode must be run or submit")
    try:
        submission = submission_create(
            user=session.candidate,
            problem_slug=session.problem.slug,
            code=session_code(session_id),
            mode=mode,
        )
    except GradingError as exc:
        raise SessionError(exc.code, exc.message) from exc
    kind = SessionEvent.Kind.RUN if mode == Submission.Mode.RUN else SessionEvent.Kind.SUBMIT
    SessionEvent.objects.create(
        session=session,
        kind=kind,
        actor=user,
        at=submission.created_at,
        submission=submission,
        data={"role": role},
    )
    realtime.broadcast(
        session_id,
        {
            "type": "submission",
            "id": submission.pk,
            "mode": mode,
            "by": user.get_username(),
            "role": role,
        },
    )
    return submission


# ---------------------------------------------------------------- timeline events


def event_record(
    *, session_id: int, kind: str, actor: Any = None, data: dict[str, Any] | None = None
) -> SessionEvent:
    return SessionEvent.objects.create(
        session_id=session_id, kind=kind, actor=actor, at=timezone.now(), data=data or {}
    )


def page_event_report(*, session_id: int, user: Any, kind: str) -> SessionEvent | None:
    """What only the page knows: the candidate's tab hidden or visible again."""
    if kind not in (SessionEvent.Kind.TAB_HIDDEN, SessionEvent.Kind.TAB_VISIBLE):
        raise SessionError("bad_event", "unknown event")
    session, role = _participant(session_id, user)
    if role != "candidate" or session.status != Status.ACTIVE:
        return None  # the interviewer's own tab is nobody's business
    event = event_record(session_id=session_id, kind=kind, actor=user)
    realtime.broadcast_interviewer(
        session_id, {"type": "event", "kind": kind, "at": event.at.isoformat()}
    )
    return event


# ---------------------------------------------------------------- hints


def hints_revealed(session: InterviewSession) -> list[str]:
    """The problem's hints the candidate has opened so far, in order."""
    shown = session.events.filter(kind=SessionEvent.Kind.HINT).count()
    return list(session.problem.hints)[:shown]


def session_hint_reveal(*, session_id: int, user: Any) -> tuple[int, str] | None:
    """Open the candidate's next hint and record it (hints used are a rubric signal).

    Returns (its number, its text), or None when every hint is already open."""
    session, role = _participant(session_id, user)
    if role != "candidate":
        raise SessionError("not_candidate", "only the candidate opens hints")
    _require_active(session)
    with transaction.atomic():
        # Lock the session row: two quick clicks must not record the same hint twice.
        InterviewSession.objects.select_for_update().filter(pk=session_id).first()
        hints = list(session.problem.hints)
        shown = session.events.filter(kind=SessionEvent.Kind.HINT).count()
        if shown >= len(hints):
            return None
        event = event_record(session_id=session_id, kind=SessionEvent.Kind.HINT, actor=user,
                             data={"number": shown + 1})
    realtime.broadcast_interviewer(
        session_id, {"type": "event", "kind": "hint", "at": event.at.isoformat()}
    )
    return shown + 1, hints[shown]


# ---------------------------------------------------------------- questions and notes


def question_public(question: Question) -> dict[str, Any]:
    """What both sides see of a question."""
    return {
        "id": question.pk,
        "text": question.text,
        "asked_at": question.asked_at.isoformat(),
        "answer": question.answer,
        "source": question.answer_source,
        "answered_at": question.answered_at.isoformat() if question.answered_at else None,
        "pending": question.answer_source == Question.Source.PENDING,
    }


def question_for_interviewer(question: Question, clarifications: list[Any]) -> dict[str, Any]:
    """Also how it matched the canned questions, and the canned answer as a suggestion."""
    suggestion = ""
    if question.matched_index is not None and question.matched_index < len(clarifications):
        suggestion = str(clarifications[question.matched_index].get("answer", ""))
    return question_public(question) | {
        "matched_index": question.matched_index,
        "matched_key": question.matched_key,
        "similarity": question.similarity,
        "suggestion": suggestion,
    }


def question_ask(*, session_id: int, user: Any, text: str) -> Question:
    """The candidate asks. Solo: the platform answers at once from the canned answers, or says
    to state an assumption. Live: the interviewer answers (with the match as a suggestion)."""
    session, role = _participant(session_id, user)
    if role != "candidate":
        raise SessionError("forbidden", "only the candidate asks clarifying questions")
    _require_active(session)
    text = text.strip()
    if not text or len(text) > MAX_QUESTION_CHARS:
        raise SessionError("bad_question", f"a question has 1 to {MAX_QUESTION_CHARS} characters")
    clarifications = list(session.problem.clarifications)
    match = matching.best_match(text, clarifications)  # seconds on first use: outside the lock
    now = timezone.now()
    question = Question(
        session=session,
        asked_by=user,
        text=text,
        asked_at=now,
        matched_index=match.index,
        matched_key=match.key,
        similarity=round(match.similarity, 4),
    )
    if session.kind == Kind.SOLO:
        matched = match.index is not None
        question.answer = match.answer if matched else ASSUMPTION_ANSWER
        question.answer_source = Question.Source.CANNED if matched else Question.Source.ASSUMPTION
        question.answered_at = now
    question.save()
    realtime.broadcast(session_id, {"type": "question", "question": question_public(question)})
    realtime.broadcast_interviewer(
        session_id,
        {"type": "question_detail", "question": question_for_interviewer(question, clarifications)},
    )
    return question


def question_answer(*, session_id: int, question_id: int, user: Any, text: str) -> Question:
    """The interviewer answers a live question (or corrects an earlier answer)."""
    session, role = _participant(session_id, user)
    if role != "interviewer":
        raise SessionError("forbidden", "only the interviewer answers")
    question = Question.objects.filter(pk=question_id, session=session).first()
    if question is None:
        raise SessionError("not_found", "no such question")
    text = text.strip()
    if not text or len(text) > MAX_NOTE_CHARS:
        raise SessionError("bad_answer", f"an answer has 1 to {MAX_NOTE_CHARS} characters")
    question.answer = text
    question.answer_source = Question.Source.INTERVIEWER
    question.answered_by = user
    question.answered_at = timezone.now()
    question.save()
    realtime.broadcast(session_id, {"type": "question", "question": question_public(question)})
    return question


def note_public(note: Note) -> dict[str, Any]:
    return {
        "id": note.pk,
        "kind": note.kind,
        "text": note.text,
        "author": note.author.get_username() if note.author else "",
        "created_at": note.created_at.isoformat(),
    }


def note_add(*, session_id: int, user: Any, text: str, kind: str = Note.Kind.TRADEOFF) -> Note:
    """Add an entry to the session's tradeoffs/notes panel (either participant)."""
    session, _ = _participant(session_id, user)
    if kind not in Note.Kind.values:
        raise SessionError("bad_note", "a note is a tradeoff or a note")
    text = text.strip()
    if not text or len(text) > MAX_NOTE_CHARS:
        raise SessionError("bad_note", f"a note has 1 to {MAX_NOTE_CHARS} characters")
    if session.status == Status.FINISHED:
        raise SessionError("not_active", "the session is over")
    note = Note.objects.create(
        session=session, author=user, kind=kind, text=text, created_at=timezone.now()
    )
    realtime.broadcast(session_id, {"type": "note", "note": note_public(note)})
    return note


def session_set_interviewer_edit(*, session_id: int, user: Any, can_edit: bool) -> None:
    """The interviewer chooses to type in the document or only watch."""
    session, role = _participant(session_id, user)
    if role != "interviewer":
        raise SessionError("forbidden", "only the interviewer changes this")
    InterviewSession.objects.filter(pk=session_id).update(interviewer_can_edit=can_edit)
    event_record(
        session_id=session.pk,
        kind=SessionEvent.Kind.SETTINGS,
        actor=user,
        data={"interviewer_can_edit": can_edit},
    )
    realtime.broadcast(session_id, {"type": "settings", "interviewer_can_edit": can_edit})
