"""End to end: a solo mock interview in Debian's chromium, and the candidate's record of it.

The candidate practises alone: the page speaks to them as the only person there, a plain
paraphrase of a canned question gets its prepared answer, a note and a hint go into the
report with their times, and ending the session says "You ended the session". The History,
the report and the replay are then each looked at in three widths (screenshots under
var/screenshots/solo/), and the replay's marks list shows its two-digit numbers whole.

Everything is real (daphne, Redis, the Celery worker, the sandbox): tests/e2e/conftest.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import People, Platform, people_at
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SHOTS = SCREENSHOTS / "solo"
WIDTHS = (390, 1280, 1440)
SYNC_TIMEOUT_MS = 15_000


@pytest.fixture
def pages(browser: Browser, platform: Platform) -> Iterator[People]:
    with people_at(browser, platform, viewport={"width": 1440, "height": 900}) as opened:
        yield opened


def shoot(page: Page, name: str) -> None:
    """The page at each width, whole; it must never scroll sideways."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(150)  # a frame for the layout to settle before the picture
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 1, f"{name} scrolls sideways at {width} px by {overflow} px"
    page.set_viewport_size({"width": 1440, "height": 900})


def visible_text(page: Page, selector: str) -> str:
    return str(page.locator(selector).inner_text()).lower()


def ask(page: Page, text: str, index: int) -> None:
    page.fill("#question-form textarea", text)
    page.click("#question-form button[type=submit]")
    expect(page.locator("#questions .question").nth(index)).to_have_attribute(
        "data-source", re.compile("canned|assumption"), timeout=60_000
    )


def note(page: Page, text: str, count: int) -> None:
    page.fill("#note-form textarea", text)
    page.click("#note-form button[type=submit]")
    expect(page.locator("#notes .note-text")).to_have_count(count)


def test_a_solo_session_speaks_to_the_candidate_alone_and_its_record_reads_well(
    pages: People,
) -> None:
    candidate = pages.log_in("candidate")
    candidate.goto("/sessions/")
    candidate.select_option("#solo-form select[name=problem]", "token-bucket")
    candidate.fill("#solo-form input[name=minutes]", "30")
    candidate.click("#solo-form button[type=submit]")
    expect(candidate).to_have_url(re.compile(r"/sessions/\d+/$"))
    expect(candidate.locator("#session")).to_have_attribute(
        "data-ready", "true", timeout=SYNC_TIMEOUT_MS
    )
    session_id = int(candidate.url.rstrip("/").rsplit("/", 1)[1])
    assert "interviewer" not in visible_text(candidate, "#session")
    expect(candidate.locator("#solo-mode")).to_be_visible()

    # The reported paraphrase: the prepared answer about time going backwards.
    ask(candidate, "What if I get a timestamp earlier than the previous one?", 0)
    first = candidate.locator("#questions .question").nth(0)
    expect(first).to_have_attribute("data-source", "canned")
    expect(first.locator(".q-answer")).to_contain_text("no time passing")
    # Issue 36: the answer names the canned question it answers.
    expect(first.locator(".q-answer")).to_contain_text("Answering \u201cCan `now` go backwards")
    ask(candidate, "Which keyboard layout do you prefer?", 1)
    expect(candidate.locator("#questions .question").nth(1)).to_have_attribute(
        "data-source", "assumption"
    )
    expect(candidate.locator("#questions .question").nth(1).locator(".q-answer")).to_contain_text(
        "That is not specified here: state your assumption and go on"
    )
    for number, text in enumerate(
        [
            "Is the bucket full when it is created?",
            "Can a request cost more than the capacity?",
            "Does a denied call consume tokens?",
        ],
        start=2,
    ):
        ask(candidate, text, number)
    # A near miss of "Does the bucket start full or empty?": declined, not answered "Full".
    ask(candidate, "Can capacity be zero?", 5)
    near_miss = candidate.locator("#questions .question").nth(5)
    expect(near_miss).to_have_attribute("data-source", "assumption")
    expect(near_miss.locator(".q-answer")).not_to_contain_text("Full")
    for count, text in enumerate(
        [
            "O(1) per call: two floats of state",
            "Assume costs are never negative",
            "Clamp the refill at capacity",
            "A denied call changes nothing",
        ],
        start=1,
    ):
        note(candidate, text, count)
    candidate.click("#hint-button")
    expect(candidate.locator("#session-hints li")).to_have_count(1)
    assert "interviewer" not in visible_text(candidate, "#session")
    shoot(candidate, "session")

    candidate.once("dialog", lambda dialog: dialog.accept())
    candidate.click("#finish-button")
    expect(candidate.locator("#session-banner")).to_contain_text(
        "You ended the session", timeout=60_000
    )
    assert "interviewer" not in visible_text(candidate, "#session")

    # The report: the notes and the hint, with when; nothing about an interviewer.
    candidate.goto(f"/sessions/{session_id}/report/")
    notes = candidate.locator("#report-notes li")
    expect(notes).to_have_count(4)
    expect(notes.nth(0)).to_contain_text("O(1) per call: two floats of state")
    asked = candidate.locator("#report-questions li")
    expect(asked.nth(0)).to_contain_text("Answering \u201cCan `now` go backwards")
    expect(asked.nth(5)).to_contain_text("That is not specified here")
    expect(candidate.locator("#report-hints li")).to_have_count(1)
    expect(candidate.locator("#report-hints li .record-clock")).to_have_text(
        re.compile(r"^\d\d:\d\d$")
    )
    assert "interviewer" not in visible_text(candidate, "#report")
    shoot(candidate, "report")

    candidate.goto("/sessions/history/")
    expect(candidate.locator(f'tr[data-session="{session_id}"]')).to_contain_text("solo")
    shoot(candidate, "history")

    # The replay: ten marks and more, every number whole inside the list's scrolling box.
    candidate.goto(f"/sessions/{session_id}/replay/")
    expect(candidate.locator("#replay")).to_have_attribute(
        "data-ready", "true", timeout=SYNC_TIMEOUT_MS
    )
    items = candidate.locator("#replay-marks li")
    assert items.count() >= 10
    clipped = candidate.evaluate("""() => {
        const list = document.getElementById("replay-marks");
        const box = list.getBoundingClientRect();
        return [...list.children].filter((li) => {
            const marker = getComputedStyle(li, "::before");
            const left = li.getBoundingClientRect().left + parseFloat(marker.left || "0");
            return !marker.content.includes("counter") || left < box.left;
        }).length;
    }""")
    assert clipped == 0
    candidate.evaluate("document.getElementById('replay-marks').scrollTop = 1e6")  # 10 and on
    shoot(candidate, "replay")
