"""End to end: the room's doors by state (issue 35 points 1 and 2), in three browser contexts.

The interviewer schedules a live interview 40 minutes ahead for the candidate and adds a
co-interviewer from the cockpit. The candidate opens the session's own URL (not the
invitation): the waiting room, with nothing of the problem. A second interview, with no start
time, the candidate joins; the co-interviewer opens the live room: the statement, the live
document read-only, the private panel; what the candidate types reaches the co-interviewer.

Screenshots at 1440 and 390 px wide go to var/screenshots/doors-*.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import People, Platform, people_at
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

ZONE = "Europe/Paris"
SYNC_MS = 15_000
VIEWPORT = {"width": 1440, "height": 1000}


@pytest.fixture
def people(browser: Browser, platform: Platform) -> Iterator[People]:
    with people_at(browser, platform, viewport=VIEWPORT, timezone_id=ZONE) as opened:
        yield opened


def shots(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"doors-{name}-1440.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SCREENSHOTS / f"doors-{name}-390.png"), full_page=True)
    page.set_viewport_size(VIEWPORT)


def schedule(interviewer: Page, *, start: datetime | None) -> str:
    """Schedule a live token-bucket interview for "candidate"; the session page's URL."""
    interviewer.goto("/sessions/")
    form = interviewer.locator("#live-form")
    form.locator("select[name=problem]").select_option("token-bucket")
    if start is not None:
        form.locator("input[name=starts_date]").fill(start.date().isoformat())
        form.locator("input[name=starts_time]").fill(f"{start:%H:%M}")
    form.locator("input[name=minutes]").fill("30")
    form.locator("input[name=candidate]").fill("candidate")
    form.locator("button[type=submit]").click()
    expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/$"))
    return interviewer.url


def add_co_interviewer(interviewer: Page, username: str) -> None:
    interviewer.click("[data-tab-button=live]")
    form = interviewer.locator("#co-interviewer-form")
    form.locator("input[name=username]").fill(username)
    form.locator("button[type=submit]").click()
    expect(interviewer.locator("#co-interviewers")).to_contain_text(username)


def test_the_candidate_waits_and_the_co_interviewer_watches(people: People) -> None:
    interviewer = people.log_in("interviewer")
    later = (datetime.now(ZoneInfo(ZONE)) + timedelta(minutes=40)).replace(second=0)
    early_url = schedule(interviewer, start=later)

    # ------------------------------------------------------------ 40 minutes early
    candidate = people.log_in("candidate")
    candidate.goto(early_url)
    expect(candidate.locator("#waiting-room")).to_be_visible()
    expect(candidate.locator("#waiting-start")).to_contain_text(f"{later:%H:%M}")
    expect(candidate.locator(".statement")).to_have_count(0)
    expect(candidate.locator("#session")).to_have_count(0)
    expect(candidate.locator("#join-form")).to_have_count(0)
    shots(candidate, "waiting-room")

    # ------------------------------------------------------------ live, with a co-interviewer
    live_url = schedule(interviewer, start=None)
    add_co_interviewer(interviewer, "admin")
    invite = interviewer.input_value("#invite-url")
    candidate.goto(invite)
    candidate.click("#join-form button[type=submit]")
    expect(candidate).to_have_url(live_url)
    expect(candidate.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)

    co = people.log_in("admin")
    co.goto(live_url)
    room = co.locator("#session")
    expect(room).to_have_attribute("data-role", "co_interviewer")
    expect(room).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    expect(co.locator(".statement")).to_be_visible()
    expect(co.locator("#your-role")).to_contain_text("co-interviewer")
    expect(co.locator("#cockpit")).to_have_count(1)
    expect(co.locator("#interviewer-edit")).to_have_count(0)
    # What the candidate types reaches the co-interviewer's read-only editor.
    candidate.click("#session-editor .cm-content")
    candidate.keyboard.press("Control+End")
    candidate.keyboard.type("\n# seen by the panel")
    expect(co.locator("#session-editor .cm-content")).to_contain_text(
        "# seen by the panel", timeout=SYNC_MS
    )
    expect(co.locator("#session-editor .cm-content")).to_have_attribute("aria-readonly", "true")
    co.click("[data-tab-button=private]")
    shots(co, "co-interviewer-live")
