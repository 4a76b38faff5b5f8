"""End to end: the interviewer's cockpit in two browser contexts (issue 14 points 1-3).

The interviewer schedules a live interview with a date, a time, an e-mail address and a call
link; a real local SMTP server (aiosmtpd) receives the invitation and its .ics; the Copy
button copies the link; another account is refused on the join page before any click; the
candidate sees when it starts and for how long, joins, and the invite box goes away. During
the session the interviewer sends a canned answer in one click, reveals a hint, chats, keeps a
private note; every frame of the candidate's socket and the candidate's page are searched for
the private material. Ending the session closes the forms on both sides.

Screenshots (1440 px wide) go to var/screenshots/cockpit-*.png.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import Inbox, People, Platform, people_at
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "problems" / "bank" / "token-bucket"
SHOTS = SCREENSHOTS
ROOM_SHOTS = SCREENSHOTS / "room"
SYNC_MS = 15_000
VIEWPORT = {"width": 1440, "height": 1000}


def problem_meta() -> dict[str, Any]:
    return tomllib.loads((PACKAGE / "problem.toml").read_text())


@pytest.fixture
def people(browser: Browser, platform: Platform) -> Iterator[People]:
    with people_at(browser, platform, viewport=VIEWPORT, timezone_id="Europe/Paris") as opened:
        yield opened


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"cockpit-{name}.png"), full_page=True)


def room_shot(page: Page, name: str) -> None:
    """Issue 27's screens, at 1440 and at 390 px wide."""
    ROOM_SHOTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size or VIEWPORT
    page.screenshot(path=str(ROOM_SHOTS / f"{name}-1440.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(ROOM_SHOTS / f"{name}-390.png"), full_page=True)
    page.set_viewport_size(size)


def test_schedule_invite_join_and_run_the_interview_from_the_cockpit(
    people: People, inbox: Inbox
) -> None:
    meta = problem_meta()
    private = [
        (PACKAGE / "reference.py").read_text().strip().splitlines()[-1].strip(),
        meta["follow_ups"][0],
        meta["rubric"][0]["levels"][1],
        meta["clarification"][3]["answer"],  # a canned answer never sent
        meta["hints"][1],  # never revealed
        "PRIVATE NOTE: strong on edge cases, slow start",
    ]

    # ------------------------------------------------------------ scheduling
    mail_before = len(inbox.messages)  # the inbox serves the whole run's platform
    interviewer = people.log_in("interviewer")
    # A start a few minutes ahead: the link opens ONSITE_JOIN_EARLY_MINUTES (10) before it, so
    # the candidate below may join at once (tests/e2e/test_schedule_flow.py has the waiting room).
    soon = (datetime.now(ZoneInfo("Europe/Paris")) + timedelta(minutes=4)).replace(second=0)
    day, at = soon.date().isoformat(), f"{soon:%H:%M}"
    form = interviewer.locator("#live-form")
    form.locator("select[name=problem]").select_option("token-bucket")
    form.locator("input[name=starts_date]").fill(day)
    form.locator("input[name=starts_time]").fill(at)
    form.locator("input[name=minutes]").fill("30")
    form.locator("input[name=extra_minutes]").fill("15")  # an accommodation (issue 40.5)
    form.locator("input[name=email]").fill("ada@example.com")
    form.locator("input[name=candidate]").fill("candidate")
    form.locator("input[name=call_link]").fill("https://meet.example.com/onsite-e2e")
    expect(form.locator("input[name=tz]")).to_have_value("Europe/Paris")
    shot(interviewer, "schedule")
    form.locator("button[type=submit]").click()
    expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/$"))
    session_url = interviewer.url
    expect(interviewer.locator("#invite-box")).to_contain_text("Invitation e-mailed to ada@",
                                                              timeout=60_000)
    expect(interviewer.locator("#invite-box time")).to_contain_text(at)
    interviewer.context.grant_permissions(["clipboard-read", "clipboard-write"])
    interviewer.click("#copy-invite")
    expect(interviewer.locator("#copy-invite")).to_have_text("Copied")
    invite = interviewer.input_value("#invite-url")
    assert interviewer.evaluate("navigator.clipboard.readText()") == invite
    shot(interviewer, "scheduled")

    assert len(inbox.messages) == mail_before + 1
    message = inbox.messages[mail_before]
    assert message["To"] == "ada@example.com"
    body = message.get_body(preferencelist=("plain",))
    assert body is not None and invite in body.get_content()
    (ics,) = [part for part in message.iter_attachments() if part.get_filename() == "interview.ics"]
    calendar = ics.get_content()
    calendar = calendar.decode() if isinstance(calendar, bytes) else calendar
    start = datetime.fromisoformat(f"{day}T{at}").replace(tzinfo=ZoneInfo("Europe/Paris"))
    assert "BEGIN:VEVENT" in calendar
    assert f"DTSTART:{start.astimezone(UTC):%Y%m%dT%H%M%SZ}" in calendar

    # ------------------------------------------------------------ the wrong account
    author = people.log_in("author")
    author.goto(invite)
    expect(author.locator("#join-error")).to_contain_text("another candidate")
    expect(author.locator("#join-form")).to_have_count(0)
    shot(author, "join-refused")

    # ------------------------------------------------------------ joining
    candidate = people.log_in("candidate")
    frames: list[str] = []
    candidate.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived",
            lambda payload: frames.append(
                payload if isinstance(payload, str) else payload.decode("latin-1")
            ),
        ),
    )
    candidate.goto(invite)
    expect(candidate.locator("#join-length")).to_have_text("30 minutes")
    expect(candidate.locator("#join-starts")).to_contain_text(at)
    shot(candidate, "join")
    candidate.click("#join-form button[type=submit]")
    expect(candidate).to_have_url(session_url)
    expect(candidate.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    expect(interviewer.locator("#session")).to_have_attribute(
        "data-status", "active", timeout=SYNC_MS
    )
    expect(interviewer.locator("#invite-box")).to_have_count(0)
    expect(candidate.locator("#call-link")).to_have_attribute(
        "href", "https://meet.example.com/onsite-e2e"
    )

    # ------------------------------------------------------------ time that can be adjusted
    # The granted extra time runs on the candidate's clock (30 + 15 minutes); the candidate and
    # the interviewer who granted it are told why. The interviewer gives 5 minutes more: both
    # clocks move to the server's new deadline, and the candidate hears it (a polite banner).
    for page in (candidate, interviewer):
        expect(page.locator("#accommodation")).to_contain_text("15 min extra time")
    timer = candidate.locator("#session-timer")
    expect(timer).to_have_text(re.compile(r"^4[45]:\d\d$"))
    first_deadline = timer.get_attribute("data-deadline")
    expect(candidate.locator("#extend-form")).to_have_count(0)
    interviewer.select_option("#extend-minutes", "5")
    interviewer.click("#extend-button")
    expect(candidate.locator("#session-banner")).to_contain_text("5 more minutes",
                                                                timeout=SYNC_MS)
    expect(timer).to_have_text(re.compile(r"^(49|50):\d\d$"))
    for page in (candidate, interviewer):
        expect(page.locator("#session-timer")).not_to_have_attribute(
            "data-deadline", first_deadline or "", timeout=SYNC_MS)
    room_shot(interviewer, "cockpit-extended")
    room_shot(candidate, "candidate-extended")

    # ------------------------------------------------------------ the cockpit at work
    cockpit = interviewer.locator("#cockpit")
    expect(cockpit.locator("#reference-panel")).not_to_have_attribute("open", "")
    expect(cockpit.locator(".rubric-criterion")).to_have_count(len(meta["rubric"]))

    candidate.fill("#question-form textarea", "Does the bucket start full or empty?")
    candidate.click("#question-form button[type=submit]")
    expect(interviewer.locator("#questions .answer-form")).to_have_count(1, timeout=60_000)
    cockpit.locator(".canned-send[data-index='0']").click()
    expect(candidate.locator("#questions .q-answer")).to_contain_text(
        meta["clarification"][0]["answer"], timeout=SYNC_MS
    )

    shot(interviewer, "interviewer-live")
    interviewer.click("[data-tab-button=prompts]")
    # A live candidate has no hint button of their own: the interviewer releases each one,
    # and the candidate's page says so in a banner (issue 25).
    expect(candidate.locator("#hint-button")).to_have_count(0)
    expect(candidate.locator("#hint-banner")).to_be_hidden()
    cockpit.locator("#hint-reveal").click()
    expect(candidate.locator("#session-hints .hint")).to_have_count(1, timeout=SYNC_MS)
    expect(candidate.locator("#session-hints")).to_contain_text(meta["hints"][0][:40])
    expect(candidate.locator("#hint-banner")).to_be_visible()
    expect(candidate.locator("#hint-banner")).to_contain_text("Hint 1 from your interviewer")
    expect(cockpit.locator("#hints-count")).to_have_text(f"1 of {len(meta['hints'])} revealed")
    shot(candidate, "candidate-hint-banner")
    candidate.set_viewport_size({"width": 390, "height": 844})
    shot(candidate, "candidate-hint-banner-390")
    candidate.set_viewport_size({"width": 1440, "height": 1000})

    candidate.fill("#chat-form input[name=text]", "Can I use a dict here?")
    candidate.press("#chat-form input[name=text]", "Enter")
    expect(interviewer.locator("#chat .chat-message")).to_have_count(1, timeout=SYNC_MS)
    # Another tab counts what arrived: a number badge, cleared when the tab opens (issue 27).
    live_tab = interviewer.locator("[data-tab-button=live]")
    expect(live_tab.locator("[data-tab-count]")).to_have_text("1")
    candidate.fill("#chat-form input[name=text]", "And a deque?")
    candidate.press("#chat-form input[name=text]", "Enter")
    expect(live_tab.locator("[data-tab-count]")).to_have_text("2", timeout=SYNC_MS)
    expect(live_tab).to_have_attribute("aria-label", re.compile(r"Live, 2 new"))
    shot(interviewer, "interviewer-prompts")
    room_shot(interviewer, "cockpit-unread")
    interviewer.click("[data-tab-button=live]")
    interviewer.fill("#chat-form input[name=text]", "Sure, go ahead.")
    interviewer.click("#chat-form button[type=submit]")
    expect(live_tab.locator("[data-tab-count]")).to_be_hidden()
    expect(candidate.locator("#chat .chat-message")).to_have_count(3, timeout=SYNC_MS)

    shot(interviewer, "interviewer-chat")
    # Shared and private notes: separate tabs, and they do not look alike.
    interviewer.click("[data-tab-button=notes]")
    expect(interviewer.locator("#notes-panel")).to_be_visible()
    expect(interviewer.locator("#private-notes-panel")).to_be_hidden()
    interviewer.fill("#note-form textarea", "Shared: we agreed on a dict of buckets")
    interviewer.click("#note-form button[type=submit]")
    expect(candidate.locator("#notes")).to_contain_text("we agreed on a dict", timeout=SYNC_MS)
    shot(interviewer, "interviewer-notes")
    room_shot(interviewer, "cockpit-notes-shared")
    interviewer.click("[data-tab-button=private]")
    private_panel = interviewer.locator("#private-notes-panel")
    expect(private_panel).to_be_visible()
    expect(interviewer.locator("#notes-panel")).to_be_hidden()
    expect(private_panel.locator("svg.lock")).to_be_visible()
    expect(private_panel.locator("#private-label")).to_contain_text("The candidate never does")
    backgrounds = [
        interviewer.eval_on_selector(selector, "node => getComputedStyle(node).backgroundColor")
        for selector in ("#private-notes-panel", "#notes-panel")
    ]
    assert backgrounds[0] != backgrounds[1], backgrounds
    interviewer.fill("#private-note-form textarea", private[-1])
    interviewer.click("#private-note-form button[type=submit]")
    expect(interviewer.locator("#private-notes")).to_contain_text(private[-1])
    room_shot(interviewer, "cockpit-notes-private")
    interviewer.click("[data-tab-button=rubric]")
    shot(interviewer, "interviewer-rubric")
    interviewer.click("[data-tab-button=live]")
    shot(candidate, "candidate-live")

    candidate.reload()
    expect(candidate.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    expect(candidate.locator("#hint-banner")).to_contain_text(meta["hints"][0][:40])
    candidate.click("#hint-banner-close")
    expect(candidate.locator("#hint-banner")).to_be_hidden()
    seen = candidate.content() + "\n".join(frames)
    leaked = [text for text in private if text in seen]
    assert leaked == [], f"the candidate received private material: {leaked}"
    assert "Sure, go ahead." in seen  # the search does see what was shared

    # ------------------------------------------------------------ "I'm done" ends nothing
    # Only the interviewer ends a live interview: the candidate has "I'm done" instead, which
    # tells the interviewer (a notice above the tabs, an activity entry) and ends nothing.
    expect(candidate.locator("#finish-button")).to_have_count(0)
    interviewer.click("[data-tab-button=rubric]")
    candidate.click("#done-button")
    expect(candidate.locator("#session-banner")).to_contain_text("told the interviewer")
    expect(candidate.locator("#done-button")).to_be_disabled()
    expect(interviewer.locator("#done-notice")).to_be_visible(timeout=SYNC_MS)
    expect(interviewer.locator("#done-notice")).to_contain_text("The candidate says they are done")
    expect(interviewer.locator("[data-tab-button=live] [data-tab-count]")).to_have_text("1")
    interviewer.click("[data-tab-button=live]")
    expect(interviewer.locator("#activity")).to_contain_text("said they are done")
    for page in (candidate, interviewer):
        expect(page.locator("#session")).to_have_attribute("data-status", "active")
    room_shot(candidate, "candidate-done")
    room_shot(interviewer, "cockpit-done-notice")

    # ------------------------------------------------------------ the end closes the forms
    interviewer.once("dialog", lambda dialog: dialog.accept())
    interviewer.click("#finish-button")
    for page in (candidate, interviewer):
        expect(page.locator("#session")).to_have_attribute(
            "data-status", "finished", timeout=SYNC_MS
        )
        expect(page.locator("#chat-form input[name=text]")).to_be_disabled()
        expect(page.locator("#note-form textarea")).to_be_disabled()
    expect(candidate.locator("#question-form textarea")).to_be_disabled()
    expect(interviewer.locator("#hint-reveal")).to_be_disabled()
    expect(interviewer.locator("#done-notice")).to_be_hidden()

    # After the end the interviewer's page leads to the scorecard (the review page).
    session_path = re.sub(r"^https?://[^/]+", "", session_url)
    scorecard = interviewer.locator("#scorecard-link")
    expect(scorecard).to_have_attribute("href", f"{session_path}review/")
    expect(candidate.locator("#scorecard-link")).to_have_count(0)
    room_shot(interviewer, "interviewer-ended")
    scorecard.click()
    expect(interviewer.locator("#scorecard-form")).to_be_visible()

    # The styled error pages: a 404 for a session that is not yours, a 403 for an author.
    author.goto(session_path)
    expect(author.locator("#error-page")).to_contain_text("There is nothing here")
    expect(author.locator("#error-who")).to_contain_text("signed in as author")
    room_shot(author, "error-404")
    expect(author.locator("nav a[href='/sessions/review/']")).to_have_count(0)
    author.goto("/sessions/review/")
    expect(author.locator("#error-page")).to_have_attribute("data-status", "403")
    expect(author.locator("#error-reason")).to_contain_text("interviewer role")
    room_shot(author, "error-403")
    author.click("#error-switch")
    expect(author).to_have_url(re.compile(r"/accounts/login/\?next=/sessions/review/"))


def test_cite_while_replaying_and_the_evidence_waits_on_the_review_page(people: People) -> None:
    """Issue 14, scoring in clicks: the interviewer cites the current second, a question and
    the final run on the replay into "edge cases"; the review page has them as chips on that
    criterion (labels, not codes). The candidate's replay has no scoring bar."""
    interviewer = people.log_in("interviewer")
    form = interviewer.locator("#live-form")
    form.locator("select[name=problem]").select_option("token-bucket")
    form.locator("input[name=minutes]").fill("30")
    form.locator("input[name=candidate]").fill("candidate")
    form.locator("button[type=submit]").click()
    expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/$"))
    session_path = re.sub(r"^https?://[^/]+", "", interviewer.url)
    invite = interviewer.input_value("#invite-url")

    candidate = people.log_in("candidate")
    candidate.goto(invite)
    candidate.click("#join-form button[type=submit]")
    expect(candidate.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    candidate.fill("#question-form textarea", "Can the bucket hold zero tokens?")
    candidate.click("#question-form button[type=submit]")
    expect(interviewer.locator("#questions .answer-form")).to_have_count(1, timeout=60_000)
    interviewer.once("dialog", lambda dialog: dialog.accept())
    interviewer.click("#finish-button")
    expect(candidate.locator("#session")).to_have_attribute(
        "data-status", "finished", timeout=60_000
    )

    # The candidate replays the same page without any scoring bar or cite button.
    candidate.goto(session_path + "replay/")
    expect(candidate.locator("#replay")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    expect(candidate.locator("#replay-cite")).to_have_count(0)
    expect(candidate.locator("#replay-marks button.cite")).to_have_count(0)

    # A review tab stays open while the interviewer replays in another one.
    review_tab = interviewer.context.new_page()
    review_tab.goto(session_path + "review/")
    # The interviewer comes from the rubric's "cite from the replay" link for edge cases.
    interviewer.goto(session_path + "review/")
    interviewer.click('fieldset[data-criterion="edge_cases"] a[href$="?criterion=edge_cases"]')
    expect(interviewer.locator("#replay")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
    expect(interviewer.locator("#cite-criterion")).to_have_value("edge_cases")
    # The final run is graded by the worker: reload until its mark has a verdict.
    final = interviewer.locator("#replay-marks li.item-final_submit")
    expect(final).to_have_count(1, timeout=60_000)
    status = interviewer.locator("#cite-status")
    # A moment inside the session, however short a fast machine made it: its clock is the
    # label's (whole seconds, as the replay shows them).
    moment = interviewer.evaluate("Math.min(1500, window.onsiteReplay.duration)")
    interviewer.evaluate(f"window.onsiteReplay.seek({moment})")
    interviewer.click("#cite-moment")
    clock = f"00:{int(moment // 1000):02d}"
    expect(status).to_contain_text(f"Added “{clock}")
    expect(status).to_contain_text("to Edge cases")
    interviewer.locator("#replay-marks li.item-question button.cite").click()
    expect(status).to_contain_text("Added “Question: Can the bucket hold zero tokens?”")
    final.locator("button.cite").click()
    expect(status).to_contain_text("Added “Run ")
    shot(interviewer, "replay-cite")
    interviewer.set_viewport_size({"width": 390, "height": 844})
    shot(interviewer, "replay-cite-390")
    interviewer.set_viewport_size(VIEWPORT)

    # Back on the review tab, it takes the replay's chips (so its autosave keeps them).
    review_tab.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(review_tab.locator('fieldset[data-criterion="edge_cases"] li.chip')).to_have_count(3)
    review_tab.close()

    interviewer.click("#replay-cite a.replay-cite-back")
    chips = interviewer.locator('fieldset[data-criterion="edge_cases"] li.chip')
    expect(chips).to_have_count(3)
    expect(chips.nth(0)).to_contain_text(clock)
    expect(chips.nth(1)).to_have_text(re.compile(r"^Question: Can the bucket hold zero tokens\?"))
    expect(chips.nth(2)).to_contain_text(re.compile(r"Run \d+ \(final\)"))
    expect(interviewer.locator('fieldset[data-criterion="correctness"] li.chip')).to_have_count(0)
    text = interviewer.locator("#scorecard-form").inner_text()
    assert "moment:" not in text and "submission:" not in text and "sub=" not in text
    # A chip's × removes it, and the autosave keeps the removal.
    chips.nth(0).locator("button.chip-remove").click()
    expect(chips).to_have_count(2)
    expect(interviewer.locator("#autosave-status")).to_have_attribute(
        "data-state", "saved", timeout=SYNC_MS
    )
    interviewer.reload()
    expect(chips).to_have_count(2)
    interviewer.locator('fieldset[data-criterion="edge_cases"]').scroll_into_view_if_needed()
    shot(interviewer, "review-chips")
    interviewer.set_viewport_size({"width": 390, "height": 844})
    shot(interviewer, "review-chips-390")
