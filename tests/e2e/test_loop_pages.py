"""End to end: the mock onsite and the calibration page (issue 39, points 4 and 5).

The candidate takes a booked practice loop's first round (a design round: ending it grades
nothing) and, on the round's own page once it is over, one click starts the next round. A
finished three-round loop's report and the calibration page are seen at 1440 and 390 px
without sideways scrolling; screenshots go to var/screenshots/loop-*.png.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import People, Platform
from tests.e2e.layout import assert_fits
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}

SEED = """
import json
from datetime import timedelta
from django.contrib.auth.models import User
from django.utils import timezone
from grading.models import Submission
from interviews.models import CriterionScore, InterviewSession, Scorecard
from loops.models import LoopRound
from loops.services import practice
from loops.services.practice import RoundSpec
from problems.models import Problem, ProblemVersion
from tests.factories import design_problem, tiny_problem, user_with_role


def make(slug, title, kind, topics):
    p = design_problem(slug) if kind == "design" else tiny_problem(slug)
    p.title, p.topics = title, topics
    if kind != "design":
        p.kind = kind
    p.save()
    v = p.live_version
    v.kind, v.topics, v.title = p.kind, p.topics, p.title
    v.save()
    # Offered whatever the platform's background validation would say of a fixture (the
    # design one has no board, clarifications or anchored rubric: it fails the package checks
    # and would be withdrawn mid-test, as it was once, two seconds before the click).
    ProblemVersion.objects.filter(pk=v.pk).update(
        validation=ProblemVersion.Validation.PASSED, validated_at=timezone.now())
    return p


make("loop-fix-kv-cache", "Fix the KV cache", "debug", ["caching", "batching"])
make("loop-batch-api", "Design a batch inference API", "design", ["batching", "serving"])
make("loop-limiter-windows", "Sliding-window limiter", "implement",
     ["rate limiting", "time handling"])
make("loop-gateway-quota", "Gateway quotas", "implement", ["API gateways"])
make("loop-lru-cache", "LRU cache", "implement", ["caching"])
candidate = User.objects.get(username="candidate")
done = practice.practice_book(candidate=candidate, title="ML infrastructure mock onsite", rounds=[
    RoundSpec("Coding", "implement", 45, 10, problem="token-bucket"),
    RoundSpec("ML debugging", "debug", 30, 10, problem="loop-fix-kv-cache"),
    RoundSpec("System design", "design", 45, 0, problem="loop-batch-api")])
outcomes = [("WA", 6, 9, 38), ("AC", 5, 5, 24), (None, 0, 0, 41)]
for position, (verdict, passed, total, minutes) in enumerate(outcomes, start=1):
    s = practice.practice_round_start(loop_id=done.pk, user=candidate, position=position)
    start = timezone.now() - timedelta(minutes=minutes)
    final = None
    if verdict:
        final = Submission.objects.create(user=candidate, problem=s.problem,
            version=s.problem.live_version, mode="submit", code="pass", status="done",
            verdict=verdict, passed=passed, total=total)
    InterviewSession.objects.filter(pk=s.pk).update(status="finished", started_at=start,
        finished_at=timezone.now(), finish_reason="candidate", final_submission=final)
flow = practice.practice_book(candidate=candidate, title="Design then code", rounds=[
    RoundSpec("Design warm-up", "design", 10, 5, problem="loop-batch-api"),
    RoundSpec("Coding", "implement", 10, 0, problem="loop-lru-cache")])
bucket = Problem.objects.get(slug="token-bucket")
criteria = [row["criterion"] for row in bucket.rubric][:4]
panel = [User.objects.get(username="interviewer")] + [
    user_with_role(name, "interviewer") for name in ("loop-priya", "loop-marco", "loop-hank")]
for i in range(3):
    s = InterviewSession.objects.create(problem=bucket, candidate=candidate, kind="live",
        status="finished", duration=timedelta(minutes=45),
        started_at=timezone.now() - timedelta(days=i + 1),
        finished_at=timezone.now() - timedelta(days=i + 1) + timedelta(minutes=45))
    for who, level in zip(panel, (3, 3 + (i == 0), 2 + (i > 0), 1)):
        card = Scorecard.objects.create(session=s, interviewer=who, submitted_at=timezone.now())
        for c in criteria:
            CriterionScore.objects.create(scorecard=card, criterion=c, level=level)
print(json.dumps({"done": done.pk, "flow": flow.pk}))
"""


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"loop-{name}.png"), full_page=True)


def test_a_mock_onsite_round_to_round_its_report_and_calibration(people: People,
                                                                  platform: Platform) -> None:
    ids = json.loads(platform.shell(SEED).strip().splitlines()[-1])
    candidate = people.log_in("candidate", f"/loops/practice/{ids['flow']}/")
    candidate.on("dialog", lambda dialog: dialog.accept())
    candidate.click("#practice-next button[type=submit]")
    expect(candidate).to_have_url(re.compile(r"/sessions/\d+/$"))
    first_round = candidate.url
    next_step = candidate.locator("#next-step")
    expect(next_step).to_be_hidden()
    # the page's script runs (the clock counts) before the round is ended
    expect(candidate.locator("#session-timer")).not_to_have_text("--:--")
    candidate.click("#finish-button")
    # the round is over: the next one is one click away, on the round's own page
    expect(next_step).to_be_visible()
    expect(next_step).to_contain_text("Start round 2: Coding")
    next_step.locator("button").click()
    expect(candidate).not_to_have_url(first_round)
    expect(candidate).to_have_url(re.compile(r"/sessions/\d+/$"))
    expect(candidate.locator("#problem-title")).to_have_text("LRU cache")

    candidate.goto(f"/loops/practice/{ids['done']}/")
    expect(candidate.locator("#practice-progress")).to_contain_text("3 of 3 rounds done")
    expect(candidate.locator("#overall-tests")).to_contain_text("11 of 14")
    # (other modules on this platform may add problems: only this seed's are counted on)
    expect(candidate.locator('[data-suggested="loop-limiter-windows"]')).to_be_visible()
    expect(candidate.locator('[data-suggested="loop-lru-cache"]')).to_have_count(0)
    assert_fits(candidate, "the mock onsite report", 1440)
    shot(candidate, "practice-report-1440")
    candidate.set_viewport_size(PHONE)
    assert_fits(candidate, "the mock onsite report", PHONE["width"])
    shot(candidate, "practice-report-390")
    candidate.goto("/loops/practice/")
    assert_fits(candidate, "the booking page", PHONE["width"])
    shot(candidate, "practice-book-390")

    admin = people.log_in("admin", "/loops/calibration/")
    hank = admin.locator(".calibration-table tbody tr", has_text="loop-hank")
    expect(hank).to_have_class(re.compile(r"calibration-harsh"))
    expect(hank.locator(".cal-gap")).to_have_text(re.compile(r"^-"))
    expect(admin.locator(".calibration-chart").first).to_be_visible()
    assert_fits(admin, "the calibration page", 1440)
    shot(admin, "calibration-1440")
    admin.set_viewport_size(PHONE)
    assert_fits(admin, "the calibration page", PHONE["width"])
    shot(admin, "calibration-390")
