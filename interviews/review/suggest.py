"""Automatic signals about a session, and the rubric levels they suggest.

Suggestions only pre-fill the form: the interviewer's level always wins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from grading.models import Submission, TestResult
from interviews.models import InterviewSession, SessionEvent

RUN_KINDS = (SessionEvent.Kind.RUN, SessionEvent.Kind.SUBMIT, SessionEvent.Kind.FINAL_SUBMIT)
# Criteria fed by the hidden-test pass rate of the tag of the same name.
TAG_CRITERIA = ("correctness", "edge_cases")


@dataclass(frozen=True)
class KeyQuestion:
    index: int
    question: str
    asked: bool
    at_ms: int | None = None
    question_id: int | None = None


@dataclass(frozen=True)
class Signals:
    hidden_by_tag: dict[str, tuple[int, int]] = field(default_factory=dict)
    key_questions: tuple[KeyQuestion, ...] = ()
    hints_used: int = 0  # hints the candidate opened during the session
    first_pass_ms: int | None = None
    first_pass_submission: int | None = None
    pastes: int = 0  # large pastes into the editor (ONSITE_PASTE_CHARS or more)
    paste_chars: int = 0
    tab_leaves: int = 0  # times the candidate left the tab


@dataclass(frozen=True)
class Suggestion:
    criterion: str
    level: int
    why: str


def ms_since_start(session: InterviewSession, moment: datetime) -> int:
    start = session.started_at or session.created_at
    return max(0, int((moment - start).total_seconds() * 1000))


def hidden_by_tag(submission_id: int | None) -> dict[str, tuple[int, int]]:
    """(passed, total) of the hidden tests per tag of one submission."""
    out: dict[str, list[int]] = {}
    if submission_id is None:
        return {}
    for tag, verdict in TestResult.objects.filter(
        submission_id=submission_id, hidden=True
    ).values_list("tag", "verdict"):
        counts = out.setdefault(tag, [0, 0])
        counts[0] += verdict == Submission.Verdict.AC
        counts[1] += 1
    return {tag: (p, t) for tag, (p, t) in sorted(out.items())}


def session_signals(session: InterviewSession) -> Signals:
    """Hidden pass rates of the final submission, key questions asked, hints, first pass."""
    questions = list(session.questions.order_by("asked_at", "id"))
    keys: list[KeyQuestion] = []
    for index, item in enumerate(session.problem.clarifications or []):
        if not isinstance(item, dict) or not item.get("key"):
            continue
        first = next((q for q in questions if q.matched_index == index), None)
        keys.append(KeyQuestion(
            index=index, question=str(item.get("question", "")), asked=first is not None,
            at_ms=ms_since_start(session, first.asked_at) if first else None,
            question_id=first.pk if first else None,
        ))
    hint_events = session.events.filter(kind=SessionEvent.Kind.HINT).count()
    first_pass = (session.events.filter(kind__in=RUN_KINDS,
                                        submission__verdict=Submission.Verdict.AC)
                  .order_by("at", "id").first())
    pastes = list(session.events.filter(kind=SessionEvent.Kind.PASTE)
                  .values_list("data", flat=True))
    return Signals(
        pastes=len(pastes),
        paste_chars=sum(int((d or {}).get("chars", 0)) for d in pastes),
        tab_leaves=session.events.filter(kind=SessionEvent.Kind.TAB_HIDDEN).count(),
        hidden_by_tag=hidden_by_tag(session.final_submission_id),
        key_questions=tuple(keys),
        hints_used=hint_events,
        first_pass_ms=ms_since_start(session, first_pass.at) if first_pass else None,
        first_pass_submission=first_pass.submission_id if first_pass else None,
    )


def level_for_rate(rate: float) -> int:
    """1-4 from a fraction: all = 4, three quarters = 3, two fifths = 2, less = 1."""
    if rate >= 1.0:
        return 4
    if rate >= 0.75:
        return 3
    if rate >= 0.4:
        return 2
    return 1


def suggestions(signals: Signals, criteria: list[str]) -> dict[str, Suggestion]:
    """The suggested level per criterion of the rubric that a signal speaks to."""
    out: dict[str, Suggestion] = {}
    for criterion in TAG_CRITERIA:
        if criterion in criteria and criterion in signals.hidden_by_tag:
            passed, total = signals.hidden_by_tag[criterion]
            if total:
                out[criterion] = Suggestion(
                    criterion, level_for_rate(passed / total),
                    f"{passed}/{total} hidden {criterion} tests passed")
    if out and (signals.pastes or signals.tab_leaves):
        # Not a level of its own: what the reviewer should weigh beside the pass rate.
        caveat = integrity_note(signals)
        out = {c: Suggestion(s.criterion, s.level, f"{s.why}; {caveat}") for c, s in out.items()}
    if "clarifying_questions" in criteria and signals.key_questions:
        asked = sum(k.asked for k in signals.key_questions)
        out["clarifying_questions"] = Suggestion(
            "clarifying_questions", level_for_rate(asked / len(signals.key_questions)),
            f"{asked} of {len(signals.key_questions)} key clarifying questions asked")
    return out


def integrity_note(signals: Signals) -> str:
    """Pastes and tab leaves, as the review page says them."""
    parts = []
    if signals.pastes:
        parts.append(f"{signals.pastes} large paste{'s' if signals.pastes != 1 else ''} "
                     f"({signals.paste_chars} characters)")
    if signals.tab_leaves:
        parts.append(f"left the tab {signals.tab_leaves} time"
                     f"{'s' if signals.tab_leaves != 1 else ''}")
    return " and ".join(parts) if parts else "no large paste, never left the tab"


def signals_public(signals: Signals) -> dict[str, Any]:
    """JSON form (for the API)."""
    return {
        "hidden_by_tag": {k: list(v) for k, v in signals.hidden_by_tag.items()},
        "key_questions": [k.__dict__ for k in signals.key_questions],
        "hints_used": signals.hints_used,
        "first_pass_ms": signals.first_pass_ms,
        "first_pass_submission": signals.first_pass_submission,
        "pastes": signals.pastes,
        "paste_chars": signals.paste_chars,
        "tab_leaves": signals.tab_leaves,
    }
