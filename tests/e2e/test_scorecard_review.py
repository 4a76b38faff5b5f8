"""End to end: the scorecard informs and the review page reads in a minute (issue 27).

A finished session with three runs (the first 0/4) is written straight into the platform's
database. The interviewer (a browser in Tokyo) finds nothing ticked, the suggestions beside
their criteria with their evidence; scores and submits; the summary shows; the candidate, in a
second browser, reads nothing of it; the interviewer amends the card (its history says who,
when and what) and releases; then amending is refused and the candidate reads the amended
card. The dashboard shows interview times in the viewer's zone, named. Screenshots at 1440
and 390 px go to var/screenshots/score-*.png.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import Platform, people_at
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SHOTS = SCREENSHOTS
PHONE = {"width": 390, "height": 844}

SEED = """
from datetime import timedelta
from django.contrib.auth.models import User
from django.utils import timezone
from grading.models import Submission, TestResult
from interviews.models import InterviewSession, SessionEvent
from problems.models import Problem

problem = Problem.objects.get(slug="token-bucket")
me = User.objects.get(username="interviewer")
candidate = User.objects.get(username="candidate")
start = timezone.now() - timedelta(hours=3)
session = InterviewSession.objects.create(
    problem=problem, candidate=candidate, interviewer=me, kind="live", status="finished",
    duration=timedelta(minutes=45), started_at=start, deadline=start + timedelta(minutes=45),
    finished_at=start + timedelta(minutes=40), finish_reason="candidate")
HEAD = "class TokenBucket:\\n    def __init__(self, capacity, rate):\\n"
FULL = HEAD + "        self.capacity = capacity\\n        self.tokens = capacity\\n"
code = [HEAD + "        self.tokens = 0\\n", FULL + "        self.rate = rate\\n",
        FULL + "        self.rate = rate\\n        self.last = 0.0\\n"]
public = [f"public {i}" for i in range(4)]
runs = [("run", ["WA"] * 4, []), ("run", ["AC", "AC", "AC", "WA"], []),
        ("final_submit", ["AC"] * 4,
         [("correctness", "AC")] * 8 + [("edge_cases", "AC")] * 5 + [("edge_cases", "WA")] * 2
         + [("performance", "AC")] * 2)]
for number, (kind, verdicts, hidden) in enumerate(runs):
    results = [(name, False, "correctness", v) for name, v in zip(public, verdicts)]
    results += [(f"hidden {tag} {i}", True, tag, v) for i, (tag, v) in enumerate(hidden)]
    passed = sum(v == "AC" for *_, v in results)
    sub = Submission.objects.create(
        user=candidate, problem=problem, version=problem.live_version,
        mode="submit" if hidden else "run", code=code[number], status="done",
        verdict="AC" if passed == len(results) else "WA", passed=passed, total=len(results))
    for index, (name, is_hidden, tag, verdict) in enumerate(results):
        TestResult.objects.create(submission=sub, index=index, name=name, hidden=is_hidden,
                                  tag=tag, verdict=verdict,
                                  detail={} if verdict == "AC" else {"expected": 1, "got": 0})
    SessionEvent.objects.create(session=session, kind=kind, actor=candidate, submission=sub,
                                at=start + timedelta(minutes=10 * (number + 1)))
session.final_submission = sub
session.save()
print(session.pk)
"""


def seed(platform: Platform) -> int:
    return int(platform.shell(SEED).strip().splitlines()[-1])


def shots(page: Page, name: str, selector: str = "") -> None:
    """Full page at 1440 px, then at 390 px (which must not scroll sideways), back to 1440."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, viewport in (("1440", {"width": 1440, "height": 1000}), ("390", PHONE)):
        page.set_viewport_size(viewport)
        if selector:
            page.locator(selector).screenshot(path=str(SHOTS / f"score-{name}-{width}.png"))
        else:
            page.screenshot(path=str(SHOTS / f"score-{name}-{width}.png"), full_page=True)
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= viewport["width"], f"{name} scrolls sideways at {width} px ({wide} px)"
    page.set_viewport_size({"width": 1440, "height": 1000})


def test_the_scorecard_informs_is_amended_until_release_and_the_candidate_waits(
    browser: Browser,
    platform: Platform,
) -> None:
    session_id = seed(platform)
    review = f"/sessions/{session_id}/review/"
    with people_at(browser, platform, timezone_id="Asia/Tokyo") as people:
        interviewer = people.log_in("interviewer", review)
        # Informs, never decides: nothing ticked, each suggestion beside its criterion.
        expect(interviewer.locator("#scorecard-form input[type=radio]:checked")).to_have_count(0)
        correctness = interviewer.locator('fieldset.criterion[data-criterion="correctness"]')
        expect(correctness.locator("legend")).to_contain_text("Correctness")
        expect(correctness.locator(".suggestion")).to_contain_text(
            "not on the first pass: the first run passed 0/4"
        )
        expect(correctness.locator(".suggestion-badge")).to_have_text("Suggested 3")
        expect(
            interviewer.locator('fieldset.criterion[data-criterion="edge_cases"] legend')
        ).to_contain_text("Edge cases")
        # The final run leads with its failures; all 21 tests are one click away.
        final = interviewer.locator(".review-run").last
        expect(final.locator(".run-failing tbody tr")).to_have_count(2)
        expect(final.locator(".tag-count.tag-bad")).to_have_text("edge cases 5/7")
        expect(final.locator(".run-all-tests tbody tr").first).not_to_be_visible()
        final.locator(".run-all-tests > summary").click()
        expect(final.locator(".run-all-tests tbody tr")).to_have_count(21)
        expect(final.locator(".run-all-tests tbody tr").first.locator("td").first).to_have_text("1")
        final.locator(".run-all-tests > summary").click()
        expect(final.locator(".run-code .codehilite .k").first).to_be_visible()
        shots(interviewer, "review")

        # Level 2 here, amended to 3 below.
        for fieldset in interviewer.locator("fieldset.criterion").all():
            fieldset.locator('input[value="2"]').check()
        interviewer.select_option("#scorecard-form select[name=recommendation]", "yes")
        interviewer.fill("#scorecard-form textarea[name=summary]", "FIRST-SUMMARY of the card")
        interviewer.click("#scorecard-submit")
        expect(interviewer.locator("#own-summary")).to_have_text("FIRST-SUMMARY of the card")
        expect(interviewer.locator("#own-recommendation")).to_have_text("Yes")
        expect(interviewer.locator("#panel-recommendation .rec-step.chosen")).to_contain_text("Yes")

        # The candidate, in their own browser, reads nothing of it before release.
        candidate = people.log_in("candidate", f"/sessions/{session_id}/report/")
        expect(candidate.locator("#report-unreleased")).to_be_visible()
        assert "FIRST-SUMMARY" not in candidate.content()

        # Amended before release: the history says who, when, what.
        interviewer.click("#amend > summary")
        interviewer.check('#amend-form fieldset[data-criterion="correctness"] input[value="3"]')
        interviewer.fill("#amend-form textarea[name=summary]", "AMENDED-SUMMARY of the card")
        interviewer.click("#amend-submit")
        expect(interviewer.locator("#own-summary")).to_have_text("AMENDED-SUMMARY of the card")
        history = interviewer.locator("#card-history")
        expect(history).to_contain_text("Amended by interviewer")
        expect(history).to_contain_text("Correctness level: 2 → 3")
        expect(history.locator("time").last).to_contain_text("GMT+9")
        shots(interviewer, "submitted", "#scorecard")

        interviewer.click("#release-button")
        expect(interviewer.locator("#released")).to_be_visible()
        expect(interviewer.locator("#amend-closed")).to_contain_text("can no longer be amended")
        expect(interviewer.locator("#amend-form")).to_have_count(0)
        candidate.reload()
        expect(candidate.locator("body")).to_contain_text("AMENDED-SUMMARY of the card")
        assert "FIRST-SUMMARY" not in candidate.content()

        # The dashboard: interview times in the viewer's zone, the zone named.
        # (Other browser modules share this platform: the session may be on a later page.)
        row = interviewer.locator(f'#review-sessions tr[data-session="{session_id}"]')
        for number in range(1, 11):
            interviewer.goto(f"/sessions/review/?page={number}")
            if row.count():
                break
        expect(row.locator("time.local-time")).to_contain_text("GMT+9")
        expect(interviewer.locator("[data-zone-name]")).to_have_text("Asia/Tokyo")
        assert re.search(r"\d{1,2}:\d{2}", row.locator("time.local-time").inner_text())
        shots(interviewer, "dashboard")
