"""End to end: scheduling like a calendar (issue 27 point 1), in two browser contexts.

The interviewer schedules with an unknown candidate username: the form comes back with the
error at that field and every other value kept; fixed, it schedules; on the schedule page the
interviewer reschedules. The candidate opens the link days before the start and sees the
waiting room, the start in the browser's own time zone, named.

Screenshots at 1440 and 390 px wide go to $ONSITE_SHOTS_DIR (default var/screenshots/).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import People, Platform, people_at
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SHOTS = SCREENSHOTS
ZONE = "Asia/Tokyo"


@pytest.fixture
def people(browser: Browser, platform: Platform) -> Iterator[People]:
    with people_at(
        browser, platform, viewport={"width": 1440, "height": 1000}, timezone_id=ZONE
    ) as opened:
        yield opened


def shots(page: Page, name: str) -> None:
    """The page at 1440 px and at 390 px (a phone), then back."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"sched-{name}-1440.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SHOTS / f"sched-{name}-390.png"), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 1000})


def test_schedule_with_a_field_error_fix_reschedule_and_the_candidate_waits(
    people: People,
) -> None:
    tokyo = ZoneInfo(ZONE)
    first = (datetime.now(tokyo) + timedelta(days=2)).date().isoformat()
    later = (datetime.now(tokyo) + timedelta(days=3)).date().isoformat()
    interviewer = people.log_in("interviewer")
    form = interviewer.locator("#live-form")
    form.locator("select[name=problem]").select_option("token-bucket")
    form.locator("input[name=starts_date]").fill(first)
    form.locator("input[name=starts_time]").fill("09:30")
    form.locator("input[name=minutes]").fill("30")
    form.locator("input[name=email]").fill("ada@example.com")
    form.locator("input[name=candidate]").fill("nobody-by-that-name")
    form.locator("button[type=submit]").click()

    # The error at its field, every value kept.
    form = interviewer.locator("#live-form")
    expect(form.locator("#error-candidate")).to_contain_text("No user is named")
    expect(form.locator("input[name=candidate]")).to_have_attribute("aria-invalid", "true")
    expect(form.locator("input[name=starts_date]")).to_have_value(first)
    expect(form.locator("input[name=starts_time]")).to_have_value("09:30")
    expect(form.locator("input[name=minutes]")).to_have_value("30")
    expect(form.locator("input[name=email]")).to_have_value("ada@example.com")
    expect(form.locator("input[name=tz]")).to_have_value(ZONE)
    expect(form.locator(".field-error")).to_have_count(1)
    form.scroll_into_view_if_needed()
    shots(interviewer, "form-error")

    form.locator("input[name=candidate]").fill("candidate")
    form.locator("button[type=submit]").click()
    expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/$"))
    interviewer.click("#schedule-link")
    expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/schedule/$"))
    reschedule = interviewer.locator("#reschedule-form")
    # The planned start, shown in the interviewer's own zone.
    expect(reschedule.locator("input[name=starts_date]")).to_have_value(first)
    expect(reschedule.locator("input[name=starts_time]")).to_have_value("09:30")
    reschedule.locator("input[name=starts_date]").fill(later)
    reschedule.locator("input[name=starts_time]").fill("11:15")
    reschedule.locator("button[type=submit]").click()
    expect(interviewer.locator("#schedule-done")).to_contain_text("Rescheduled")
    expect(interviewer.locator("#schedule-starts")).to_contain_text("11:15")
    expect(interviewer.locator("#schedule-history li")).to_have_count(2)
    expect(interviewer.locator("#schedule-history li").first).to_have_attribute(
        "data-action", "rescheduled"
    )
    interviewer.locator("#cancel-box summary").click()  # opened, not confirmed
    shots(interviewer, "actions")
    invite = interviewer.input_value("#invite-url")

    candidate = people.log_in("candidate")
    candidate.goto(invite)
    room = candidate.locator("#waiting-room")
    expect(room).to_be_visible()
    expect(candidate.locator("#join-form")).to_have_count(0)
    expect(candidate.locator("#waiting-start")).to_contain_text("11:15")
    expect(candidate.locator("#waiting-zone")).to_contain_text(ZONE)
    expect(candidate.locator("#waiting-countdown")).to_contain_text(" d ")
    shots(candidate, "waiting-room")
