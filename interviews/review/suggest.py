"""Automatic signals about a session, and the rubric levels they suggest.

Suggestions inform, never decide: the scorecard shows each beside its criterion with its one
line of evidence, and nothing is pre-selected. Each claim follows from what was recorded: a
level 4 ("correct on the first pass", "asks before coding") needs the first run to have
passed every test it ran, or every key question asked before it; a pass rate says which
submission it counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

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
class RunRecord:
    """One graded run or submission of the session, in order (numbered from 1)."""

    number: int
    kind: str
    passed: int
    total: int
    verdict: str
    at_ms: int
    submission: int

    @property
    def all_passed(self) -> bool:
        return self.total > 0 and self.passed == self.total


@dataclass(frozen=True)
class Signals:
    hidden_by_tag: dict[str, tuple[int, int]] = field(default_factory=dict)
    key_questions: tuple[KeyQuestion, ...] = ()
    hints_used: int = 0  # hints the candidate opened during the session
    first_pass_ms: int | None = None
    first_pass_submission: int | None = None
    pastes: int = 0  # large pastes into the editor (ONSITE_PASTE_CHARS or more)
    paste_chars: int = 0
    questions_at_ms: tuple[int, ...] = ()  # when each question (key or not) was asked
    tab_leaves: int = 0  # times the candidate left the tab for MIN_TAB_LEAVE_MS or more
    tab_away_ms: int = 0  # how long those leaves lasted, together
    short_tab_leaves: int = 0  # leaves shorter than that: a flicker, not counted
    runs: tuple[RunRecord, ...] = ()  # the graded runs, in order


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
    for index, item in enumerate(session.content.clarifications or []):
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
        questions_at_ms=tuple(ms_since_start(session, q.asked_at) for q in questions),
        runs=session_run_records(session),
        pastes=len(pastes),
        paste_chars=sum(int((d or {}).get("chars", 0)) for d in pastes),
        **_tab_signals(session),
        hidden_by_tag=hidden_by_tag(session.final_submission_id),
        key_questions=tuple(keys),
        hints_used=hint_events,
        first_pass_ms=ms_since_start(session, first_pass.at) if first_pass else None,
        first_pass_submission=first_pass.submission_id if first_pass else None,
    )


# A leave shorter than this is not counted: a window that opens over the page for a moment (a
# notification, a file dialog) hides the tab without the candidate going anywhere.
MIN_TAB_LEAVE_MS = 2000


def tab_absences(events: list[tuple[str, datetime]], end: datetime) -> list[int]:
    """How long each leave lasted (ms), in order: a leave runs from a `tab_hidden` to the next
    `tab_visible`; one still open runs to `end` (the session's end, or now). Repeated hides or
    returns count once."""
    out: list[int] = []
    left: datetime | None = None
    for kind, at in sorted(events, key=lambda item: item[1]):
        if kind == SessionEvent.Kind.TAB_HIDDEN and left is None:
            left = at
        elif kind == SessionEvent.Kind.TAB_VISIBLE and left is not None:
            out.append(max(0, int((at - left).total_seconds() * 1000)))
            left = None
    if left is not None:
        out.append(max(0, int((max(end, left) - left).total_seconds() * 1000)))
    return out


def _tab_signals(session: InterviewSession) -> dict[str, int]:
    events = list(session.events.filter(kind__in=[SessionEvent.Kind.TAB_HIDDEN,
                                                  SessionEvent.Kind.TAB_VISIBLE])
                  .order_by("at", "id").values_list("kind", "at"))
    away = tab_absences(events, session.finished_at or timezone.now())
    counted = [ms for ms in away if ms >= MIN_TAB_LEAVE_MS]
    return {"tab_leaves": len(counted), "tab_away_ms": sum(counted),
            "short_tab_leaves": len(away) - len(counted)}


def away_text(ms: int) -> str:
    """A duration as a person reads it: "45 s", "3 min 5 s", "1 h 2 min"."""
    seconds = max(0, round(ms / 1000))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def session_run_records(session: InterviewSession) -> tuple[RunRecord, ...]:
    """The session's graded runs in order: what the first-pass claims are read from."""
    events = (session.events.filter(kind__in=RUN_KINDS).exclude(submission=None)
              .select_related("submission").order_by("at", "id"))
    out: list[RunRecord] = []
    # Numbered as the review page and the evidence labels number them (every run event).
    for number, event in enumerate(events, start=1):
        sub = event.submission
        assert sub is not None
        if sub.status != Submission.Status.DONE:
            continue  # a run still grading, or one the platform failed, says nothing yet
        out.append(RunRecord(number=number, kind=str(event.kind), passed=sub.passed,
                             total=sub.total, verdict=str(sub.verdict),
                             at_ms=ms_since_start(session, event.at), submission=sub.pk))
    return tuple(out)


def level_for_rate(rate: float) -> int:
    """1-4 from a fraction: all = 4, three quarters = 3, two fifths = 2, less = 1."""
    if rate >= 1.0:
        return 4
    if rate >= 0.75:
        return 3
    if rate >= 0.4:
        return 2
    return 1


def _first_pass_cap(level: int, why: str, runs: tuple[RunRecord, ...]) -> tuple[int, str]:
    """Level 4 is "right on the first pass": only when the first graded run passed every test
    it ran. Otherwise 3 at most, and the line says what the first run did."""
    if not runs:
        return level, why
    first = runs[0]
    if first.all_passed:
        return level, f"{why}; the first run passed {first.passed}/{first.total}"
    fixed = next((r for r in runs if r.all_passed), None)
    later = f", every test passed from run {fixed.number}" if fixed else ""
    return min(level, 3), (f"{why}; not on the first pass: the first run passed "
                           f"{first.passed}/{first.total}{later}")


def suggestions(signals: Signals, criteria: list[str]) -> dict[str, Suggestion]:
    """The suggested level per criterion of the rubric that a signal speaks to."""
    out: dict[str, Suggestion] = {}
    for criterion in TAG_CRITERIA:
        if criterion in criteria and criterion in signals.hidden_by_tag:
            passed, total = signals.hidden_by_tag[criterion]
            if total:
                words = {"edge_cases": "edge-case"}.get(criterion, criterion)
                level, why = _first_pass_cap(
                    level_for_rate(passed / total),
                    f"final submission passed {passed}/{total} hidden {words} tests",
                    signals.runs)
                out[criterion] = Suggestion(criterion, level, why)
    # Pastes and tab leaves are no evidence of correctness: they stay on their own line
    # (`integrity_note`), never in a criterion's reason.
    if "clarifying_questions" in criteria and signals.key_questions:
        facts = clarifying_facts(signals)
        out["clarifying_questions"] = Suggestion(
            "clarifying_questions", clarifying_level(facts), clarifying_reason(facts))
    return out


@dataclass(frozen=True)
class ClarifyingFacts:
    """What the clarifying-questions suggestion is computed from, and all its reason says."""

    key_total: int  # the problem's key questions
    key_asked: int  # of them, asked at any time
    key_late: int  # of those, asked only after the first graded run
    asked_before: int  # questions of any kind asked before the first run (all, without runs)
    has_run: bool


def clarifying_facts(signals: Signals) -> ClarifyingFacts:
    first_run = signals.runs[0].at_ms if signals.runs else None
    asked = [k for k in signals.key_questions if k.asked]
    late = [k for k in asked if first_run is not None and (k.at_ms or 0) > first_run]
    before = [ms for ms in signals.questions_at_ms if first_run is None or ms <= first_run]
    return ClarifyingFacts(key_total=len(signals.key_questions), key_asked=len(asked),
                           key_late=len(late), asked_before=len(before),
                           has_run=first_run is not None)


def clarifying_level(facts: ClarifyingFacts) -> int:
    """The bank's anchors, by count: 1 asks nothing before coding; 2 asks something, but none
    or only one of several key questions; 3 asks some or most of them (or asked them all, some
    only after the first run); 4 asks every key question before coding."""
    before_run = facts.key_asked - facts.key_late
    if facts.asked_before == 0 and facts.key_asked == 0:
        return 1
    if facts.key_asked == facts.key_total and facts.key_late == 0:
        return 4
    if facts.key_asked >= 2 or (facts.key_asked == 1 and facts.key_total <= 2):
        return 3
    if facts.asked_before == 0 and before_run == 0:
        # Every question came after the first run: "starts coding without questions".
        return 1
    return 2


def clarifying_reason(facts: ClarifyingFacts) -> str:
    """The facts `clarifying_level` read, in words, and nothing else."""
    when = "before the first run" if facts.has_run else "in the session"
    parts = [f"{facts.key_asked} of {facts.key_total} key clarifying questions asked"]
    if facts.key_late:
        parts.append(f"{facts.key_late} of them only after the first run")
    n = facts.asked_before
    parts.append(f"{n} question{'s' if n != 1 else ''} in all {when}")
    return ", ".join(parts)


def integrity_note(signals: Signals) -> str:
    """Pastes and tab leaves, as the review page says them."""
    parts = []
    if signals.pastes:
        parts.append(f"{signals.pastes} large paste{'s' if signals.pastes != 1 else ''} "
                     f"({signals.paste_chars} characters)")
    if signals.tab_leaves:
        parts.append(f"left the tab {signals.tab_leaves} time"
                     f"{'s' if signals.tab_leaves != 1 else ''} "
                     f"({away_text(signals.tab_away_ms)} away in all)")
    text = " and ".join(parts) if parts else "no large paste, never left the tab"
    if signals.short_tab_leaves:
        n = signals.short_tab_leaves
        text += (f"; {n} shorter leave{'s' if n != 1 else ''} (under "
                 f"{MIN_TAB_LEAVE_MS // 1000} s) not counted")
    return text


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
        "tab_away_ms": signals.tab_away_ms,
        "short_tab_leaves": signals.short_tab_leaves,
        "runs": [r.__dict__ for r in signals.runs],
    }
