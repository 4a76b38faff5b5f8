"""Reads: who may open a session and as what, a session's state for its page, the replay."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.safestring import mark_safe

from core import visibility
from core.markdown import markdown_render
from interviews.board import board_svg
from interviews.models import (
    ACTIVITY_KINDS,
    ChatMessage,
    DocUpdate,
    InterviewSession,
    Note,
    Question,
    ReviewNote,
    SessionEvent,
)
from interviews.review.suggest import away_text
from interviews.services import (
    INTERVIEWER_ROLES,
    chat_public,
    co_interviewers,
    hints_revealed,
    note_public,
    private_note_public,
    question_for_interviewer,
    question_public,
    role_can_edit,
    session_doors,
    session_role,
)
from problems.package import criterion_title


@dataclass(frozen=True)
class DocAccess:
    """What the document socket needs to know about its user."""

    role: str
    can_edit: bool
    status: str
    deadline: datetime | None
    name: str
    # The socket's door by who knocks and when (core.visibility.session_access): OPEN, or the
    # refusal whose close code the socket answers (4425 before the start, 4410 called off).
    door: visibility.Door = visibility.Door.OPEN


def doc_access(*, user: Any, session_id: int) -> DocAccess | None:
    """None when the session does not exist; role "" when the user is not a participant."""
    session = InterviewSession.objects.filter(pk=session_id).first()
    if session is None:
        return None
    role = session_role(session, user) or ""
    return DocAccess(role=role, can_edit=role_can_edit(session, role or None),
                     status=session.status_now(), deadline=session.deadline,
                     name=user.get_username() if role else "",
                     door=session_doors(session, user).doc)


def sessions_of(user: Any) -> QuerySet[InterviewSession]:
    """The sessions a user takes part in (as its candidate, its interviewer or on its panel),
    newest first."""
    return (InterviewSession.objects.filter(Q(candidate=user) | Q(interviewer=user)
                                            | Q(review_assignments__interviewer=user))
            .distinct().select_related("problem", "candidate", "interviewer")
            .order_by("-created_at"))


def can_replay(session: InterviewSession, user: Any) -> bool:
    """The replay's door (`core.visibility.session_access`): the session's interviewers and
    admins; its candidate once it has started (every stored update holds the starter)."""
    return session_doors(session, user).replay == visibility.Door.OPEN


def session_state(*, session: InterviewSession, role: str) -> dict[str, Any]:
    """Everything the page shows besides the document: clock, questions, notes, runs."""
    clarifications = list(session.content.clarifications)
    questions = list(session.questions.order_by("asked_at", "id"))
    runs = (session.events.filter(kind__in=[SessionEvent.Kind.RUN, SessionEvent.Kind.SUBMIT,
                                            SessionEvent.Kind.FINAL_SUBMIT])
            .exclude(submission=None).order_by("at", "id"))
    return {
        "id": session.pk,
        "kind": session.kind,
        "status": session.status_now(),
        "role": role,
        "can_edit": role_can_edit(session, role) and session.status_now() == "active",
        "interviewer_can_edit": session.interviewer_can_edit,
        "deadline": session.deadline.isoformat() if session.deadline else None,
        "started_at": session.started_at.isoformat() if session.started_at else None,
        "finished_at": session.finished_at.isoformat() if session.finished_at else None,
        # Past the deadline but not yet finished by the clock: it will be, for this reason.
        "finish_reason": session.finish_reason
        or (InterviewSession.FinishReason.DEADLINE if session.status_now() == "finished" else ""),
        "server_now": timezone.now().isoformat(),
        "duration_seconds": int(session.duration.total_seconds()),
        "final_submission": session.final_submission_id,
        # The live candidate's "I'm done" (their own act, shown to both sides).
        "candidate_done_at": _done_at(session),
        # The document socket's limit on one message: the page never sends a bigger one.
        "doc_max_message_bytes": settings.ONSITE_DOC_MAX_MESSAGE_BYTES,
        "questions": [question_for_interviewer(q, clarifications)
                      if role in INTERVIEWER_ROLES
                      else question_public(q) for q in questions],
        "notes": [note_public(n) for n in session.notes.select_related("author")],
        "chat": [chat_public(m) for m in session.chat_messages.select_related("author")],
        "call_link": session.call_link,
        "submissions": [{"id": e.submission_id, "kind": e.kind, "at": e.at.isoformat()}
                        for e in runs],
        # The invitation e-mail goes out from the io worker: the interviewer's page follows it.
        "invitation": {"sent": session.invitation_sent_at is not None,
                       "error": session.invitation_error} if role == "interviewer" else None,
    }


def _done_at(session: InterviewSession) -> str | None:
    done = session.events.filter(kind=SessionEvent.Kind.DONE).order_by("at", "id").first()
    return done.at.isoformat() if done else None


def interviewer_panel(*, session: InterviewSession, user: Any) -> dict[str, Any]:
    """The interviewer's private side panel: reference, rubric anchors, hints (revealed or
    not), follow-ups, canned answers, the user's private notes. For the interviewer's page
    only: nothing here may go into `session_state`, a broadcast to `session.<id>`, the replay
    or the report. What it holds is decided by core.visibility, as everywhere."""
    viewer = visibility.viewer_of("session", session, user)
    if not visibility.may_see(visibility.INTERVIEWER_PROMPTS, viewer, visibility.Channel.PAGE):
        return {}
    problem = session.problem
    revealed = len(hints_revealed(session))
    reference_visible = visibility.may_see(
        visibility.REFERENCE_SOLUTION, viewer, visibility.Channel.PAGE
    )
    return {
        "reference_code": problem.reference_code if reference_visible else "",
        # A design problem's reference design (the same private row as a reference solution).
        "reference_design": reference_design(problem) if reference_visible else None,
        "rubric": [
            {"criterion": str(item.get("criterion", "")),
             "title": criterion_title(str(item.get("criterion", ""))),
             "strong": str(item.get("strong", "")),
             "levels": [str(level).split(": ", 1)[-1] for level in item.get("levels", [])]}
            for item in problem.rubric
        ],
        "hints": [{"number": i + 1, "text": str(text), "revealed": i < revealed}
                  for i, text in enumerate(problem.hints)],
        "hints_revealed": revealed,
        "follow_ups": [str(text) for text in problem.follow_ups],
        "canned": [{"index": i, "question": str(item.get("question", "")),
                    "answer": str(item.get("answer", "")), "key": bool(item.get("key"))}
                   for i, item in enumerate(problem.clarifications)],
        "co_interviewers": co_interviewers(session),
        # The session's private notes (REVIEW_NOTE: its reviewers): the interviewer's and
        # every co-interviewer's, each with its author.
        "private_notes": [private_note_public(note) for note in
                          ReviewNote.objects.filter(session=session)
                          .select_related("author").order_by("created_at", "id")]
        if visibility.may_see(visibility.REVIEW_NOTE, viewer, visibility.Channel.PAGE) else [],
    }


def reference_design(problem: Any) -> dict[str, Any] | None:
    """A design problem's reference design for the cockpit: its text (`reference_code`,
    Markdown rendered as statements are) and its board (`reference_board`, drawn on the
    server: interviews/board.py, escaped and bounded). None for a coding problem. Callers
    ask `core.visibility` first (REFERENCE_SOLUTION): this is private to interviewers."""
    if not problem.kind_spec.has_board:
        return None
    elements = problem.reference_board or []
    if not elements and problem.live_version is not None:
        elements = problem.live_version.reference_board or []
    return {"html": markdown_render(problem.reference_code or ""),
            # Our own SVG, every value rebuilt and escaped by board_svg: safe to inline.
            "board_svg": mark_safe(board_svg(elements)) if elements else "",  # noqa: S308
            # The elements themselves, for the full-size read-only board the panel opens
            # (js/session/design.js referenceViewerMount; json_script escapes them).
            "board_elements": list(elements),
            "elements": len(elements)}


def accommodation_note(session: InterviewSession, user: Any) -> str:
    """The extra time granted at scheduling, said to those the policy lets know
    (`core.visibility.ACCOMMODATION`: the candidate, the interviewer who granted it, admins);
    "" for anyone else and when none was granted."""
    extra = session.extra_time
    if not extra or extra <= timedelta(0):
        return ""
    viewer = visibility.viewer_of("session", session, user)
    own = bool(getattr(user, "pk", None)) and user.pk == session.interviewer_id
    if not visibility.may_see(visibility.ACCOMMODATION, viewer, visibility.Channel.PAGE,
                              own=own):
        return ""
    minutes = round(extra.total_seconds() / 60)
    return f"includes {minutes} min extra time (an accommodation)"


def _ms_since(start: datetime, moment: datetime) -> int:
    return max(0, int((moment - start).total_seconds() * 1000))


def paste_match_text(data: dict[str, Any]) -> str:
    """What a large paste matched (interviews.services.paste_record), or "" for nothing."""
    if not isinstance(data.get("similar"), int):
        return ""
    like = (f"the known solution {data['similar_to']}" if data.get("similar_to")
            else "another candidate's submitted code")
    return f"{data['similar']}% of it is in {like}"


def paste_label(data: dict[str, Any]) -> str:
    """A large paste's timeline line, with what it matched."""
    label = f"Large paste ({data.get('chars', '?')} characters)"
    match = paste_match_text(data)
    return f"{label}: {match}" if match else label


def _event_label(event: SessionEvent) -> str:
    data = event.data or {}
    labels: dict[str, str] = {
        SessionEvent.Kind.RUN: "Run",
        SessionEvent.Kind.SUBMIT: "Submit",
        SessionEvent.Kind.CUSTOM_RUN: "Custom input run",
        SessionEvent.Kind.CONSOLE_RUN: "Console run (the file as a script)",
        SessionEvent.Kind.FINAL_SUBMIT: "Final submission",
        SessionEvent.Kind.PASTE: paste_label(data),
        SessionEvent.Kind.TAB_HIDDEN: "Candidate left the tab",
        SessionEvent.Kind.TAB_VISIBLE: "Candidate came back to the tab" + (
            f" (away {away_text(int(data['away_ms']))})"
            if isinstance(data.get("away_ms"), int) else ""),
        SessionEvent.Kind.JOINED: f"{data.get('role', 'someone')} "
        + ("joined" if data.get("via") == "invitation" else "connected"),
        SessionEvent.Kind.LEFT: f"{data.get('role', 'someone')} disconnected",
        SessionEvent.Kind.EDIT_REFUSED: "Edit after the deadline refused",
        SessionEvent.Kind.SETTINGS: "Interviewer editing " + (
            "on" if data.get("interviewer_can_edit") else "off"),
        SessionEvent.Kind.FINISHED: f"Finished ({data.get('reason', '')})",
        SessionEvent.Kind.HINT: f"Hint {data.get('number', '?')} opened",
        SessionEvent.Kind.DONE: "Candidate said they are done",
        SessionEvent.Kind.EXTENDED: f"Interviewer added {data.get('minutes', '?')} min",
    }
    return labels.get(str(event.kind), str(event.kind))


def replay_data(*, session: InterviewSession, user: Any) -> dict[str, Any]:
    """Every stored update (base64, with its time and author) and every timeline mark that
    `user` may see (`core.visibility`, as on the live page: the candidate's own replay has no
    pastes or tab leaves).

    Times are milliseconds since the session started; the browser rebuilds the document at
    any moment by applying the updates up to it, in order.
    """
    viewer = visibility.viewer_of("session", session, user)
    events = session.events.select_related("submission", "actor").order_by("at", "id")
    if not visibility.may_see(visibility.ACTIVITY_SIGNALS, viewer, visibility.Channel.REPLAY):
        events = events.exclude(kind__in=ACTIVITY_KINDS)
    chat = ChatMessage.objects.filter(session=session).select_related("author")
    if not visibility.may_see(visibility.SESSION_CHAT, viewer, visibility.Channel.REPLAY):
        chat = chat.none()
    start = session.started_at or session.created_at
    end = session.finished_at or min(timezone.now(), session.deadline or timezone.now())
    updates: list[dict[str, Any]] = [
        {"seq": pk, "t": _ms_since(start, created), "author": author or "",
         "update": base64.b64encode(bytes(data)).decode("ascii")}
        for pk, created, author, data in DocUpdate.objects.filter(session=session)
        .order_by("id").values_list("id", "created_at", "author__username", "data")
    ]
    marks: list[dict[str, Any]] = []
    for event in events:
        mark: dict[str, Any] = {"t": _ms_since(start, event.at), "kind": event.kind,
                                "label": _event_label(event),
                                "actor": event.actor.get_username() if event.actor else ""}
        if event.submission is not None:
            sub = event.submission
            mark["submission"] = {"id": sub.pk, "mode": sub.mode, "status": sub.status,
                                  "verdict": sub.verdict, "passed": sub.passed,
                                  "total": sub.total}
            if sub.verdict:
                mark["label"] += f": {sub.verdict} {sub.passed}/{sub.total}"
        marks.append(mark)
    for question in Question.objects.filter(session=session):
        marks.append({"t": _ms_since(start, question.asked_at), "kind": "question",
                      "label": f"Question: {question.text}", "actor": "",
                      "question": question.pk,
                      "answer": question.answer, "matched_key": question.matched_key})
    for note in Note.objects.filter(session=session).select_related("author"):
        marks.append({"t": _ms_since(start, note.created_at), "kind": "note",
                      "label": f"{note.kind.capitalize()}: {note.text}",
                      "actor": note.author.get_username() if note.author else ""})
    for message in chat:
        marks.append({"t": _ms_since(start, message.created_at), "kind": "chat",
                      "label": f"Chat: {message.text}",
                      "actor": message.author.get_username() if message.author else ""})
    marks.sort(key=lambda m: m["t"])
    return {
        "id": session.pk,
        "problem": session.problem.title,
        "started_at": start.isoformat(),
        "duration_ms": max([_ms_since(start, end)] + [int(u["t"]) for u in updates[-1:]]),
        "updates": updates,
        "marks": marks,
    }
