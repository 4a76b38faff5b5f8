"""Reports speak one language (issue 36.8): every report surface (the HTML report for the
candidate and for a reviewer, the PDF, the share link's page and PDF) is read as a person
reads it, and no identifier in snake_case shows; plurals are right, times name their zone,
one criterion has one label, the PDF carries the answers to the candidate's questions, and
a report opened while the final submission grades says so and refreshes itself.

Code is the candidate's own text: code blocks (`<pre>`/`<code>` on the page, the PDF's
monospaced lines) are left out of the scan; everything else a person can read is in it
(text, `title`, `alt`, `aria-label`, an SVG's `<title>`).
"""

from __future__ import annotations

import re
import zlib
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.test import Client

from grading.models import Submission
from interviews.models import ChatMessage, InterviewSession, Note, Question, SessionEvent
from interviews.review import services
from tests.factories import client_for
from tests.interviews.test_design_report import design_world
from tests.interviews.test_review import RUBRIC, World, build_world

pytestmark = pytest.mark.django_db(transaction=True)

SNAKE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9]\b")
# Code written by the candidate that the scan must not see (it is in a code block).
CODE = "def solve(x):\n    big_value = x + 1\n    return big_value\n"
TRADEOFFS = {"criterion": "tradeoffs", "weight": 1, "strong": "Names the costs.",
             "levels": ["1: none", "2: some", "3: most", "4: all"]}


class _VisibleText(HTMLParser):
    """The text a person reads on a page: what is between tags, and the attributes read out
    or shown (title, alt, aria-label, placeholder); never a script, a style or code."""

    SHOWN_ATTRS = ("title", "alt", "aria-label", "placeholder")
    SKIPPED = ("script", "style", "pre", "code", "head")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIPPED:
            self.skipping.append(tag)
        if not self.skipping:
            self.parts += [value or "" for name, value in attrs if name in self.SHOWN_ATTRS]

    def handle_endtag(self, tag: str) -> None:
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def page_text(html: str) -> str:
    parser = _VisibleText()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


_FONT_REF = re.compile(rb"/(F\d+) (\d+) 0 R")
_SHOW = re.compile(rb"/(F\d+) [\d.]+ Tf|\(((?:\\.|[^\\)])*)\) ?Tj")


def pdf_visible_text(body: bytes) -> str:
    """The text an fpdf2 PDF draws, in order, except what is drawn in Courier (code)."""
    objects = {m.group(1): m.group(2) for m in re.finditer(
        rb"(\d+) 0 obj\s*(.*?)endobj", body, re.DOTALL)}
    courier = {name.decode() for name, number in _FONT_REF.findall(body)
               if b"/BaseFont /Courier" in objects.get(number, b"")}
    out: list[str] = []
    for start in re.finditer(rb"stream\r?\n", body):
        try:
            content = zlib.decompressobj().decompress(body[start.end():])
        except zlib.error:
            continue
        font = ""
        for match in _SHOW.finditer(content):
            if match.group(1):
                font = match.group(1).decode()
            elif font not in courier:
                raw = match.group(2).decode("latin-1")
                out.append(re.sub(r"\\(.)", r"\1", raw))
    return "\n".join(out)


def snake_case_in(text: str) -> list[str]:
    """The snake_case identifiers of `text`; a URL (a share link's random token) is no word."""
    return sorted(set(SNAKE.findall(re.sub(r"https?://\S+", " ", text))))


def rich_world() -> World:
    """build_world's finished live session with every report section filled: runs, hidden
    tests per tag (edge_cases), an answered question, the candidate's notes, hints, chat,
    released scores with comments and evidence on criteria such as edge_cases and
    tradeoffs, and code with snake_case names of its own."""
    world = build_world()
    session = world.session
    problem = session.problem
    problem.rubric = [*RUBRIC, TRADEOFFS]
    problem.hints = ["Keep a running total."]
    problem.save()
    Submission.objects.filter(pk=world.final.pk).update(code=CODE)
    start = session.started_at
    assert start is not None
    Note.objects.create(session=session, author=world.owner, kind="tradeoff",
                        text="A dict keeps lookups cheap.", created_at=start + timedelta(minutes=3))
    SessionEvent.objects.create(session=session, kind="hint", actor=world.assigned,
                                data={"number": 1, "by": "interviewer"},
                                at=start + timedelta(minutes=4))
    ChatMessage.objects.create(session=session, author=world.owner, role="candidate",
                               text="Ready.", created_at=start + timedelta(minutes=1))
    Question.objects.create(session=session, asked_by=world.owner, text="Is the input sorted?",
                            answer="No, never.", asked_at=start + timedelta(minutes=6),
                            answer_source="interviewer")
    scores = {str(row["criterion"]): {"level": 3, "comment": "Clear and careful.",
                                      "evidence": ["moment:120000",
                                                   f"submission:{world.passing.pk}",
                                                   f"question:{world.question.pk}"]}
              for row in problem.rubric}
    services.scorecard_save(session=session, user=world.assigned, recommendation="strong_yes",
                            summary="Solid work.", scores=scores, submit=True)
    services.scores_release(session=session, user=world.assigned)
    return world


def surfaces(session: InterviewSession, candidate: Client, reviewer: Client) -> dict[str, str]:
    """Every report surface of `session`, as the text a person reads."""
    share = services.share_create(session=session, user=session.candidate)
    anonymous = Client()
    base = f"/sessions/{session.pk}"
    pages = {"candidate report": candidate.get(f"{base}/report/"),
             "reviewer report": reviewer.get(f"{base}/report/"),
             "share link": anonymous.get(f"/sessions/shared/{share.token}/")}
    pdfs = {"candidate PDF": candidate.get(f"{base}/report.pdf"),
            "share link PDF": anonymous.get(f"/sessions/shared/{share.token}/pdf")}
    for name, response in (pages | pdfs).items():
        assert response.status_code == 200, name
    return ({name: page_text(r.content.decode()) for name, r in pages.items()}
            | {name: pdf_visible_text(r.content) for name, r in pdfs.items()})


def test_no_report_surface_shows_a_snake_case_identifier() -> None:
    world = rich_world()
    texts = surfaces(world.session, client_for(world.owner), client_for(world.assigned))
    # The scan reads what it should: the sections are there, the code is not scanned.
    for name, text in texts.items():
        assert "Edge cases" in text and "Trade-offs" in text, name
        assert "big_value" not in text, name
    found = {name: snake_case_in(text) for name, text in texts.items()}
    assert found == {name: [] for name in texts}


def test_no_design_report_surface_shows_a_snake_case_identifier() -> None:
    world = design_world()
    texts = surfaces(world.session, client_for(world.candidate), client_for(world.interviewer))
    found = {name: snake_case_in(text) for name, text in texts.items()}
    assert found == {name: [] for name in texts}
