"""Clarifying questions and the shared notes of a session."""

from __future__ import annotations

import logging
from typing import Any

from django.utils import timezone

from interviews import matching, realtime
from interviews.models import (
    InterviewSession,
    Note,
    Question,
    SessionEvent,
)
from interviews.services.activity import event_record
from interviews.services.sessions import SessionError, _participant, _require_active

log = logging.getLogger(__name__)
ASSUMPTION_ANSWER = (
    "That is not specified here: state your assumption and go on (write it in the notes panel, "
    "so the review sees it)."
)
MAX_QUESTION_CHARS = 500
MAX_NOTE_CHARS = 2000
Kind = InterviewSession.Kind
Status = InterviewSession.Status


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


def solo_answer(match: matching.Match) -> str:
    """The platform's answer, naming what it answers: the canned question it matched (or the
    statement's figure), so a candidate sees at once when it answered another question. Kept
    in the answer's text, as said at the time, for the session page and the report alike."""
    if match.figure:
        return f"From the statement's figures: {match.answer}"
    return f"Answering \u201c{match.question}\u201d: {match.answer}"


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
    problem = session.content
    clarifications = list(problem.clarifications)
    figures = (matching.statement_figures(problem.statement_md)
               if problem.kind_spec.matches_figures else [])
    # Seconds on first use: outside the lock.
    match = matching.best_match(text, clarifications, figures=figures, title=problem.title)
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
        matched = bool(match.answer)
        question.answer = solo_answer(match) if matched else ASSUMPTION_ANSWER
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
