"""The interviewer's cockpit and the talking channels of a live session.

Shared with the candidate (sent to the group `session.<id>`): the chat, the call link, the
hints the interviewer reveals, the canned answers the interviewer sends.
Private to the interviewer (never put in a payload for `session.<id>`, the state JSON of a
candidate, the replay or the report): the reference solution, the rubric anchors, the
follow-up questions, the canned answers before they are sent, the unrevealed hints and the
private notes (`ReviewNote`). `interviewer_panel` in interviews/selectors.py reads them for the
interviewer's page alone.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from core.roles import is_interviewer, may_add_co_interviewer
from interviews import realtime
from interviews.models import (
    ChatMessage,
    InterviewSession,
    Question,
    ReviewAssignment,
    ReviewNote,
)
from interviews.services.activity import hint_open
from interviews.services.questions import question_answer
from interviews.services.sessions import (
    INTERVIEWER_ROLES,
    SessionError,
    _participant,
    _require_active,
    call_link_check,
)

MAX_CHAT_CHARS = 1000
MAX_PRIVATE_NOTE_CHARS = 4000
Status = InterviewSession.Status


# ---------------------------------------------------------------- chat (shared)


def chat_public(message: ChatMessage) -> dict[str, Any]:
    """What both sides see of a chat line."""
    return {
        "id": message.pk,
        "author": message.author.get_username() if message.author else "",
        "role": message.role,
        "text": message.text,
        "created_at": message.created_at.isoformat(),
    }


def chat_send(*, session_id: int, user: Any, text: str) -> ChatMessage:
    """A participant writes in the session's chat (while the session runs)."""
    session, role = _participant(session_id, user)
    text = text.strip()
    if not text or len(text) > MAX_CHAT_CHARS:
        raise SessionError("bad_chat", f"a chat message has 1 to {MAX_CHAT_CHARS} characters")
    if session.kind != InterviewSession.Kind.LIVE:
        raise SessionError("forbidden", "a solo session has no chat")
    if session.status_now() == Status.FINISHED:
        raise SessionError("not_active", "the session is over")
    # A co-interviewer speaks from the interviewers' side.
    side = "interviewer" if role in INTERVIEWER_ROLES else role
    message = ChatMessage.objects.create(
        session=session, author=user, role=side, text=text, created_at=timezone.now()
    )
    realtime.broadcast(session_id, {"type": "chat", "message": chat_public(message)})
    return message


# ---------------------------------------------------------------- call link (shared)


def session_set_call_link(*, session_id: int, user: Any, link: str) -> str:
    """The interviewer sets (or clears) the video-meeting link both sides see."""
    session, role = _participant(session_id, user)
    if role != "interviewer":
        raise SessionError("forbidden", "only the interviewer sets the call link")
    if session.status_now() == Status.FINISHED:
        raise SessionError("not_active", "the session is over")
    link = call_link_check(link)
    InterviewSession.objects.filter(pk=session_id).update(call_link=link)
    realtime.broadcast(session_id, {"type": "call_link", "call_link": link})
    return link


# ---------------------------------------------------------------- private notes


def private_note_public(note: ReviewNote) -> dict[str, Any]:
    """The interviewer's own view of a private note (never sent to the candidate)."""
    return {
        "id": note.pk,
        "text": note.text,
        "author": note.author.get_username() if note.author else "",
        "created_at": note.created_at.isoformat(),
    }


def private_note_add(*, session_id: int, user: Any, text: str) -> ReviewNote:
    """An interviewer of the session (its own or a co-interviewer) writes a private note
    during the session (kept for the review)."""
    session, role = _participant(session_id, user)
    if role not in INTERVIEWER_ROLES:
        raise SessionError("forbidden", "only the interviewers write private notes")
    text = text.strip()
    if not text or len(text) > MAX_PRIVATE_NOTE_CHARS:
        raise SessionError("bad_note", f"a note has 1 to {MAX_PRIVATE_NOTE_CHARS} characters")
    return ReviewNote.objects.create(session=session, author=user, text=text)


# ---------------------------------------------------------------- hints, canned answers


def session_hint_reveal_by_interviewer(*, session_id: int, user: Any) -> tuple[int, str] | None:
    """The interviewer reveals the next hint: it is recorded as if the candidate had opened it
    (hints used are a rubric signal) and only now sent to the candidate's page."""
    session, role = _participant(session_id, user)
    if role != "interviewer":
        raise SessionError("forbidden", "only the interviewer reveals hints")
    _require_active(session)
    opened = hint_open(session, user, by="interviewer")
    if opened is None:
        return None
    number, text, event = opened
    transaction.on_commit(
        lambda: realtime.broadcast(
            session_id,
            {"type": "hint", "number": number, "text": text, "at": event.at.isoformat()},
        )
    )
    return number, text


def canned_answer_send(*, session_id: int, user: Any, index: int) -> Question:
    """One click: the problem's canned answer `index` answers the oldest question still
    waiting (the canned text reaches the candidate only now)."""
    session, role = _participant(session_id, user)
    if role != "interviewer":
        raise SessionError("forbidden", "only the interviewer answers")
    clarifications = list(session.content.clarifications)
    if not 0 <= index < len(clarifications):
        raise SessionError("not_found", "no such canned answer")
    pending = (
        Question.objects.filter(session=session, answer_source=Question.Source.PENDING)
        .order_by("asked_at", "id")
        .first()
    )
    if pending is None:
        raise SessionError("no_question", "no question is waiting for an answer")
    answer = str(clarifications[index].get("answer", ""))
    return question_answer(
        session_id=session_id, question_id=pending.pk, user=user, text=answer
    )


# ---------------------------------------------------------------- co-interviewers


def co_interviewers(session: InterviewSession) -> list[str]:
    """The usernames on the session's panel besides its own interviewer, in the order added."""
    return list(ReviewAssignment.objects.filter(session=session).order_by("id")
                .values_list("interviewer__username", flat=True))


def co_interviewer_add(*, session: InterviewSession, user: Any, username: str) -> ReviewAssignment:
    """The session's interviewer (or an admin) adds another interviewer to its panel: they
    review and score it beside them (`interviews.review.access.is_assigned`)."""
    if not may_add_co_interviewer(user, interviewer_id=session.interviewer_id):
        raise SessionError("forbidden", "only the session's interviewer and admins add "
                                        "co-interviewers")
    name = username.strip()
    other = get_user_model().objects.filter(username=name).first() if name else None
    if other is None or not is_interviewer(other):
        raise SessionError("bad_interviewer", f"no interviewer {name!r}")
    if other.pk in (session.interviewer_id, session.candidate_id):
        raise SessionError("bad_interviewer", f"{name} is already in this session")
    assignment, _ = ReviewAssignment.objects.get_or_create(session=session, interviewer=other)
    return assignment
