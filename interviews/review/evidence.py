"""Evidence of a rubric criterion: a moment of the session, a run, a question.

Stored on `CriterionScore.evidence` as `[{"kind", "value"}]` (a moment's value in ms since the
start): the format the typed codes were parsed into, so no migration was needed when the form
became chips. The rubric form posts one hidden input per chip (`evidence-<criterion>` =
`"<kind>:<value>"`), the replay's cite buttons post one token, the API posts the objects.

The human label of an item ("03:12 pasted 40 chars", "Run 3 · 2/5 passed", "Question: can the
queue be empty?") is made here, once, for the review page, the replay's cite buttons and the
candidate's report. Labels are built only from what both sides of the session saw (runs,
questions, chat, hints), and for reviewers from the Activity panel's pastes and tab changes
too (`core.visibility.ACTIVITY_SIGNALS`): never from a private note, a scorecard or a prompt
of the interviewer's side panel, so a label can go into the candidate's report.

In a design round a cited moment is a *board moment*: "Board at 12:34 · 5 elements", with
the board as it was then (`board`: the URL of its picture, under the report's access rules,
interviews/review/views.py `report_board`). The candidate drew it, so it is theirs to see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from core import visibility
from core.visibility import Viewer
from interviews.board import board_count
from interviews.models import (
    ACTIVITY_KINDS,
    ChatMessage,
    InterviewSession,
    Question,
    SessionEvent,
)
from interviews.review.suggest import RUN_KINDS, away_text, ms_since_start
from interviews.services import SessionError, board_elements_at_ms, has_board

KINDS = ("moment", "submission", "question")
MAX_PER_CRITERION = 20
# A cited moment is described by what happened within this much of it.
NEAR_MS = 1500
_QUOTE_CHARS = 60


@dataclass(frozen=True)
class Evidence:
    kind: str
    value: int

    @property
    def token(self) -> str:
        """What a chip's hidden input and a cite button carry."""
        return f"{self.kind}:{self.value}"

    def stored(self) -> dict[str, Any]:
        return {"kind": self.kind, "value": self.value}


@dataclass(frozen=True)
class Chip:
    """One evidence item as shown: its label, where it links ("" for nowhere), its token."""

    token: str
    label: str
    href: str = ""
    kind: str = ""
    valid: bool = True
    board: str = ""  # a board moment's picture (design rounds), "" for anything else


def format_clock(ms: int) -> str:
    seconds = ms // 1000
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


def _item(kind: Any, value: Any) -> Evidence:
    if kind not in KINDS:
        raise SessionError("bad_evidence", "evidence is a moment, a run or a question")
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SessionError("bad_evidence", "an evidence value is a whole number")
    return moment_at(value) if kind == "moment" else Evidence(str(kind), value)


def moment_at(ms: int) -> Evidence:
    """A cited moment is a second of the replay (what its label and link show)."""
    return Evidence("moment", ms // 1000 * 1000)


def evidence_parse_one(raw: Any) -> Evidence:
    """One item: a form token ("moment:192000", "submission:12") or an API object."""
    if isinstance(raw, dict):
        return _item(raw.get("kind"), raw.get("value"))
    kind, _, value = str(raw).strip().partition(":")
    return _item(kind, value)


def evidence_parse(*, raw: Any) -> list[Evidence]:
    """A criterion's evidence: a list of tokens or objects (repeats are dropped)."""
    if raw in (None, ""):
        return []
    if not isinstance(raw, (list, tuple)):
        raw = [raw]
    items: list[Evidence] = []
    for entry in raw:
        item = evidence_parse_one(entry)
        if item not in items:
            items.append(item)
    if len(items) > MAX_PER_CRITERION:
        raise SessionError("bad_evidence",
                           f"at most {MAX_PER_CRITERION} pieces of evidence a criterion")
    return items


def _session_ms(session: InterviewSession) -> int | None:
    start = session.started_at or session.created_at
    end = session.finished_at or session.deadline
    return None if end is None else int((end - start).total_seconds() * 1000)


def evidence_check(*, session: InterviewSession, items: list[Evidence]) -> None:
    """Evidence must point into this session: a run of another session is not evidence."""
    subs = {e.value for e in items if e.kind == "submission"}
    if subs:
        known = set(SessionEvent.objects.filter(session=session, submission_id__in=subs)
                    .values_list("submission_id", flat=True))
        if subs - known:
            raise SessionError("bad_evidence", "that run is not one of this session's")
    questions = {e.value for e in items if e.kind == "question"}
    if questions:
        known = set(Question.objects.filter(session=session, pk__in=questions)
                    .values_list("pk", flat=True))
        if questions - known:
            raise SessionError("bad_evidence", "that question was not asked in this session")
    length = _session_ms(session)
    for e in items:
        if e.kind == "moment" and length is not None and e.value > length:
            raise SessionError("bad_evidence",
                               f"{format_clock(e.value)} is after the session ended")


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _QUOTE_CHARS else text[:_QUOTE_CHARS - 1].rstrip() + "…"


def _passed(sub: Any) -> str:
    if sub.total:
        return f"{sub.passed}/{sub.total} passed"
    return str(sub.verdict or sub.status)


class EvidenceLabels:
    """Labels and links of one session's evidence, from a few queries made once.

    `reviewer`: links point at the review page and the replay; for the candidate's report
    (and its share links) there are no links, only the labels.
    """

    def __init__(self, session: InterviewSession, *, reviewer: bool) -> None:
        self.session = session
        self.reviewer = reviewer
        self.replay = reverse("interviews:replay", kwargs={"session_id": session.pk})
        self.runs: dict[int, tuple[int, Any, int, str]] = {}  # id → (number, sub, ms, kind)
        events = (session.events.filter(kind__in=RUN_KINDS).exclude(submission=None)
                  .select_related("submission").order_by("at", "id"))
        for number, event in enumerate(events, start=1):
            assert event.submission_id is not None
            self.runs.setdefault(event.submission_id,
                                 (number, event.submission, ms_since_start(session, event.at),
                                  str(event.kind)))
        self.questions = {q.pk: (q, ms_since_start(session, q.asked_at))
                          for q in Question.objects.filter(session=session)}
        self.moments = self._moments()
        self.design = has_board(session)
        self.board_url = reverse("interviews:report_board", kwargs={"session_id": session.pk})
        self._board_counts: dict[int, int] = {}

    def board_count(self, ms: int) -> int:
        """How many elements the board held `ms` after the start (decoded once per moment)."""
        if ms not in self._board_counts:
            try:
                self._board_counts[ms] = board_count(board_elements_at_ms(self.session, ms))
            except Exception:  # a document that does not decode: the label still reads
                self._board_counts[ms] = 0
        return self._board_counts[ms]

    def _moments(self) -> list[tuple[int, str]]:
        """(ms, what happened) for everything both sides saw happen."""
        out: list[tuple[int, str]] = []
        for number, sub, ms, kind in self.runs.values():
            verb = {"run": "ran the public tests", "submit": "submitted",
                    "final_submit": "final submission"}.get(kind, "ran")
            out.append((ms, f"{verb} (run {number} · {_passed(sub)})"))
        for question, ms in self.questions.values():
            out.append((ms, f"asked “{_quote(question.text)}”"))
        simple = {SessionEvent.Kind.TAB_HIDDEN: "left the tab",
                  SessionEvent.Kind.TAB_VISIBLE: "came back to the tab",
                  SessionEvent.Kind.FINISHED: "the session ended"}
        events = self.session.events.filter(kind__in=[*simple, SessionEvent.Kind.PASTE,
                                                      SessionEvent.Kind.HINT])
        if not visibility.may_see(visibility.ACTIVITY_SIGNALS, Viewer.ASSIGNED
                                  if self.reviewer else Viewer.CANDIDATE):
            events = events.exclude(kind__in=ACTIVITY_KINDS)  # the candidate's report
        for event in events:
            data = event.data or {}
            if event.kind == SessionEvent.Kind.PASTE:
                text = f"pasted {data.get('chars', '?')} chars"
            elif event.kind == SessionEvent.Kind.HINT:
                text = f"opened hint {data.get('number', '?')}"
            elif event.kind == SessionEvent.Kind.TAB_VISIBLE and isinstance(
                    data.get("away_ms"), int):
                text = f"came back to the tab (away {away_text(data['away_ms'])})"
            else:
                text = simple[SessionEvent.Kind(event.kind)]
            out.append((ms_since_start(self.session, event.at), text))
        for message in ChatMessage.objects.filter(session=self.session):
            out.append((ms_since_start(self.session, message.created_at),
                        f"chat: “{_quote(message.text)}”"))
        return out

    def moment_text(self, ms: int) -> str:
        near = [(abs(at - ms), text) for at, text in self.moments if abs(at - ms) <= NEAR_MS]
        what = min(near)[1] if near else "in the replay"
        return f"{format_clock(ms)} {what}"

    def chip(self, item: Evidence) -> Chip:
        if item.kind == "moment":
            href = f"{self.replay}#t={item.value}" if self.reviewer else ""
            if self.design:
                count = self.board_count(item.value)
                label = (f"Board at {format_clock(item.value)} · {count} "
                         f"element{'' if count == 1 else 's'}")
                return Chip(item.token, label, href, item.kind,
                            board=f"{self.board_url}?t={item.value}")
            return Chip(item.token, self.moment_text(item.value), href, item.kind)
        if item.kind == "submission":
            run = self.runs.get(item.value)
            if run is None:
                return Chip(item.token, "a run of another session", "", item.kind, valid=False)
            number, sub, _, kind = run
            final = " (final)" if kind == SessionEvent.Kind.FINAL_SUBMIT else ""
            return Chip(item.token, f"Run {number}{final} · {_passed(sub)}",
                        f"#sub-{item.value}" if self.reviewer else "", item.kind)
        found = self.questions.get(item.value)
        if found is None:
            return Chip(item.token, "a question not asked here", "", item.kind, valid=False)
        return Chip(item.token, f"Question: {_quote(found[0].text)}",
                    f"#q-{item.value}" if self.reviewer else "", item.kind)

    def chips(self, stored: list[dict[str, Any]]) -> list[Chip]:
        """Chips of stored evidence (an item stored before validation existed is skipped)."""
        out = []
        for entry in stored or []:
            try:
                out.append(self.chip(evidence_parse_one(entry)))
            except SessionError:
                continue
        return out

    def posted_chips(self, tokens: list[str]) -> list[Chip]:
        """Chips of a refused form, every one kept: a bad one is shown as such."""
        out = []
        for token in tokens:
            try:
                out.append(self.chip(evidence_parse_one(token)))
            except SessionError:
                out.append(Chip(str(token), f"not evidence: {str(token)[:40]}", "", "",
                                valid=False))
        return out


def evidence_labels(*, session: InterviewSession, reviewer: bool) -> EvidenceLabels:
    return EvidenceLabels(session, reviewer=reviewer)
