"""End to end: an onsite loop (issue 39 point 1) in two browser contexts.

The recruiter builds a three-round loop for the demo candidate in Europe/Berlin (three rounds,
breaks between, two interviewers and a co-interviewer); the loop page shows the day in the
candidate's zone with the next round; the candidate opens it and sees their day with the first
round's link. Screenshots of the loop page at 1440 and 390 px go to $ONSITE_SHOTS_DIR (default
var/screenshots/).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.a11y import audit
from tests.e2e.conftest import People
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e
ZONE = "Europe/Berlin"


def shots(page: Page, name: str) -> None:
    """The page at 1440 px and at 390 px (a phone), then back; axe finds nothing at either."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"loop-{name}-1440.png"), full_page=True)
    problems = audit(page, f"loop {name} @1440")
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SCREENSHOTS / f"loop-{name}-390.png"), full_page=True)
    problems += audit(page, f"loop {name} @390")
    page.set_viewport_size({"width": 1440, "height": 1000})
    assert problems == []


def test_a_recruiter_builds_a_loop_and_the_candidate_sees_the_day(people: People) -> None:
    day = (datetime.now(ZoneInfo(ZONE)) + timedelta(days=2)).date().isoformat()
    recruiter = people.log_in("recruiter", next_url="/loops/new/")
    form = recruiter.locator("#loop-form")
    form.locator("input[name=title]").fill("ML infrastructure onsite")
    form.locator("input[name=candidate]").fill("candidate")
    form.locator("input[name=email]").fill("ada@example.com")
    form.locator("select[name=tz]").select_option(ZONE)
    form.locator("input[name=starts_date]").fill(day)
    form.locator("input[name=starts_time]").fill("10:00")
    rows = [("Coding", "interviewer", "admin", "45", "15"),
            ("ML debugging", "admin", "", "30", "30"),
            ("System design", "interviewer", "", "45", "0")]
    for n, (label, who, co, minutes, pause) in enumerate(rows, start=1):
        form.locator(f"input[name=label_{n}]").fill(label)
        form.locator(f"select[name=problem_{n}]").select_option("token-bucket")
        form.locator(f"input[name=interviewer_{n}]").fill(who)
        form.locator(f"input[name=co_{n}]").fill(co)
        form.locator(f"input[name=minutes_{n}]").fill(minutes)
        form.locator(f"input[name=break_{n}]").fill(pause)
    shots(recruiter, "builder")
    form.locator("#loop-schedule").click()
    expect(recruiter).to_have_url(re.compile(r"/loops/\d+/\?done=scheduled$"))
    schedule = recruiter.locator("#loop-schedule")
    expect(schedule.locator("li.loop-round")).to_have_count(3)
    expect(schedule).to_contain_text("10:00–10:45")
    expect(schedule).to_contain_text("11:00–11:30")
    expect(schedule).to_contain_text("12:00–12:45")
    expect(recruiter.locator("#loop-zone")).to_have_text(ZONE)
    expect(recruiter.locator("#next-round")).to_contain_text("Next: Coding")
    shots(recruiter, "recruiter")

    candidate = people.log_in("candidate", next_url=recruiter.url.split("?")[0].replace(
        people.platform.base_url, ""))
    expect(candidate.locator("#next-round")).to_contain_text("Next: Coding")
    expect(candidate.locator("#next-link")).to_have_attribute(
        "href", re.compile(r"^/sessions/join/"))
    expect(candidate.locator("#loop-manage")).to_have_count(0)
    shots(candidate, "candidate")

    # The first round's interviewer opens their round's schedule page: it sends moves and
    # cancellations to the loop (where the round's neighbours are checked too).
    interviewer = people.log_in("interviewer", next_url=recruiter.url.split("?")[0].replace(
        people.platform.base_url, ""))
    interviewer.locator("li.loop-round").first.locator("a").first.click()
    expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/$"))
    interviewer.goto(interviewer.url + "schedule/")
    keeper = interviewer.locator("#schedule-keeper")
    expect(keeper).to_contain_text("round 1 of the loop “ML infrastructure onsite”")
    expect(keeper.get_by_role("link", name=re.compile("^round 1 of the loop"))).to_have_attribute(
        "href", re.compile(r"^/loops/\d+/$"))
    expect(interviewer.locator("#reschedule-form")).to_have_count(0)
    expect(interviewer.locator("#cancel-form")).to_have_count(0)
    expect(interviewer.locator("#resend-form")).to_be_visible()
    shots(interviewer, "round-schedule")

    # The round runs and the interviewer gives more time past the next round's start: the
    # page says the debugging round now starts before this one ends (and keeps its start).
    # (The round runs for a candidate of its own, and is called off at the end: the demo
    # accounts are shared by every e2e test on this platform, and a candidate with a running
    # session starts no other.)
    round_id = int(interviewer.url.rstrip("/").split("/")[-2])
    people.platform.shell(RUNNING.format(session_id=round_id))
    try:
        interviewer.goto(f"/sessions/{round_id}/")
        expect(interviewer.locator("#session")).to_have_attribute("data-ready", "true",
                                                                 timeout=60_000)
        expect(interviewer.locator("#extend-note")).to_be_hidden()
        interviewer.select_option("#extend-minutes", "10")
        interviewer.click("#extend-button")
        note = interviewer.locator("#extend-note")
        expect(note).to_be_visible()
        expect(note).to_have_text(re.compile(
            r"^Round 2 \(ML debugging\) starts at \d\d:\d\d, before this interview now ends "
            r"\(\d\d:\d\d\); it keeps its time\.$"))
        shots(interviewer, "round-more-time")
    finally:
        people.platform.shell(CALLED_OFF.format(session_id=round_id))


# Round 1 running since now for a candidate of its own, its deadline 3 minutes before round 2.
RUNNING = """
from django.utils import timezone
from interviews.models import InterviewSession
from loops.models import LoopRound
from django.contrib.auth.models import User
this = LoopRound.objects.get(session_id={session_id})
after = LoopRound.objects.get(loop=this.loop, position=2).session
InterviewSession.objects.filter(pk={session_id}).update(
    status="active", started_at=timezone.now(),
    candidate=User.objects.get_or_create(username="loop-flow-candidate")[0],
    deadline=after.scheduled_for - timezone.timedelta(minutes=3))
"""
CALLED_OFF = """
from django.utils import timezone
from interviews.models import InterviewSession
InterviewSession.objects.filter(pk={session_id}).update(
    status="cancelled", cancelled_at=timezone.now())
"""
