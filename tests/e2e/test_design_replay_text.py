"""End to end: a design round's replay reads as text at every moment (issue 40.3).

A canvas cannot be read, so the replay lists the board's elements with their labels (arrows
with the shapes they join) and shows the notes, as the live page and the report do, and the
list follows the replay's position. The board is the shared vectors of
tests/fixtures/board_text.json (given the geometry a stored element needs), drawn in two
updates a few minutes apart; the list at each moment is what `interviews.boardschema.
board_text` says of the elements drawn by then (the same sentences as the live page's).

Screenshots: var/screenshots/design-replay/replay-text-{1440,390}.png.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from interviews.boardschema import board_text
from tests.e2e.conftest import Platform, people_at
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SHOTS = SCREENSHOTS / "design-replay"
SYNC_MS = 30_000
VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "board_text.json").read_text()
)
NOTES = "Peak: 1k QPS x 2 KB = 2 MB/s\nOne GPU pool, 8 cards"


def stored(element: dict[str, Any], n: int) -> dict[str, Any]:
    """A vector's element with what a stored one has besides (the text is the vector's)."""
    shape = {"version": 1, "index": f"a{n}", "x": 200 * n, "y": 0, "width": 160, "height": 70}
    if element["type"] == "arrow":
        shape["points"] = [[0, 0], [80, 0]]
    if element["type"] == "text":
        shape["fontSize"] = 18
    return {**shape, **element}


ELEMENTS = [stored(e, n) for n, e in enumerate(VECTORS["elements"])]
FIRST = ELEMENTS[:4]  # the two labelled shapes; the arrows, text, diamond and removal later
SECOND = ELEMENTS[4:]

SEED = """
from datetime import timedelta
from django.contrib.auth.models import User
from django.utils import timezone
from interviews import services
from interviews.models import DocUpdate, InterviewSession
from problems.models import ProblemVersion
from tests.factories import board_update, design_problem

problem = design_problem("design-replay-text")
ProblemVersion.objects.filter(pk=problem.live_version_id).update(
    validation=ProblemVersion.Validation.PASSED, validated_at=timezone.now())
interviewer = User.objects.get(username="interviewer")
candidate = User.objects.get(username="candidate")
s = services.session_schedule_live(interviewer=interviewer, problem_slug=problem.slug,
                                   duration=timedelta(minutes=45))
services.session_join(token=s.invite_token, user=candidate)
start = timezone.now() - timedelta(minutes=30)
InterviewSession.objects.filter(pk=s.pk).update(started_at=start)
first = board_update(s.pk, FIRST, author_id=candidate.pk)
second = board_update(s.pk, SECOND, notes=NOTES, author_id=candidate.pk)
DocUpdate.objects.filter(pk=first).update(created_at=start + timedelta(minutes=3))
DocUpdate.objects.filter(pk=second).update(created_at=start + timedelta(minutes=9))
services.session_finish_by(session_id=s.pk, user=interviewer)
print(s.pk)
"""


def listed(page: Page) -> list[str]:
    return page.locator("#replay-board-text-list li").all_text_contents()


def notes(page: Page) -> str:
    return str(page.evaluate("window.onsiteReplay.notes()"))


def test_the_replay_reads_the_board_and_notes_as_text_at_each_moment(
    browser: Browser, platform: Platform
) -> None:
    # The elements the seed draws read as the fixture's sentences, in both of the pages' twins.
    assert board_text(ELEMENTS) == VECTORS["lines"]
    script = f"FIRST = {FIRST!r}\nSECOND = {SECOND!r}\nNOTES = {NOTES!r}\n" + SEED
    done = platform.shell(script).split()[-1]
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((1440, 900), (390, 844)):
        with people_at(browser, platform, viewport={"width": width, "height": height}) as people:
            page = people.log_in("interviewer", f"/sessions/{done}/replay/")
            expect(page.locator("#replay")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
            # Opened from the keyboard, as a reader opens it.
            summary = page.locator("#replay-board-text summary")
            expect(summary).to_have_text("The board as text")
            summary.focus()
            page.keyboard.press("Enter")
            text_list = page.locator("#replay-board-text-list")
            expect(text_list).to_have_attribute("aria-label", "Board elements at this moment")
            # At the end: the whole board, as the live page and the report say it.
            expect(text_list.locator("li")).to_have_text(VECTORS["lines"])
            expect(page.locator("#replay-board-text-empty")).to_be_hidden()
            assert notes(page) == NOTES
            page.screenshot(path=str(SHOTS / f"replay-text-{width}.png"), full_page=True)

            # Back two strokes (the buttons a keyboard reaches): the second update's end still
            # shows it all, the first's only its shapes.
            page.locator("#replay-stroke-prev").click()
            expect(page.locator("#replay-stroke-at")).to_have_text("stroke 2 of 2")
            expect(text_list.locator("li")).to_have_text(VECTORS["lines"])
            page.locator("#replay-stroke-prev").click()
            expect(page.locator("#replay-stroke-at")).to_have_text("stroke 1 of 2")
            expect(text_list.locator("li")).to_have_text(board_text(FIRST))
            assert listed(page) == ["Box: “API gateway”", "Ellipse: “GPU pool”"]
            assert notes(page) == ""
            # The slider's start: nothing drawn yet, said in words, and no empty list to Tab to.
            slider = page.locator("#replay-slider")
            slider.focus()
            page.keyboard.press("Home")
            expect(page.locator("#replay-board-text-empty")).to_have_text(
                "Nothing is drawn at this moment."
            )
            expect(text_list).to_be_hidden()
            # Forward again to the end: the list follows.
            page.keyboard.press("End")
            expect(text_list.locator("li")).to_have_text(VECTORS["lines"])
