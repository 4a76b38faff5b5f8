"""Reports speak one language (issue 36.8): every report surface (the HTML report for the
candidate and for a reviewer, the PDF, the share link's page and PDF, and beside them the
review page and the candidate's history) is read as a person reads it, and no identifier in
snake_case shows; plurals are right, times name their zone, one criterion has one label, the
PDF carries the answers to the candidate's questions, and a report opened while the final
submission grades says so (tests/frontend/test_report_refresh.py: and refreshes itself).
No e-mail carries a report (the only e-mails are the invitations), so there is none to scan.

Code is the candidate's own text: code blocks (`<pre>`/`<code>` on the page, the PDF's
monospaced lines) are left out of the scan; everything else a person can read is in it
(text, `title`, `alt`, `aria-label`, an SVG's `<title>`).
"""

from __future__ import annotations

import re
import zlib
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser

import pytest
from django.test import Client

from grading.models import Submission
from interviews.models import ChatMessage, InterviewSession, Note, Question, SessionEvent
from interviews.review import charts, services
from problems.package import criterion_title
from tests.factories import client_for, user_with_role
from tests.interviews.worlds import RUBRIC, World, build_world, design_world, solo_world

pytestmark = pytest.mark.django_db(transaction=True)

SNAKE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9]\b")
# Code written by the candidate that the scan must not see (it is in a code block).
CODE = "def solve(x):\n    big_value = x + 1\n    return big_value\n"
TRADEOFFS = {
    "criterion": "tradeoffs",
    "weight": 1,
    "strong": "Names the costs.",
    "levels": ["1: none", "2: some", "3: most", "4: all"],
}


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
    objects = {
        m.group(1): m.group(2) for m in re.finditer(rb"(\d+) 0 obj\s*(.*?)endobj", body, re.DOTALL)
    }
    courier = {
        name.decode()
        for name, number in _FONT_REF.findall(body)
        if b"/BaseFont /Courier" in objects.get(number, b"")
    }
    out: list[str] = []
    for start in re.finditer(rb"stream\r?\n", body):
        try:
            content = zlib.decompressobj().decompress(body[start.end() :])
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
    Note.objects.create(
        session=session,
        author=world.owner,
        kind="tradeoff",
        text="A dict keeps lookups cheap.",
        created_at=start + timedelta(minutes=3),
    )
    SessionEvent.objects.create(
        session=session,
        kind="hint",
        actor=world.assigned,
        data={"number": 1, "by": "interviewer"},
        at=start + timedelta(minutes=4),
    )
    ChatMessage.objects.create(
        session=session,
        author=world.owner,
        role="candidate",
        text="Ready.",
        created_at=start + timedelta(minutes=1),
    )
    Question.objects.create(
        session=session,
        asked_by=world.owner,
        text="Is the input sorted?",
        answer="No, never.",
        asked_at=start + timedelta(minutes=6),
        answer_source="interviewer",
    )
    scores = {
        str(row["criterion"]): {
            "level": 3,
            "comment": "Clear and careful.",
            "evidence": [
                "moment:120000",
                f"submission:{world.passing.pk}",
                f"question:{world.question.pk}",
            ],
        }
        for row in problem.rubric
    }
    services.scorecard_save(
        session=session,
        user=world.assigned,
        recommendation="strong_yes",
        summary="Solid work.",
        scores=scores,
        submit=True,
    )
    services.scores_release(session=session, user=world.assigned)
    return world


def surfaces(session: InterviewSession, candidate: Client, reviewer: Client) -> dict[str, str]:
    """Every report surface of `session`, as the text a person reads."""
    share = services.share_create(session=session, user=session.candidate)
    anonymous = Client()
    base = f"/sessions/{session.pk}"
    pages = {
        "candidate report": candidate.get(f"{base}/report/"),
        "reviewer report": reviewer.get(f"{base}/report/"),
        "share link": anonymous.get(f"/sessions/shared/{share.token}/"),
        # Where the same facts are read beside the report: the reviewer's page, the
        # candidate's history (its chart's legend).
        "review page": reviewer.get(f"{base}/review/"),
        "history": candidate.get("/sessions/history/"),
    }
    pdfs = {
        "candidate PDF": candidate.get(f"{base}/report.pdf"),
        "share link PDF": anonymous.get(f"/sessions/shared/{share.token}/pdf"),
    }
    for name, response in (pages | pdfs).items():
        assert response.status_code == 200, name
    return {name: page_text(r.content.decode()) for name, r in pages.items()} | {
        name: pdf_visible_text(r.content) for name, r in pdfs.items()
    }


def test_no_report_surface_shows_a_snake_case_identifier() -> None:
    world = rich_world()
    texts = surfaces(world.session, client_for(world.owner), client_for(world.assigned))
    # The scan reads what it should: the sections are there, the code is not scanned.
    for name, text in texts.items():
        if name == "review page":  # the runs' code is shown there, in code blocks
            continue
        assert "Edge cases" in text and "Trade-offs" in text, name
        assert "big_value" not in text, name
    found = {name: snake_case_in(text) for name, text in texts.items()}
    assert found == {name: [] for name in texts}


def test_no_design_report_surface_shows_a_snake_case_identifier() -> None:
    world = design_world()
    texts = surfaces(world.session, client_for(world.candidate), client_for(world.interviewer))
    found = {name: snake_case_in(text) for name, text in texts.items()}
    assert found == {name: [] for name in texts}


def test_one_criterion_has_one_label_on_every_surface() -> None:
    world = rich_world()
    texts = surfaces(world.session, client_for(world.owner), client_for(world.assigned))
    for name, text in texts.items():
        for row in world.session.problem.rubric:
            assert criterion_title(str(row["criterion"])) in text, (name, row["criterion"])
        assert "Tradeoffs" not in text and "tradeoffs" not in text, name


def test_plurals_are_right() -> None:
    world = rich_world()
    texts = surfaces(world.session, client_for(world.owner), client_for(world.assigned))
    assert "(1 reviewer)" in texts["candidate report"] and "(1 reviewer)" in texts["candidate PDF"]
    assert "1 edit " in texts["candidate report"] and "1 edits" not in texts["candidate report"]
    for name, text in texts.items():
        assert "(s)" not in text, name
    second = user_with_role("second", "interviewer")
    services.reviewer_assign(session=world.session, user=world.admin, username="second")
    services.scorecard_save(
        session=world.session,
        user=second,
        recommendation="yes",
        summary="",
        submit=True,
        scores={
            str(row["criterion"]): {"level": 2, "comment": ""}
            for row in world.session.problem.rubric
        },
    )
    page = page_text(
        client_for(world.owner).get(f"/sessions/{world.session.pk}/report/").content.decode()
    )
    pdf = pdf_visible_text(
        client_for(world.owner).get(f"/sessions/{world.session.pk}/report.pdf").content
    )
    assert "(2 reviewers)" in page and "(2 reviewers)" in pdf


def test_a_design_pdf_counts_the_boards_elements_in_words() -> None:
    design = design_world()
    pdf = pdf_visible_text(
        client_for(design.candidate).get(f"/sessions/{design.session.pk}/report.pdf").content
    )
    assert "2 elements on the board." in pdf


def test_the_pdf_carries_the_answers_to_the_candidates_questions() -> None:
    world = rich_world()
    for path in (f"/sessions/{world.session.pk}/report.pdf",):
        text = pdf_visible_text(client_for(world.owner).get(path).content)
        questions = text[text.index("Clarifying questions") : text.index("Timeline")]
        assert "Q: Can x be negative?" in questions and "A: Yes." in questions
        assert "Q: Is the input sorted?" in questions and "A: No, never." in questions


def test_times_are_in_the_viewers_zone_and_name_it() -> None:
    world = build_world()
    start = datetime(2026, 12, 5, 22, 35, tzinfo=UTC)
    InterviewSession.objects.filter(pk=world.session.pk).update(started_at=start)
    client = client_for(world.owner)
    base = f"/sessions/{world.session.pk}"
    html = client.get(f"{base}/report/").content.decode()
    # The page: the moment for the script to show in the reader's zone (localtime.js), and
    # UTC, named, for a page read without scripts; its PDF link asks for the reader's zone.
    assert (
        '<time class="local-time" id="report-started" datetime="2026-12-05T22:35:00+00:00">'
        "5 Dec 2026, 22:35 UTC</time>"
    ) in html
    assert "interviews/localtime.js" in html and "data-viewer-zone-link" in html

    def started(query: str) -> str:
        text = pdf_visible_text(client.get(f"{base}/report.pdf{query}").content)
        return next(line for line in text.splitlines() if line.startswith("Started "))

    assert started("") == "Started 5 Dec 2026, 22:35 UTC"
    assert started("?tz=America/New_York") == "Started 5 Dec 2026, 17:35 EST (America/New_York)"
    assert started("?tz=Asia/Kolkata") == "Started 6 Dec 2026, 04:05 IST (Asia/Kolkata)"
    assert started("?tz=Not/AZone") == "Started 5 Dec 2026, 22:35 UTC"
    assert started("?tz=../../etc/passwd") == "Started 5 Dec 2026, 22:35 UTC"


def test_a_report_opened_while_grading_says_so_and_asks_again() -> None:
    world = build_world()
    Submission.objects.filter(pk=world.final.pk).update(
        status="running", verdict="", passed=0, total=0
    )
    client = client_for(world.owner)
    base = f"/sessions/{world.session.pk}"
    html = client.get(f"{base}/report/").content.decode()
    text = page_text(html)
    assert 'id="report" data-grading="true"' in html and "interviews/report.js" in html
    assert "grading…" in text and "this page checks every few seconds" in text
    assert "running" not in text and "0/0" not in text and "still grading" in text
    # On the timeline the final run is neither passed nor failed yet: grey, "still grading".
    assert (
        f'fill="{charts.EDIT_COLOR}"><title>25:00 Final submission: still grading</title>' in html
    )
    pdf = pdf_visible_text(client.get(f"{base}/report.pdf").content)
    assert "Final submission: still being graded." in pdf
    assert "running" not in pdf and "0/0" not in pdf
    Submission.objects.filter(pk=world.final.pk).update(
        status="done", verdict="WA", passed=4, total=5
    )
    html = client.get(f"{base}/report/").content.decode()
    assert "data-grading" not in html and "interviews/report.js" not in html
    assert "4/5 tests passed" in page_text(html)


def test_no_solo_report_surface_shows_a_snake_case_identifier() -> None:
    world, solo = solo_world()
    texts = surfaces(solo, client_for(world.owner), client_for(world.admin))
    found = {name: snake_case_in(text) for name, text in texts.items()}
    assert found == {name: [] for name in texts}
    assert "Practice session" in texts["candidate PDF"] and "Trade-off" in texts["candidate PDF"]
