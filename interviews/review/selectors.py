"""Reads of the review: the dashboard, a session's review page, the candidate's report and
practice history. What a candidate may read is built apart from what a reviewer reads, so a
reviewer-only field cannot slip into the report by accident."""

from __future__ import annotations

import difflib
import logging
import math
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from core import visibility
from core.verdicts import NOT_RUN
from grading import visible
from grading.copies import copied_code_view
from grading.judge import rules_line
from grading.models import Submission
from grading.selectors import submission_detail
from interviews import collab
from interviews.board import board_count, board_svg
from interviews.boardschema import board_text
from interviews.models import (
    BoardSnapshot,
    DocUpdate,
    InterviewSession,
    Scorecard,
    ScorecardAmendment,
    ScoreRelease,
    SessionEvent,
)
from interviews.review import access, charts
from interviews.review.evidence import (
    Chip,
    Evidence,
    EvidenceLabels,
    evidence_labels,
    format_clock,
    moment_at,
)
from interviews.review.services import criteria_of
from interviews.review.suggest import (
    RUN_KINDS,
    hidden_by_tag,
    integrity_note,
    ms_since_start,
    session_signals,
    suggestions,
)
from interviews.services import board_elements_at, has_board
from interviews.services.documents import doc_updates, session_code
from problems.package import criterion_title, tag_label

log = logging.getLogger(__name__)
RECOMMENDATION_VALUE = {"strong_no": 1, "no": 2, "yes": 3, "strong_yes": 4}
RECOMMENDATION_LABEL = {v: k for k, v in RECOMMENDATION_VALUE.items()}


RUN_LABELS = {"run": "Run (public tests)", "submit": "Submit", "final_submit": "Final submission"}
# A timeline mark's name for each kind of run (RUN_LABELS' words, shorter).
MARK_LABELS = {"run": "Run", "submit": "Submit", "final_submit": "Final submission"}


def graded(submission: Submission | None) -> bool:
    """Whether grading is over for `submission` (done, or given up as a platform fault)."""
    return submission is None or submission.status in (Submission.Status.DONE,
                                                        Submission.Status.FAILED)


def outcome_words(submission: Submission) -> str:
    """A run's outcome as a reader takes it: "WA 4/5", or "still grading" before its
    results exist (never "running 0/0")."""
    if not graded(submission):
        return "still grading"
    return f"{submission.verdict or 'IE'} {submission.passed}/{submission.total}"


def session_runs(session: InterviewSession, *, staff: bool) -> list[dict[str, Any]]:
    """Every run and submission of the session, with per-test results (hidden ones for staff)."""
    events = (session.events.filter(kind__in=RUN_KINDS).exclude(submission=None)
              .select_related("submission", "submission__problem").order_by("at", "id"))
    out = []
    previous: str | None = None
    for number, event in enumerate(events, start=1):
        assert event.submission is not None
        detail = submission_detail(submission=event.submission, staff=staff)
        detail["kind"] = event.kind
        detail["kind_label"] = RUN_LABELS.get(str(event.kind), str(event.kind))
        detail["number"] = number
        detail["at_ms"] = ms_since_start(session, event.at)
        detail["clock"] = format_clock(detail["at_ms"])
        code = event.submission.code
        detail["code"] = code
        detail["diff"] = code_diff(previous, code)
        detail["added"] = sum(1 for line in detail["diff"] if line["kind"] == "add")
        detail["removed"] = sum(1 for line in detail["diff"] if line["kind"] == "del")
        previous = code
        out.append(detail)
    return out


def code_diff(before: str | None, after: str) -> list[dict[str, str]]:
    """The lines of a unified diff from the previous run's code ("add", "del", "ctx", "hunk");
    empty for the first run (its code is shown whole)."""
    if before is None:
        return []
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=2)
    out = []
    for line in list(lines)[2:]:  # the ---/+++ header names no files here
        kind = ("hunk" if line.startswith("@@") else "add" if line.startswith("+")
                else "del" if line.startswith("-") else "ctx")
        out.append({"kind": kind, "text": line})
    return out


# frontend/static/frontend/pygments.css styles this class (the Markdown blocks' too).
CODE_CSS_CLASS = "codehilite"
_FORMATTER = HtmlFormatter(cssclass=CODE_CSS_CLASS, wrapcode=True)
_DIFF_FORMATTER = HtmlFormatter(nowrap=True)


def code_html(code: str) -> SafeString:
    """Python source highlighted on the server (Pygments: classes only, CSP-safe)."""
    return mark_safe(highlight(code, PythonLexer(), _FORMATTER))  # noqa: S308 - Pygments escapes


def diff_line_html(text: str) -> SafeString:
    """One diff line: its +/-/space marker, then the code highlighted (a hunk line plain)."""
    if text.startswith("@@") or not text:
        return SafeString(escape(text))
    body = highlight(text[1:], PythonLexer(), _DIFF_FORMATTER).rstrip("\n")
    return mark_safe(escape(text[0]) + body)  # noqa: S308 - Pygments escapes


def run_overview(run: dict[str, Any]) -> dict[str, Any]:
    """What a reader takes in at a glance of one run: its failing tests, the tests not run,
    and per tag (its problem group where it has none) passed of total; every test numbered
    from 1 for the full table behind one click."""
    tests = [t | {"number": t["index"] + 1,
                  "tag_label": tag_label(str(t.get("tag") or t.get("group") or "—"))}
             for t in run.get("tests") or []]
    by_tag: dict[str, list[int]] = {}
    for t in tests:
        key = str(t.get("tag") or t.get("group") or "untagged")
        counts = by_tag.setdefault(key, [0, 0])
        counts[0] += t.get("verdict") == Submission.Verdict.AC
        counts[1] += 1
    return {
        "tests": tests,
        "failing": [t for t in tests if t.get("verdict") not in (Submission.Verdict.AC, NOT_RUN)],
        "not_run": sum(1 for t in tests if t.get("verdict") == NOT_RUN),
        "by_tag": [{"tag": tag_label(tag), "passed": p, "total": n, "ok": p == n}
                   for tag, (p, n) in by_tag.items()],
    }


def rubric_rows(session: InterviewSession) -> list[dict[str, Any]]:
    rows = []
    for item in session.content.rubric or []:
        if isinstance(item, dict) and item.get("criterion"):
            levels = [str(x) for x in item.get("levels", [])][:4]
            rows.append({"criterion": str(item["criterion"]), "weight": item.get("weight", 1),
                         "strong": str(item.get("strong", "")), "levels": levels})
    return rows


def _chip_dict(chip: Chip) -> dict[str, Any]:
    return {"token": chip.token, "label": chip.label, "href": chip.href, "kind": chip.kind,
            "valid": chip.valid, "board": chip.board}


def scorecard_view(card: Scorecard, labels: EvidenceLabels | None = None) -> dict[str, Any]:
    labels = labels or evidence_labels(session=card.session, reviewer=True)
    scores = {}
    for s in card.scores.all():
        chips = labels.chips(s.evidence)
        scores[s.criterion] = {"level": s.level, "comment": s.comment, "evidence": s.evidence,
                               "title": criterion_title(s.criterion),
                               "chips": [_chip_dict(c) for c in chips],
                               "links": [(c.label, c.href) for c in chips]}
    return {"id": card.pk, "interviewer": card.interviewer.get_username(),
            "recommendation": card.recommendation,
            "recommendation_label": dict(Scorecard.Recommendation.choices).get(
                card.recommendation, "") if card.recommendation else "",
            "summary": card.summary, "amendments": card.amendments.count(),
            "submitted_at": card.submitted_at, "scores": scores}


def amendment_history(card: Scorecard) -> list[dict[str, Any]]:
    """A submitted scorecard's amendments, oldest first: who, when, each field's before and
    after in words (a level as its number, evidence as how many items)."""
    out = []
    for amendment in ScorecardAmendment.objects.filter(scorecard=card).select_related("author"):
        out.append({"author": amendment.author.get_username() if amendment.author else "—",
                    "at": amendment.at,
                    "changes": [_change_words(c) for c in amendment.changes or []]})
    return out


def _change_words(change: dict[str, Any]) -> dict[str, str]:
    field = str(change.get("field", ""))
    criterion, _, part = field.partition(".")
    labels = dict(Scorecard.Recommendation.choices)

    def words(value: Any) -> str:
        if value in (None, "", []):
            return "—"
        if part == "evidence":
            return f"{len(value)} item{'' if len(value) == 1 else 's'}"
        if field == "recommendation":
            return str(labels.get(value, value))
        text = str(value)
        return text if len(text) <= 80 else text[:79] + "…"

    name = ("Recommendation" if field == "recommendation" else "Summary" if field == "summary"
            else f"{criterion_title(criterion)} {part}")
    return {"field": name, "before": words(change.get("before")),
            "after": words(change.get("after"))}


def panel_recommendations(cards: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The submitted recommendations of the panel on the whole scale, each choice visible
    (who chose what), and whether the panel is split between a yes and a no: a split panel
    is never shown as one word."""
    chosen = [c for c in cards if c.get("submitted_at") and c.get("recommendation")]
    if not chosen:
        return None
    scale = [{"value": value, "label": label,
              "by": [c["interviewer"] for c in chosen if c["recommendation"] == value]}
             for value, label in Scorecard.Recommendation.choices if value]
    values = {RECOMMENDATION_VALUE[c["recommendation"]] for c in chosen
              if c["recommendation"] in RECOMMENDATION_VALUE}
    return {"scale": scale, "split": bool(values) and min(values) <= 2 < max(values)}


def cite_targets(labels: EvidenceLabels, runs: list[dict[str, Any]],
                 questions: list[dict[str, Any]],
                 marks: list[charts.Mark]) -> list[dict[str, Any]]:
    """Give each run and question the chip its cite button adds ("cite"); return the
    timeline's marks with theirs (a moment at the mark's time)."""
    for run in runs:
        run["cite"] = _chip_dict(labels.chip(Evidence("submission", run["id"])))
    for question in questions:
        question["cite"] = _chip_dict(labels.chip(Evidence("question", question["id"])))
    return [{"mark": m, "cite": _chip_dict(labels.chip(moment_at(m.t_ms)))}
            for m in marks]


def _side_by_side(session: InterviewSession, own: dict[str, Any] | None,
                  others: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The submitted scorecards as columns, criteria as rows: once the reader has submitted
    and at least one other has (the others are independent until then)."""
    if not own or not own.get("submitted_at") or not others:
        return None
    cards = [own, *others]
    labels = dict(Scorecard.Recommendation.choices)
    rows = [{"criterion": criterion_title(row["criterion"]),
             "cells": [card["scores"].get(row["criterion"], {}) for card in cards]}
            for row in rubric_rows(session)]
    return {"interviewers": [card["interviewer"] for card in cards], "rows": rows,
            "recommendations": [labels.get(card["recommendation"], "—") for card in cards],
            "summaries": [card["summary"] for card in cards]}


def review_context(session: InterviewSession, user: Any,
                   posted: dict[str, Any] | None = None,
                   field_errors: dict[str, str] | None = None) -> dict[str, Any]:
    """Everything the review page shows to a reviewer (`access.review_role` already checked).

    `posted` is a refused rubric form ({"scores", "recommendation", "summary"}): the page then
    shows every value as sent, every chip included, with `field_errors` beside their
    criterion, so an error never wipes the form."""
    signals = session_signals(session)
    criteria = criteria_of(session)
    suggested = suggestions(signals, criteria)
    labels = evidence_labels(session=session, reviewer=True)
    own = Scorecard.objects.filter(session=session, interviewer=user).first()
    own_view = scorecard_view(own, labels) if own else None
    if posted is not None:
        own_view = (own_view or {"submitted_at": None, "scores": {}}) | {
            "recommendation": posted["recommendation"], "summary": posted["summary"]}
    rubric = []
    for row in rubric_rows(session):
        mine = (own_view or {}).get("scores", {}).get(row["criterion"], {})
        if posted is not None:
            typed = posted["scores"].get(row["criterion"], {})
            level = str(typed.get("level", ""))
            mine = {"level": int(level) if level.isdigit() else None,
                    "comment": typed.get("comment", ""),
                    "chips": [_chip_dict(c) for c in
                              labels.posted_chips(list(typed.get("evidence") or []))]}
        hint = suggested.get(row["criterion"])
        rubric.append(row | {
            # Never the suggestion's: the form starts from what the interviewer chose alone.
            "level": mine.get("level"),
            "comment": mine.get("comment", ""),
            "chips": mine.get("chips", []),
            "error": (field_errors or {}).get(row["criterion"], ""),
            "title": criterion_title(row["criterion"]),
            "suggestion": hint,
            "level_choices": list(enumerate(row["levels"], start=1)),
        })
    others: list[dict[str, Any]] = []
    others_hidden = False
    cards = session.scorecards.exclude(interviewer=user).select_related("interviewer")
    if access.can_see_other_scores(session, user):
        others = [scorecard_view(c, labels) for c in cards.exclude(submitted_at=None)]
    else:
        others_hidden = cards.exists()
    questions = list(session.questions.order_by("asked_at", "id"))
    viewer = access.session_viewer(session, user)
    runs = session_runs(session, staff=visibility.may_see(visibility.HIDDEN_TEST_IO, viewer))
    submits = Submission.objects.filter(
        pk__in=[run["id"] for run in runs], mode=Submission.Mode.SUBMIT
    ).select_related("user")
    for submission in submits:
        copied = copied_code_view(submission=submission, user=user)
        for run in runs:
            if run["id"] == submission.pk:
                run["copied"] = copied
    for run in runs:
        run.update(run_overview(run))
        run["code_html"] = code_html(run["code"])
        for line in run["diff"]:
            line["html"] = diff_line_html(line["text"])
    question_rows = [{"id": q.pk, "text": q.text, "answer": q.answer,
                      "matched_key": q.matched_key,
                      "clock": format_clock(ms_since_start(session, q.asked_at))}
                     for q in questions]
    timeline = session_timeline(session)
    released = ScoreRelease.objects.filter(session=session).exists()
    board, board_notes = report_board(session)
    return {
        "design": has_board(session),
        "board": board,
        "board_notes": board_notes,
        "timeline_marks": cite_targets(labels, runs, question_rows, timeline["marks"]),
        "side_by_side": _side_by_side(session, own_view, others),
        "session": session,
        "role": access.review_role(session, user),
        "can_score": access.can_score(session, user),
        "runs": runs,
        "questions": question_rows,
        "review_notes": list(session.review_notes.select_related("author"))
        if visibility.may_see(visibility.REVIEW_NOTE, viewer) else [],
        "panel_notes": list(session.notes.select_related("author")),
        "chat": [{"clock": format_clock(ms_since_start(session, m.created_at)),
                  "author": m.author.get_username() if m.author else m.role, "role": m.role,
                  "text": m.text}
                 for m in session.chat_messages.select_related("author")],
        "signals": signals,
        "hidden_rows": [{"tag": tag, "label": tag_label(tag), "passed": p, "total": n}
                        for tag, (p, n) in signals.hidden_by_tag.items()],
        "first_pass_clock": format_clock(signals.first_pass_ms)
        if signals.first_pass_ms is not None else "",
        "integrity": integrity_note(signals),
        "key_questions": [{"question": k.question, "asked": k.asked,
                           "clock": format_clock(k.at_ms) if k.at_ms is not None else "",
                           "question_id": k.question_id} for k in signals.key_questions],
        "rubric": rubric,
        "own": own_view,
        "others": others,
        "others_hidden": others_hidden,
        "recommendations": [c for c in Scorecard.Recommendation.choices if c[0]],
        "released": released,
        "amending": bool(own_view and own_view.get("submitted_at")) and not released
        and access.can_score(session, user),
        "history": amendment_history(own) if own and own.submitted_at else [],
        "panel": panel_recommendations([own_view or {}, *others]),
        "timeline": timeline,
    }


def replay_cite(session: InterviewSession, user: Any, chosen: str = "") -> dict[str, Any] | None:
    """The replay's scoring bar, for a scorer whose scorecard is still a draft: the rubric's
    criteria (`chosen` first selected, when it is one) and where cites go. None for anyone
    else (the candidate replays the same page without it)."""
    if access.review_role(session, user) is None or not access.can_score(session, user):
        return None
    if Scorecard.objects.filter(session=session, interviewer=user,
                                submitted_at__isnull=False).exists():
        return None
    criteria = [{"criterion": c, "title": criterion_title(c)} for c in criteria_of(session)]
    if not criteria:
        return None
    names = [c["criterion"] for c in criteria]
    return {"criteria": criteria, "chosen": chosen if chosen in names else names[0]}


# ---------------------------------------------------------------- the candidate's report


def released_outcome(session: InterviewSession) -> dict[str, Any] | None:
    """The mean level per criterion over submitted scorecards, once released; else None."""
    if not ScoreRelease.objects.filter(session=session).exists():
        return None
    cards = list(session.scorecards.exclude(submitted_at=None).prefetch_related("scores"))
    if not cards:
        return None
    rows = []
    for row in rubric_rows(session):
        levels = [s.level for c in cards for s in c.scores.all()
                  if s.criterion == row["criterion"] and s.level]
        if not levels:
            continue
        mean = sum(levels) / len(levels)
        nearest = half_up(mean)
        anchored = row["levels"][nearest - 1] if len(row["levels"]) >= nearest else ""
        anchored = anchored.split(": ", 1)[1] if anchored[:2] == f"{nearest}:" else anchored
        rows.append({"criterion": row["criterion"], "level": round(mean, 1),
                     "title": criterion_title(row["criterion"]),
                     "description": anchored, "weight": rubric_weight(row["weight"])})
    recs = [RECOMMENDATION_VALUE[c.recommendation] for c in cards
            if c.recommendation in RECOMMENDATION_VALUE]
    overall = RECOMMENDATION_LABEL[half_up(sum(recs) / len(recs))] if recs else ""
    labels = dict(Scorecard.Recommendation.choices)
    total_weight = sum(r["weight"] for r in rows)
    weighted = (round(sum(r["level"] * r["weight"] for r in rows) / total_weight, 2)
                if total_weight else None)
    return {"criteria": rows, "recommendation": labels.get(overall, ""),
            "recommendation_key": overall, "reviewers": len(cards), "weighted": weighted}


def released_feedback(session: InterviewSession) -> list[dict[str, Any]]:
    """Once scores are released: each submitted scorecard's summary and per-criterion comments
    with the evidence as labels (what happened, never a link into the review page, never a
    private note), by interviewer in turn."""
    out = []
    labels = evidence_labels(session=session, reviewer=False)
    for number, card in enumerate(
        session.scorecards.exclude(submitted_at=None).prefetch_related("scores"), start=1
    ):
        comments = []
        for s in card.scores.all():
            chips = [c for c in labels.chips(s.evidence) if c.valid]
            cited = [c.label for c in chips]
            # A design round's cited board moments: the board as it was then (its picture's
            # URL for the page, its SVG for the PDF).
            boards = [{"label": c.label, "url": c.board,
                       "svg": board_moment_svg(session, evidence_ms(c.token))}
                      for c in chips if c.board]
            if s.comment.strip() or cited:
                comments.append({"criterion": criterion_title(s.criterion),
                                 "comment": s.comment, "evidence": cited, "boards": boards,
                                 # The page shows a board moment as its picture instead.
                                 "chips": [c.label for c in chips if not c.board]})
        if comments or card.summary.strip():
            out.append({"reviewer": f"Interviewer {number}", "summary": card.summary,
                        "comments": comments})
    return out


def evidence_ms(token: str) -> int:
    """The milliseconds of a moment's token ("moment:192000")."""
    value = token.partition(":")[2]
    return int(value) if value.isdigit() else 0


def board_moment_svg(session: InterviewSession, ms: int) -> str:
    """The board `ms` after the start, drawn (a cited board moment); "" when it cannot be."""
    try:
        start = session.started_at or session.created_at
        return board_svg(board_elements_at(session, until=start + timedelta(milliseconds=ms)))
    except Exception:  # a document that does not decode: "diagram unavailable"
        log.warning("the board of session %s at %s ms could not be drawn", session.pk, ms,
                    exc_info=True)
        return ""


def report_board(session: InterviewSession) -> tuple[dict[str, Any], str]:
    """A design round's final board ({"svg", "count", "available", "lines": the board read
    as text}) and notes, from the
    snapshot stored when it finished; a session finished before snapshots existed is drawn
    now (and nothing is stored: a read never writes). ({}, "") for a coding session."""
    if not has_board(session):
        return {}, ""
    snapshot = BoardSnapshot.objects.filter(session=session).first()
    if snapshot is not None:
        svg, elements, notes = snapshot.svg, snapshot.elements, snapshot.notes
    else:
        svg, elements, notes = "", [], ""
        try:
            updates = [data for _, data in doc_updates(session.pk)]
            elements = collab.board_from_updates(updates)
            svg = board_svg(elements)
            notes = collab.notes_from_updates(updates)
        except Exception:
            log.warning("the board of session %s could not be drawn", session.pk,
                        exc_info=True)
    return {"svg": svg, "count": board_count(elements), "available": bool(svg),
            "lines": board_text(elements)}, notes


def half_up(value: float) -> int:
    """Nearest whole number, halves up (Python's round() sends 2.5 to 2)."""
    return math.floor(value + 0.5)


def rubric_weight(raw: Any) -> float:
    """A criterion's weight from the rubric (a bad or missing one counts as 1)."""
    try:
        weight = float(raw)
    except (TypeError, ValueError):
        return 1.0
    return weight if weight > 0 else 1.0


def session_timeline(session: InterviewSession) -> dict[str, Any]:
    """Edits, runs and questions in ms since the start; the chart drawn from them."""
    start = session.started_at or session.created_at
    end = session.finished_at or session.deadline or timezone.now()
    duration = max(1, int((end - start).total_seconds() * 1000))
    edits = [ms_since_start(session, t) for t in DocUpdate.objects.filter(
        session=session, author__isnull=False).values_list("created_at", flat=True)]
    marks: list[charts.Mark] = []
    for event in (session.events.filter(kind__in=RUN_KINDS).exclude(submission=None)
                  .select_related("submission")):
        sub = event.submission
        assert sub is not None
        label = f"{MARK_LABELS.get(str(event.kind), 'Run')}: {outcome_words(sub)}"
        marks.append(charts.Mark(ms_since_start(session, event.at), "run", label,
                                 ok=sub.verdict == Submission.Verdict.AC,
                                 pending=not graded(sub)))
    for question in session.questions.all():
        marks.append(charts.Mark(ms_since_start(session, question.asked_at), "question",
                                 f"Question: {question.text}"))
    marks.sort(key=lambda m: m.t_ms)
    return {"duration_ms": duration, "edits": len(edits), "marks": marks,
            "svg": charts.timeline_svg(duration_ms=duration, edits_ms=edits, marks=marks)}


def report_data(session: InterviewSession,
                channel: visibility.Channel = visibility.Channel.REPORT) -> dict[str, Any]:
    """The candidate feedback report: safe for the candidate and for a share link.

    Hidden tests appear only as pass counts per tag; no interviewer note; rubric levels only
    once released, and the interviewers' comments, summary and evidence labels then too.
    A share link (`channel`) carries only the sections `core.visibility.SHARE_LINK_SECTIONS`
    names: the candidate's own work and its outcome, never the chat nor the feedback.
    """
    final = session.final_submission
    public_tests: list[dict[str, Any]] = []
    if final is not None:
        # Whoever reads it, the report is what the candidate may see (`grading.visible`).
        audience = visible.Audience.of(visibility.Viewer.CANDIDATE, channel)
        public_tests = [{key: test[key] for key in REPORT_TEST_KEYS} for test in
                        visible.graded_tests_view(final.results.order_by("index"),
                                                  audience=audience)]
    timeline = session_timeline(session)
    outcome = released_outcome(session)
    board, board_notes = report_board(session)
    data: dict[str, Any] = {
        "solo": session.kind == InterviewSession.Kind.SOLO,
        "design": has_board(session),
        # The report's sections its kind has (problems.kinds: "board", "runs", "code").
        "sections": session.content.kind_spec.report_sections,
        # A design round's final diagram (the picture's own URL is the view's) and notes pane.
        "board": board,
        "board_notes": board_notes,
        "strong_titled": [(criterion_title(row["criterion"]), row["strong"])
                          for row in rubric_rows(session) if row["strong"]],
        # The code as it was graded at the end (the final submission), else as last stored.
        "final_code": final.code if final is not None else session_code(session.pk),
        "released_feedback": released_feedback(session)
        if outcome and channel not in visibility.OUTSIDE_CHANNELS else [],
        "chat": [{"clock": format_clock(ms_since_start(session, m.created_at)),
                  "role": m.role, "role_label": ROLE_LABELS.get(m.role, m.role.capitalize()),
                  "text": m.text}
                 for m in session.chat_messages.order_by("created_at", "id")],
        "session": session,
        "problem": session.problem,
        "candidate": session.candidate.get_username() if session.candidate else "",
        "final": {"verdict": final.verdict, "passed": final.passed, "total": final.total,
                  "status": final.status, "rules_line": rules_line(final.by_rule or {}),
                  "graded": graded(final)}
        if final else None,
        # When the session began (the page shows it in the reader's zone, the PDF in the
        # zone the page sends, else UTC: both name the zone).
        "started_at": session.started_at or session.created_at,
        "public_tests": public_tests,
        "hidden_by_tag": hidden_by_tag(final.pk if final else None),
        "outcome": outcome,
        "timeline": timeline,
        "questions": [{"text": q.text, "answer": q.answer,
                       "clock": format_clock(ms_since_start(session, q.asked_at))}
                      for q in session.questions.order_by("asked_at", "id")],
        "strong": [(row["criterion"], row["strong"]) for row in rubric_rows(session)
                   if row["strong"]],
        # A live interview's follow-ups are the interviewer's private material (the problem
        # may be used again with the next candidate); practising alone, they are the
        # report's reading list.
        "follow_ups": [str(f) for f in session.content.follow_ups or []]
        if session.kind == InterviewSession.Kind.SOLO else [],
        "notes": report_notes(session),
        "hints": report_hints(session),
    }
    # What leaves on `channel` is the policy's (a share link: `SHARE_LINK_SECTIONS`); a section
    # left off reads as empty, so the templates and the PDF need no second rule.
    for section in REPORT_SECTIONS:
        if not visibility.report_section_visible(section, channel):
            data[section] = type(data[section])() if isinstance(
                data[section], (list, dict, str)) else None
    # Opened while the final submission still grades: the page says so and asks again
    # (interviews/static/interviews/report.js) until its results are in.
    data["grading"] = bool(data["final"]) and not data["final"]["graded"]
    # The hidden tests' counts as the reader reads them (a tag in words), from what is left.
    data["hidden_rows"] = [{"tag": tag, "label": tag_label(tag), "passed": p, "total": n}
                           for tag, (p, n) in data["hidden_by_tag"].items()]
    return data


# How a report names who wrote a chat line, and a kind of note (the candidate's panel).
ROLE_LABELS = {"candidate": "Candidate", "interviewer": "Interviewer"}
NOTE_KIND_LABELS = {"tradeoff": "Trade-off", "note": "Note"}
# What the report shows of each test it may show (the view is `grading.visible`'s).
REPORT_TEST_KEYS = ("name", "verdict", "time_ms", "cpu_ms", "tag")
# The report's sections (keys of `report_data`) that carry content; the rest are its frame.
REPORT_SECTIONS = ("final_code", "released_feedback", "chat", "candidate", "final",
                   "public_tests", "hidden_by_tag", "outcome", "timeline", "questions",
                   "strong", "strong_titled", "follow_ups", "notes", "hints",
                   "board", "board_notes")
# The sections only a design round fills (empty in a coding session's report).
DESIGN_SECTIONS = ("board", "board_notes")


def report_notes(session: InterviewSession) -> list[dict[str, Any]]:
    """The candidate's own entries of the session's tradeoffs/notes panel, in order. Only
    theirs: an interviewer's shared note is the interviewer's to report, and a private one
    (ReviewNote) is another table that no report reads."""
    if session.candidate_id is None:
        return []
    return [{"clock": format_clock(ms_since_start(session, note.created_at)),
             "kind": note.kind, "kind_label": NOTE_KIND_LABELS.get(note.kind, note.kind),
             "text": note.text}
            for note in session.notes.filter(author_id=session.candidate_id)
            .order_by("created_at", "id")]


def report_hints(session: InterviewSession) -> list[dict[str, Any]]:
    """The hints open to the candidate, each with when it was opened and by whom (the
    candidate, or released by the interviewer)."""
    hints = list(session.content.hints or [])
    events = session.events.filter(kind=SessionEvent.Kind.HINT).order_by("at", "id")
    rows = []
    for position, event in enumerate(events[: len(hints)]):
        data = event.data or {}
        number = int(data.get("number") or position + 1)
        if not 0 < number <= len(hints):
            continue
        rows.append({"number": number, "text": str(hints[number - 1]),
                     "clock": format_clock(ms_since_start(session, event.at)),
                     "released": data.get("by") == "interviewer"})
    return rows


def report_public(data: dict[str, Any]) -> dict[str, Any]:
    """The report as JSON (for the API)."""
    session: InterviewSession = data["session"]
    return {
        "session": session.pk,
        "problem": data["problem"].slug,
        "status": session.status,
        "candidate": data["candidate"],
        "final": data["final"],
        "public_tests": data["public_tests"],
        "hidden_by_tag": {k: list(v) for k, v in data["hidden_by_tag"].items()},
        "outcome": data["outcome"],
        "timeline": [{"t_ms": m.t_ms, "kind": m.kind, "label": m.label, "ok": m.ok}
                     for m in data["timeline"]["marks"]],
        "edits": data["timeline"]["edits"],
        "questions": data["questions"],
        "strong": [{"criterion": c, "strong": s} for c, s in data["strong"]],
        "follow_ups": data["follow_ups"],
        "final_code": data["final_code"],
        "released_feedback": data["released_feedback"],
        "chat": data["chat"],
        "notes": data["notes"],
        "hints": data["hints"],
        "design": data["design"],
        "board": {"count": data["board"].get("count", 0),
                  "available": data["board"].get("available", False)}
        if data["board"] else None,
        "board_notes": data["board_notes"],
    }


def practice_history(user: Any) -> dict[str, Any]:
    """Every past session of a candidate with its outcome, and released levels over time."""
    sessions = list(InterviewSession.objects.filter(candidate=user)
                    .select_related("problem", "final_submission").order_by("-created_at"))
    rows = []
    points: dict[str, list[tuple[datetime, float]]] = {}
    for session in sessions:
        outcome = released_outcome(session)
        when = session.started_at or session.created_at
        if outcome:
            for row in outcome["criteria"]:
                points.setdefault(row["criterion"], []).append((when, float(row["level"])))
        final = session.final_submission
        rows.append({"session": session, "when": when,
                     "verdict": final.verdict if final else "",
                     "passed": final.passed if final else 0,
                     "total": final.total if final else 0,
                     "recommendation": outcome["recommendation"] if outcome else "",
                     "recommendation_label": outcome["recommendation"] if outcome else "",
                     "recommendation_value": RECOMMENDATION_VALUE.get(
                         str(outcome["recommendation_key"]), 0) if outcome else 0,
                     "finished": session.status == InterviewSession.Status.FINISHED})
    return {"rows": rows, "chart": charts.scores_svg(points=points), "scored": bool(points)}

