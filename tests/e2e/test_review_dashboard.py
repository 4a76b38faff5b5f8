"""End to end: the review dashboard's filters, sorting and pages (issue 14, point 3).

27 finished sessions are written straight into the platform's database (three of them scored);
the interviewer pages through them, sorts by score, filters by recommendation and shares the
URL with the admin, whose browser shows the same rows; a search that matches nothing shows the
empty state. Screenshots at 1440 and 390 px go to var/screenshots/dashboard-*.png.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import People, Platform
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SHOTS = SCREENSHOTS
PHONE = {"width": 390, "height": 844}

SEED = """
from datetime import timedelta
from django.contrib.auth.models import Group, User
from django.utils import timezone
from interviews.models import CriterionScore, InterviewSession, Scorecard
from problems.models import Problem

problem = Problem.objects.get(slug="token-bucket")
me = User.objects.create_user(username=INTERVIEWER, password=PASSWORD)
me.groups.add(Group.objects.get_or_create(name="interviewer")[0])
candidate = User.objects.create_user(username="dashboard_candidate", password=PASSWORD)
now = timezone.now()
for i in range(27):
    session = InterviewSession.objects.create(
        problem=problem, candidate=candidate, interviewer=me, kind="live", status="finished",
        duration=timedelta(minutes=30), started_at=now - timedelta(hours=2),
        finished_at=now - timedelta(hours=1), candidate_email=f"seeded{i}@example.com")
    if i < 3:
        card = Scorecard.objects.create(session=session, interviewer=me, submitted_at=now,
                                        recommendation=["no", "yes", "strong_yes"][i])
        for item in problem.rubric:
            CriterionScore.objects.create(scorecard=card, criterion=item["criterion"],
                                          level=i + 2)
"""


# The dashboard's own interviewer: what it lists, sorts and filters are the seeded sessions
# only, whatever other tests on the same platform have scored (a demo account's dashboard
# also holds theirs).
INTERVIEWER = "dashboard_interviewer"


def seed(platform: Platform) -> None:
    platform.shell(SEED.replace("INTERVIEWER", repr(INTERVIEWER))
                   .replace("PASSWORD", repr(platform.password)))


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"dashboard-{name}.png"), full_page=True)


def test_filter_sort_page_and_share_the_dashboard(people: People, platform: Platform) -> None:
    seed(platform)
    interviewer = people.log_in(INTERVIEWER, "/sessions/review/")
    rows = interviewer.locator("#review-sessions tbody tr")
    expect(interviewer.locator("#review-count")).to_have_text(re.compile(r"^27 sessions "))
    expect(rows).to_have_count(25)
    expect(interviewer.locator("#review-pages")).to_contain_text("Page 1 of 2")
    shot(interviewer, "1440")
    interviewer.click("#page-next")
    expect(interviewer).to_have_url(re.compile(r"page=2"))
    expect(rows).to_have_count(2)

    # Sorting by score (a column header) puts the best first, unscored sessions last.
    interviewer.goto("/sessions/review/")
    interviewer.click("#review-sessions thead a:has-text('Score')")
    expect(interviewer).to_have_url(re.compile(r"sort=-score"))
    expect(rows.first.locator(".score-cell")).to_contain_text("4.0")
    expect(rows.nth(1).locator(".score-cell")).to_contain_text("3.0")

    # Filters from the form, as GET parameters: a URL to share.
    interviewer.select_option("#review-filters select[name=recommendation]", "strong_yes")
    interviewer.select_option("#review-filters select[name=interviewer]", "me")
    interviewer.click("#review-filters button[type=submit]")
    expect(rows).to_have_count(1)
    expect(rows.first.locator(".rec-cell")).to_have_text("Strong yes")
    shared = interviewer.url
    assert "recommendation=strong_yes" in shared and "interviewer=me" in shared

    # The admin opens the same URL in another browser: the same filters, set in the form.
    admin = people.log_in("admin", "/sessions/review/")
    admin.goto(shared.replace("interviewer=me", f"interviewer={INTERVIEWER}"))
    expect(admin.locator("#review-sessions tbody tr")).to_have_count(1)
    expect(admin.locator("#review-filters select[name=recommendation]")).to_have_value("strong_yes")
    expect(admin.locator("#review-sessions tbody tr").first).to_have_attribute(
        "data-session", rows.first.get_attribute("data-session") or ""
    )

    # Nothing matches: a clear empty state with a way back.
    interviewer.fill("#review-filters input[name=candidate]", "nobody-by-that-name")
    interviewer.click("#review-filters button[type=submit]")
    expect(interviewer.locator("#review-empty")).to_contain_text("No sessions match")
    shot(interviewer, "empty")
    interviewer.click("#clear-filters")
    expect(rows).to_have_count(25)

    # At 390 px the rows are cards and the form sorts (the headers are off screen).
    interviewer.set_viewport_size(PHONE)
    interviewer.select_option("#review-filters select[name=sort]", "-recommendation")
    interviewer.click("#review-filters button[type=submit]")
    expect(rows.first.locator(".rec-cell")).to_have_text("Strong yes")
    width = interviewer.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the dashboard scrolls sideways at 390 px ({width} px)"
    shot(interviewer, "390")
