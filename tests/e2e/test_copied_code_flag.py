"""End to end: the review page flags a final submission that matches another candidate's
(issue 41.4). Two finished sessions of token-bucket run by the same interviewer, the second
candidate's final submission a copy of the first's with every disguise at once; their prints are
computed by the background job's own service. The interviewer's review page shows the flag
with both sides and the matched lines marked; the candidate's report says nothing of it.
Screenshots at 1440 and 390 px go to var/screenshots/copied-*.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from bench.similarity_disguise import disguise
from tests.e2e.conftest import People, Platform
from tests.processes import ROOT, SCREENSHOTS

pytestmark = pytest.mark.e2e

# The first candidate's own token bucket (a log of refills, a history kept for debugging) and
# the second's copy of it with every disguise of the labelled set at once.
ORIGINAL = """from collections import deque


class TokenBucket:
    def __init__(self, capacity: float, refill_per_sec: float) -> None:
        self.cap = float(capacity)
        self.per_second = float(refill_per_sec)
        self.level = float(capacity)
        self.stamp = None
        self.history = deque(maxlen=32)

    def _catch_up(self, now):
        if self.stamp is None:
            self.stamp = now
            return
        if now <= self.stamp:
            return
        gained = (now - self.stamp) * self.per_second
        self.level = min(self.cap, self.level + gained)
        self.history.append((now, gained, self.level))
        self.stamp = now

    def allow(self, now: float, cost: float = 1.0) -> bool:
        self._catch_up(now)
        ok = self.level >= cost
        if ok:
            self.level -= cost
        self.history.append((now, -cost if ok else 0.0, self.level))
        return ok

    def available(self, now: float) -> float:
        self._catch_up(now)
        return self.level
"""
STARTER = (ROOT / "problems" / "bank" / "token-bucket" / "starter.py").read_text()
COPY = disguise(ORIGINAL, STARTER, "all")

SEED = """
from datetime import timedelta
from django.contrib.auth.models import User
from django.utils import timezone
from grading import copies
from grading.models import CodePrint, Submission
from interviews.models import InterviewSession, SessionEvent
from problems.models import Problem

problem = Problem.objects.get(slug="token-bucket")
me = User.objects.get(username="interviewer")
first = User.objects.get(username="candidate")
second = User.objects.create_user(username="second_candidate", password=PASSWORD)
now = timezone.now()
ids = []
for who, code in ((first, ORIGINAL), (second, COPY)):
    submission = Submission.objects.create(
        user=who, problem=problem, version=problem.live_version, mode="submit", code=code,
        status="done", verdict="AC", passed=1, total=1, lane="interactive")
    session = InterviewSession.objects.create(
        problem=problem, candidate=who, interviewer=me, kind="live", status="finished",
        duration=timedelta(minutes=30), started_at=now - timedelta(hours=2),
        deadline=now - timedelta(hours=1, minutes=30), finished_at=now - timedelta(hours=1),
        finish_reason="candidate", final_submission=submission)
    SessionEvent.objects.create(session=session, kind="final_submit", actor=who,
                                submission=submission, at=now - timedelta(hours=1))
    print_ = CodePrint.objects.create(submission=submission, problem=problem)
    copies.codeprint_compute(codeprint_id=print_.pk)
    ids.append(session.pk)
print(ids[1])
"""


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"copied-{name}.png"), full_page=True)


def test_the_review_page_flags_copied_code_side_by_side(people: People, platform: Platform) -> None:
    script = (
        SEED.replace("ORIGINAL", repr(ORIGINAL))
        .replace("COPY", repr(COPY))
        .replace("PASSWORD", repr(platform.password))
    )
    session_id = int(platform.shell(script).strip().splitlines()[-1])

    interviewer = people.log_in("interviewer", f"/sessions/{session_id}/review/")
    flag = interviewer.locator(".copied-code")
    expect(flag).to_be_visible()
    expect(flag.locator("summary")).to_contain_text("Similar code:")
    expect(flag.locator("summary")).to_contain_text("candidate's submission")
    expect(flag.locator(".copied-side figcaption")).to_have_count(2)
    assert flag.locator(".copied-hit").count() > 10
    flag.scroll_into_view_if_needed()
    shot(interviewer, "review-1440")
    interviewer.set_viewport_size({"width": 390, "height": 844})
    shot(interviewer, "review-390")

    candidate = people.log_in("second_candidate", f"/sessions/{session_id}/report/")
    assert "Similar code" not in candidate.content()
