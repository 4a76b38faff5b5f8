"""End to end: a loop's hiring packet in real browsers (issue 39.3, 39.7). Three finished
rounds of token-bucket with three interviewers; round 1's scorecard carries a marker. The
three interviewers, the candidate and the hiring manager each have a browser. The round-2
interviewer, whose own scorecard is a draft, is told to submit first and reads nothing of
round 1 (the other two, submitted, read the other rounds; nobody reads another round's own
pages), submits on the review page and then reads it; the hiring manager reads every round,
records and amends the decision (the audit lists both), closes the loop and releases the
combined report, which the candidate then reads. Screenshots at 1440 and 390 px go to
var/screenshots/loop-packet-*.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.a11y import audit
from tests.e2e.conftest import People, Platform
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

MARKER = "MARK-LOOP-ROUND1-6620"

SEED = """
from datetime import timedelta
from django.contrib.auth.models import Group, User
from django.utils import timezone
from interviews.models import InterviewSession, SessionEvent
from interviews.review import services as review
from loops.models import Loop, LoopRound
from problems.models import Problem

problem = Problem.objects.get(slug="token-bucket")
group = Group.objects.get_or_create(name="interviewer")[0]
people = [User.objects.get(username="interviewer")]
for name in ("iv_two", "iv_three", "hiring_manager"):
    user = User.objects.create_user(username=name, password=PASSWORD)
    user.groups.add(group)
    people.append(user)
manager = people.pop()
candidate = User.objects.get(username="candidate")
loop = Loop.objects.create(title="ML infrastructure onsite", candidate=candidate,
                           created_by=User.objects.get(username="admin"),
                           hiring_manager=manager)
now = timezone.now()
criteria = [row["criterion"] for row in problem.rubric]
for position, (who, label, level, rec) in enumerate(
        ((people[0], "Coding: continuous batching", 4, "strong_yes"),
         (people[1], "ML debugging", 2, "no"),
         (people[2], "System design", 3, "yes")), start=1):
    start = now - timedelta(hours=6 - 2 * position)
    session = InterviewSession.objects.create(
        problem=problem, candidate=candidate, interviewer=who, kind="live", status="finished",
        duration=timedelta(minutes=45), started_at=start, scheduled_for=start,
        deadline=start + timedelta(minutes=45), finished_at=start + timedelta(minutes=45),
        finish_reason="deadline")
    SessionEvent.objects.create(session=session, kind="paste", actor=candidate,
                                data={"chars": 320}, at=start + timedelta(minutes=9))
    LoopRound.objects.create(loop=loop, position=position, session=session, label=label,
                             break_after=timedelta(minutes=15))
    summary = (f"Summary {MARKER}: clear reasoning, tested the edges." if position == 1
               else f"Round {position}: " + ("slow to find the bug." if level < 3
                                             else "a sound design, weak on back-pressure."))
    scores = {c: {"level": level if i % 3 else max(1, level - 1),
                  "comment": f"{c.replace('_', ' ')} at {level}", "evidence": []}
              for i, c in enumerate(criteria)}
    review.scorecard_save(session=session, user=who, recommendation=rec, summary=summary,
                          scores=scores, submit=position != 2)
print(loop.pk)
"""


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"loop-packet-{name}.png"), full_page=True)


def test_the_hiring_packet_from_independent_scorecards_to_the_released_report(
        people: People, platform: Platform) -> None:
    script = SEED.replace("PASSWORD", repr(platform.password)).replace("MARKER", repr(MARKER))
    loop_id = int(platform.shell(script).strip().splitlines()[-1])
    packet_url = f"/loops/{loop_id}/packet/"

    # The round-2 interviewer's own scorecard is a draft: submit first, round 1 closed.
    second = people.log_in("iv_two", packet_url)
    expect(second.locator("#packet-submit-first")).to_be_visible()
    expect(second.locator("#round-1 .packet-closed")).to_contain_text("Closed until you submit")
    assert MARKER not in second.content()
    expect(second.locator("#debrief")).to_have_count(0)

    # The candidate: no packet, no report before the release.
    candidate = people.log_in("candidate", "/sessions/")
    assert candidate.goto(packet_url).status == 404
    assert candidate.goto(f"/loops/{loop_id}/report/").status == 404

    # The hiring manager reads every round, side by side.
    manager = people.log_in("hiring_manager", packet_url)
    expect(manager.locator(".packet-recommendation")).to_have_count(2)
    expect(manager.locator("#round-1")).to_contain_text(MARKER)
    expect(manager.locator("#round-1 .packet-integrity")).to_contain_text("1 large paste")
    expect(manager.locator("#packet-criteria")).to_contain_text("Strengths")
    # records a decision, then amends it: both in the audit
    manager.locator("input[name=decision][value=hire]").check()
    manager.fill("#debrief-reason-input", "Strong coding; design good enough.")
    manager.locator("button[name=action][value=record]").click()
    expect(manager.locator("#debrief-decision")).to_contain_text("Hire")
    manager.locator("input[name=decision][value=hold]").check()
    manager.fill("#debrief-reason-input", "Wait for round 2's scorecard.")
    manager.locator("button[name=action][value=record]").click()
    expect(manager.locator(".debrief-change")).to_have_count(2)
    expect(manager.locator("#debrief-decision")).to_contain_text("Hold")
    assert audit(manager, "loop-packet") == []
    manager.locator("#packet-recommendations").scroll_into_view_if_needed()
    shot(manager, "1440")
    manager.set_viewport_size({"width": 390, "height": 844})
    shot(manager, "390")
    manager.set_viewport_size({"width": 1440, "height": 1000})

    # Round 1 stays closed to the round-2 interviewer whatever the manager did.
    second.goto(packet_url)
    assert MARKER not in second.content()

    # The round-1 and round-3 interviewers, each in their own browser, have submitted: under
    # "only after submitting one's own" they read the other rounds.
    first = people.log_in("interviewer", packet_url)
    expect(first.locator("#round-2")).to_be_visible()
    expect(first.locator("#packet-submit-first")).to_have_count(0)
    third = people.log_in("iv_three", packet_url)
    expect(third.locator("#round-1")).to_contain_text(MARKER)
    expect(third.locator("#debrief")).to_have_count(0)
    # Round 1's own pages stay closed to the interviewers of the other rounds.
    round_one = platform.shell(
        "from loops.models import LoopRound\n"
        f"print(LoopRound.objects.get(loop_id={loop_id}, position=1).session_id)").split()[-1]
    for other in (second, third):
        assert other.goto(f"/sessions/{round_one}/review/").status == 404
    # The candidate's own round report says nothing before the release.
    candidate.goto(f"/sessions/{round_one}/report/")
    expect(candidate.locator("#report-unreleased")).to_be_visible()
    assert MARKER not in candidate.content()

    # The round-2 interviewer submits their draft on the round's review page; now round 1
    # opens to them in the packet.
    round_two = platform.shell(
        "from loops.models import LoopRound\n"
        f"print(LoopRound.objects.get(loop_id={loop_id}, position=2).session_id)").split()[-1]
    second.goto(f"/sessions/{round_two}/review/")
    second.click("#scorecard-submit")
    expect(second.locator("#own-recommendation")).to_have_text("No")
    second.goto(packet_url)
    expect(second.locator("#packet-submit-first")).to_have_count(0)
    expect(second.locator("#round-1")).to_contain_text(MARKER)
    manager.reload()
    expect(manager.locator(".packet-recommendation")).to_have_count(3)

    # The manager closes the loop (final) and releases the combined report.
    manager.locator("button[name=action][value=close]").click()
    expect(manager.locator("#debrief-closed")).to_be_visible()
    expect(manager.locator("#debrief-form")).to_have_count(0)
    manager.locator("#packet-release").click()
    expect(manager.locator("#packet-released")).to_be_visible()

    candidate.goto(f"/loops/{loop_id}/report/")
    expect(candidate.locator("#report-round-1")).to_contain_text(MARKER)
    assert audit(candidate, "loop-report") == []
    shot(candidate, "report-1440")
