"""The feedback report as a PDF, written with fpdf2 (pure Python; no browser needed).

fpdf2's core fonts cover Latin-1 only: other characters are transliterated where common
(dashes, quotes, arrows) and replaced by "?" otherwise, rather than failing the export.
"""

from __future__ import annotations

import io
import logging
import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from fpdf import FPDF

log = logging.getLogger(__name__)

_TRANSLIT = str.maketrans({"\u2014": "-", "\u2013": "-", "\u2018": "'", "\u2019": "'",
                           "\u201c": '"', "\u201d": '"', "\u2192": "->", "\u2026": "...",
                           "\u2264": "<=", "\u2265": ">=", "\u00a0": " "})


def latin(text: Any) -> str:
    """Text the core fonts can draw."""
    return str(text).translate(_TRANSLIT).encode("latin-1", "replace").decode("latin-1")


def counted(count: int, word: str) -> str:
    """`count` and `word`, plural when it is not one ("1 reviewer", "2 reviewers")."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def moment_in_zone(when: datetime, zone: str) -> str:
    """A moment in the reader's zone, the zone named ("5 Dec 2026, 17:35 EST
    (America/New_York)"; "5 Dec 2026, 22:35 UTC"). `zone` is a name the server knows."""
    local = when.astimezone(ZoneInfo(zone))
    text = f"{local.day} {local:%b %Y, %H:%M} {local.tzname()}"
    return text if zone == "UTC" or local.tzname() == zone else f"{text} ({zone})"


_VIEW_BOX = re.compile(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"')


def board_image(pdf: FPDF, svg: str, *, width: float, max_height: float) -> bool:
    """Draw a board's SVG (interviews/board.py's subset, which fpdf2 reads) at most `width`
    wide and `max_height` tall; whether it was drawn."""
    found = _VIEW_BOX.search(svg or "")
    if not found:
        return False
    view_w, view_h = float(found.group(1)), float(found.group(2))
    if view_w <= 0 or view_h <= 0:
        return False
    w = min(width, max_height * view_w / view_h)
    if pdf.get_y() + w * view_h / view_w > pdf.h - pdf.b_margin:
        pdf.add_page()
    try:
        pdf.image(io.BytesIO(svg.encode("utf-8")), w=w)
    except Exception:  # a picture that will not embed: the report says so, it still exports
        log.warning("a board was not embedded in the PDF", exc_info=True)
        return False
    return True


def _design(pdf: FPDF, data: dict[str, Any], width: float, line: Any, heading: Any) -> None:
    """A design round's final diagram and the notes written beside it."""
    board = data.get("board") or {}
    if not board:  # a share link without the section
        return
    heading("Final diagram")
    if not (board.get("available") and board_image(pdf, board.get("svg", ""), width=width,
                                                   max_height=170)):
        line("Diagram unavailable.")
    else:
        line(f"{counted(board.get('count', 0), 'element')} on the board.")
    if data.get("board_notes"):
        heading("Design notes")
        pdf.set_font("Courier", "", 8)
        for note_line in str(data["board_notes"]).splitlines():
            pdf.multi_cell(width, 3.6, latin(note_line.expandtabs(4)) or " ",
                           new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 10)


def report_pdf(data: dict[str, Any], zone: str = "UTC") -> bytes:
    """The report (as built by `selectors.report_data`) as PDF bytes; times in `zone` (the
    reader's, as their page sent it; a name the server knows), which the PDF names."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin

    def heading(text: str) -> None:
        pdf.ln(3)
        pdf.set_font("Helvetica", "B", 13)
        pdf.multi_cell(width, 7, latin(text), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 10)

    def line(text: str) -> None:
        pdf.multi_cell(width, 5, latin(text), new_x="LMARGIN", new_y="NEXT")

    session = data["session"]
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(width, 9, latin(f"Feedback report: {data['problem'].title}"),
                   new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    kind = "Solo practice" if data.get("solo") else "Live interview"
    who = f", candidate {data['candidate']}" if data["candidate"] else ""
    line(f"{kind}, session #{session.pk}{who}")
    line(f"Started {moment_in_zone(data['started_at'], zone)}")
    final = data["final"]
    sections = tuple(data.get("sections", ()))  # its kind's (problems.kinds)
    runs = "runs" in sections
    if "board" in sections:
        _design(pdf, data, width, line, heading)
    if runs:
        heading("Tests")
    if final and runs and not final["graded"]:
        line("Final submission: still being graded. Download the report again in a moment "
             "for its results.")
    elif final and runs:
        line(f"Final submission: {final['verdict'] or 'IE'}, "
             f"{final['passed']}/{final['total']} tests passed")
        if final.get("rules_line"):
            line(f"  {final['rules_line']}")
    elif runs:
        line("No final submission.")
    graded = not data.get("grading")
    for test in data["public_tests"] if graded else []:
        if not test["verdict"]:
            line(f"  -    {test['name']} (not run: stopped after a time limit)")
            continue
        line(f"  {test['verdict']:<4} {test['name']} "
             f"(CPU {test['cpu_ms']:.0f} ms, wall {test['time_ms']:.0f} ms)")
    for row in data["hidden_rows"] if graded else []:
        line(f"  hidden tests, {row['label']}: {row['passed']}/{row['total']} passed")
    outcome = data["outcome"]
    if data.get("solo"):
        heading("Practice session")
        line("You practised on your own: compare with what a strong answer shows below.")
    else:
        heading("Rubric outcome")
        if outcome:
            line(f"Overall recommendation: {outcome['recommendation']} "
                 f"({counted(outcome['reviewers'], 'reviewer')})")
            for row in outcome["criteria"]:
                line(f"  {row['title']}: {row['level']} / 4 - {row['description']}")
            for card in data.get("released_feedback", []):
                pdf.set_font("Helvetica", "B", 10)
                line(card["reviewer"])
                pdf.set_font("Helvetica", "", 10)
                if card["summary"]:
                    line(card["summary"])
                for comment in card["comments"]:
                    line(f"  {comment['criterion']}: {comment['comment']}")
                    for label in comment.get("evidence", []):
                        line(f"    - {label}")
                    for moment in comment.get("boards", []):
                        if not board_image(pdf, moment.get("svg", ""), width=width / 2,
                                           max_height=60):
                            line(f"    ({moment['label']}: diagram unavailable)")
        else:
            line("Not released yet.")
    if "code" in sections:
        heading("Final code")
        pdf.set_font("Courier", "", 8)
        for code_line in str(data.get("final_code", "")).splitlines() or ["(empty)"]:
            pdf.multi_cell(width, 3.6, latin(code_line.expandtabs(4)) or " ",
                           new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 10)
    heading("Clarifying questions")
    for question in data["questions"]:
        line(f"  {question['clock']}  Q: {question['text']}")
        line(f"         A: {question['answer'] or '(no answer)'}")
    if not data["questions"]:
        line("No questions asked.")
    heading("Timeline")
    # fpdf2 ignores (and warns about) <title> tooltips: drop them before embedding.
    svg = re.sub(r"<title>.*?</title>", "", str(data["timeline"]["svg"]), flags=re.DOTALL)
    try:
        pdf.image(io.BytesIO(svg.encode("utf-8")), w=width)
    except Exception:  # fpdf2's SVG support is partial: the list below carries the same facts
        log.warning("timeline chart not embedded in the PDF", exc_info=True)
    for mark in data["timeline"]["marks"]:
        seconds = mark.t_ms // 1000
        line(f"  {seconds // 60:02d}:{seconds % 60:02d}  {mark.label}")
    if data.get("notes"):
        heading("Your notes")
        for note in data["notes"]:
            line(f"  {note['clock']}  [{note['kind_label']}] {note['text']}")
    if data.get("hints"):
        heading("Hints opened")
        for hint in data["hints"]:
            how = "released by the interviewer" if hint["released"] else "opened"
            line(f"  {hint['clock']}  Hint {hint['number']} ({how}): {hint['text']}")
    if data.get("chat"):
        heading("Chat")
        for message in data["chat"]:
            line(f"  {message['clock']}  {message['role_label']}: {message['text']}")
    heading("What a strong answer shows")
    for title, strong in data["strong_titled"]:
        line(f"  {title}: {strong}")
    if data["follow_ups"]:
        heading("Follow-up questions")
        for question in data["follow_ups"]:
            line(f"  - {question}")
    return bytes(pdf.output())
