"""Writes of the review: scorecards with evidence, private notes, release, shares, panels."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from core.roles import is_interviewer
from interviews.models import (
    CriterionScore,
    InterviewSession,
    Question,
    ReportShare,
    ReviewAssignment,
    ReviewNote,
    Scorecard,
    ScoreRelease,
    SessionEvent,
)
from interviews.review import access, webhooks
from interviews.services import SessionError

MAX_NOTE_CHARS = 4000
MAX_COMMENT_CHARS = 4000
MAX_EVIDENCE = 20
EVIDENCE_KINDS = ("moment", "submission", "question")
_TOKEN = re.compile(r"^(t|moment|run|sub|submission|q|question)\s*[=:]\s*(.+)$", re.IGNORECASE)
_ALIASES = {"t": "moment", "run": "submission", "sub": "submission", "q": "question"}


@dataclass(frozen=True)
class Evidence:
    kind: str
    value: int


def criteria_of(session: InterviewSession) -> list[str]:
    """The criteria of the session's problem rubric, in the author's order."""
    return [str(item["criterion"]) for item in session.problem.rubric or []
            if isinstance(item, dict) and item.get("criterion")]


def parse_clock(raw: str) -> int:
    """"mm:ss", "h:mm:ss" or plain seconds → milliseconds."""
    parts = raw.strip().split(":")
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        raise SessionError("bad_evidence", f"not a time: {raw!r}") from None
    if len(numbers) > 3 or any(n < 0 or n != n for n in numbers):
        raise SessionError("bad_evidence", f"not a time: {raw!r}")
    seconds = 0.0
    for n in numbers:
        seconds = seconds * 60 + n
    return int(seconds * 1000)


def format_clock(ms: int) -> str:
    seconds = ms // 1000
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


def parse_evidence(raw: Any) -> list[Evidence]:
    """Evidence from the form's text ("t=01:23, sub=12, q=4") or the API's list of objects."""
    items: list[Evidence] = []
    if isinstance(raw, list):
        for entry in raw:
            if not isinstance(entry, dict) or entry.get("kind") not in EVIDENCE_KINDS:
                raise SessionError("bad_evidence", "evidence is {kind, value} objects")
            value = entry.get("value")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise SessionError("bad_evidence", "an evidence value is a whole number")
            items.append(Evidence(str(entry["kind"]), value))
    else:
        for token in re.split(r"[,;\s]+", str(raw or "").strip()):
            if not token:
                continue
            match = _TOKEN.match(token)
            if match is None:
                raise SessionError("bad_evidence",
                                   f"evidence {token!r}: use t=mm:ss, sub=ID or q=ID")
            kind = _ALIASES.get(match.group(1).lower(), match.group(1).lower())
            value_text = match.group(2)
            if kind == "moment":
                items.append(Evidence(kind, parse_clock(value_text)))
            elif value_text.isdigit():
                items.append(Evidence(kind, int(value_text)))
            else:
                raise SessionError("bad_evidence", f"evidence {token!r}: an id is a number")
    if len(items) > MAX_EVIDENCE:
        raise SessionError("bad_evidence", f"at most {MAX_EVIDENCE} evidence links a criterion")
    return items


def _check_evidence(session: InterviewSession, items: list[Evidence]) -> None:
    """Evidence must point into this session: a run of another session is not evidence."""
    subs = {e.value for e in items if e.kind == "submission"}
    if subs:
        known = set(SessionEvent.objects.filter(session=session, submission_id__in=subs)
                    .values_list("submission_id", flat=True))
        if subs - known:
            raise SessionError("bad_evidence", f"no run {sorted(subs - known)[0]} in this session")
    questions = {e.value for e in items if e.kind == "question"}
    if questions:
        known = set(Question.objects.filter(session=session, pk__in=questions)
                    .values_list("pk", flat=True))
        if questions - known:
            raise SessionError("bad_evidence",
                               f"no question {sorted(questions - known)[0]} in this session")
    start = session.started_at or session.created_at
    end = session.finished_at or session.deadline
    if end is not None:
        length = int((end - start).total_seconds() * 1000)
        for e in items:
            if e.kind == "moment" and e.value > length:
                raise SessionError("bad_evidence",
                                   f"{format_clock(e.value)} is after the session ended")


def evidence_text(evidence: list[dict[str, Any]]) -> str:
    """The form's text for stored evidence (what `parse_evidence` reads back)."""
    short = {"moment": "t", "submission": "sub", "question": "q"}
    out = []
    for e in evidence:
        value = format_clock(int(e["value"])) if e["kind"] == "moment" else str(e["value"])
        out.append(f"{short[e['kind']]}={value}")
    return ", ".join(out)


def _require_scorer(session: InterviewSession, user: Any) -> None:
    if access.review_role(session, user) is None:
        raise SessionError("not_found", "no such session")
    if not access.can_score(session, user):
        raise SessionError("forbidden", "only the session's interviewers score it")


def _level(raw: Any) -> int | None:
    if raw in (None, ""):
        return None
    try:
        level = int(raw)
    except (TypeError, ValueError):
        raise SessionError("bad_level", "a level is 1, 2, 3 or 4") from None
    if not 1 <= level <= 4:
        raise SessionError("bad_level", "a level is 1, 2, 3 or 4")
    return level


def scorecard_save(*, session: InterviewSession, user: Any, recommendation: str, summary: str,
                   scores: dict[str, dict[str, Any]], submit: bool) -> Scorecard:
    """Save (and, with `submit`, lock) the user's scorecard.

    `scores` maps criterion → {"level", "comment", "evidence"}. A submitted scorecard is final:
    the others may already have read it.
    """
    _require_scorer(session, user)
    criteria = criteria_of(session)
    unknown = set(scores) - set(criteria)
    if unknown:
        raise SessionError("bad_criterion", f"not a criterion of this rubric: {sorted(unknown)[0]}")
    if recommendation not in Scorecard.Recommendation.values:
        raise SessionError("bad_recommendation", "unknown recommendation")
    cleaned: dict[str, tuple[int | None, str, list[Evidence]]] = {}
    for criterion, item in scores.items():
        comment = str(item.get("comment", ""))[:MAX_COMMENT_CHARS]
        evidence = parse_evidence(item.get("evidence", ""))
        _check_evidence(session, evidence)
        cleaned[criterion] = (_level(item.get("level")), comment, evidence)
    with transaction.atomic():
        card, _ = Scorecard.objects.select_for_update().get_or_create(session=session,
                                                                      interviewer=user)
        if card.submitted_at is not None:
            raise SessionError("submitted", "this scorecard is submitted already")
        card.recommendation = recommendation
        card.summary = summary[:MAX_COMMENT_CHARS]
        for criterion, (level, comment, evidence) in cleaned.items():
            CriterionScore.objects.update_or_create(
                scorecard=card, criterion=criterion,
                defaults={"level": level, "comment": comment,
                          "evidence": [{"kind": e.kind, "value": e.value} for e in evidence]},
            )
        if submit:
            levels = dict(card.scores.values_list("criterion", "level"))
            missing = [c for c in criteria if levels.get(c) is None]
            if missing:
                raise SessionError("incomplete", f"no level for {missing[0]}")
            if not recommendation:
                raise SessionError("incomplete", "choose a recommendation")
            card.submitted_at = timezone.now()
        card.save()
        if submit:
            data = scored_data(card)
            transaction.on_commit(lambda: webhooks.webhook_send(webhooks.SESSION_SCORED, data))
    return card


def scored_data(card: Scorecard) -> dict[str, Any]:
    """The `session.scored` webhook's data."""
    return {
        "session": card.session_id,
        "interviewer": card.interviewer.get_username(),
        "recommendation": card.recommendation,
        "submitted_at": card.submitted_at.isoformat() if card.submitted_at else None,
        "scores": {s.criterion: s.level for s in card.scores.all()},
    }


def review_note_add(*, session: InterviewSession, user: Any, text: str) -> ReviewNote:
    """A private note of a reviewer."""
    if access.review_role(session, user) is None:
        raise SessionError("not_found", "no such session")
    text = text.strip()
    if not text or len(text) > MAX_NOTE_CHARS:
        raise SessionError("bad_note", f"a note is 1 to {MAX_NOTE_CHARS} characters")
    return ReviewNote.objects.create(session=session, author=user, text=text)


def scores_release(*, session: InterviewSession, user: Any) -> ScoreRelease:
    """Show the rubric outcome to the candidate; needs one submitted scorecard at least."""
    if access.review_role(session, user) is None:
        raise SessionError("not_found", "no such session")
    if not session.scorecards.exclude(submitted_at=None).exists():
        raise SessionError("nothing_to_release", "no submitted scorecard yet")
    release, _ = ScoreRelease.objects.get_or_create(session=session,
                                                    defaults={"released_by": user})
    return release


def share_create(*, session: InterviewSession, user: Any) -> ReportShare:
    """A new share link of the report (the candidate's or a reviewer's to make)."""
    if access.report_role(session, user) is None:
        raise SessionError("not_found", "no such session")
    if session.status != InterviewSession.Status.FINISHED:
        raise SessionError("not_finished", "the report exists once the session is over")
    return ReportShare.objects.create(session=session, created_by=user)


def share_revoke(*, session: InterviewSession, user: Any, share_id: int) -> ReportShare:
    if access.report_role(session, user) is None:
        raise SessionError("not_found", "no such session")
    share = ReportShare.objects.filter(session=session, pk=share_id).first()
    if share is None:
        raise SessionError("not_found", "no such share link")
    if share.revoked_at is None:
        share.revoked_at = timezone.now()
        share.save(update_fields=["revoked_at"])
    return share


def reviewer_assign(*, session: InterviewSession, user: Any, username: str) -> ReviewAssignment:
    """Staff add an interviewer to a session's panel."""
    if access.review_role(session, user) != access.STAFF:
        raise SessionError("forbidden", "only authors and admins assign interviewers")
    other = get_user_model().objects.filter(username=username.strip()).first()
    if other is None or not is_interviewer(other):
        raise SessionError("bad_interviewer", f"no interviewer {username!r}")
    assignment, _ = ReviewAssignment.objects.get_or_create(session=session, interviewer=other)
    return assignment
