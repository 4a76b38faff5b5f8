"""End to end: review in Debian's chromium.

The interviewer schedules a live session, the candidate joins and ends it (the server submits
the final code); the interviewer replays the session, scores every rubric criterion with
evidence (a moment of the timeline and the final submission), submits and releases; the
candidate opens the feedback report and its PDF. Everything is real (daphne, Redis, the Celery
worker, the Docker sandbox): `platform` and `browser` come from tests/e2e/conftest.py.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import People
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e
SHOTS = SCREENSHOTS

TIMEOUT_MS = 60_000


def clock(ms: int) -> str:
    return f"{ms // 60000:02d}:{ms // 1000 % 60:02d}"


def test_interviewer_scores_with_evidence_and_the_candidate_reads_the_report(
    people: People,
) -> None:
    interviewer = people.log_in("interviewer")
    interviewer.select_option("#live-form select[name=problem]", "token-bucket")
    interviewer.fill("#live-form input[name=minutes]", "30")
    interviewer.fill("#live-form input[name=candidate]", "candidate")
    interviewer.click("#live-form button[type=submit]")
    expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/$"))
    session_url = interviewer.url
    session_path = re.sub(r"^https?://[^/]+", "", session_url)
    invite = interviewer.input_value("#invite-url")

    candidate = people.log_in("candidate")
    candidate.goto(invite)
    candidate.click("#join-form button[type=submit]")
    expect(candidate).to_have_url(session_url)
    expect(candidate.locator("#session")).to_have_attribute(
        "data-status", "active", timeout=TIMEOUT_MS
    )
    # The page wires its buttons when it is ready: a click before that does nothing.
    expect(candidate.locator("#session")).to_have_attribute(
        "data-ready", "true", timeout=TIMEOUT_MS
    )
    # Only the interviewer ends a live interview (issue 27).
    expect(interviewer.locator("#session")).to_have_attribute(
        "data-ready", "true", timeout=TIMEOUT_MS
    )
    interviewer.once("dialog", lambda dialog: dialog.accept())
    interviewer.click("#finish-button")
    expect(candidate.locator("#session")).to_have_attribute(
        "data-status", "finished", timeout=TIMEOUT_MS
    )

    # The interviewer replays the session to the end.
    interviewer.goto(session_path + "replay/")
    expect(interviewer.locator("#replay")).to_have_attribute(
        "data-ready", "true", timeout=TIMEOUT_MS
    )
    interviewer.select_option("#replay-speed", "32")
    interviewer.click("#replay-play")
    expect(interviewer.locator("#replay")).to_have_attribute(
        "data-playing", "false", timeout=TIMEOUT_MS
    )

    # From the dashboard to the review page; evidence: a timeline moment and the final run.
    interviewer.goto("/sessions/review/?status=finished")
    interviewer.click(f'a.review-link[href="{session_path}review/"]')
    expect(interviewer.locator("#scorecard-form")).to_be_visible()
    run_id = (interviewer.locator(".review-run").last.get_attribute("id") or "").removeprefix(
        "sub-"
    )
    assert run_id.isdigit()
    moment = int(interviewer.locator(".timeline-marks li").last.get_attribute("data-t") or "0")
    criteria = interviewer.locator("fieldset.criterion")
    names = [criteria.nth(i).get_attribute("data-criterion") for i in range(criteria.count())]
    assert "correctness" in names
    for name in names:
        interviewer.check(f'fieldset.criterion[data-criterion="{name}"] input[value="3"]')
    # Evidence is cited from the timeline and the runs into the criterion being scored, as
    # chips (hidden inputs), never typed.
    interviewer.click('fieldset.criterion[data-criterion="correctness"] .cite-target-button')
    interviewer.locator(".timeline-marks li").last.locator("button.cite").click()
    interviewer.locator(f"#sub-{run_id} button.cite").click()
    chips = interviewer.locator('fieldset.criterion[data-criterion="correctness"] li.chip')
    expect(chips).to_have_count(2)
    expect(chips.first).to_contain_text(clock(moment))
    expect(chips.last).to_contain_text("Run ")
    expect(interviewer.locator('input[name="evidence-correctness"]')).to_have_count(2)
    assert [
        interviewer.locator('input[name="evidence-correctness"]').nth(i).input_value()
        for i in range(2)
    ] == [f"moment:{moment // 1000 * 1000}", f"submission:{run_id}"]
    interviewer.fill('textarea[name="comment-correctness"]', "INTERVIEWER-ONLY comment")
    interviewer.select_option("select[name=recommendation]", "yes")
    interviewer.click("#scorecard-submit")
    expect(interviewer.locator("#scorecard-submitted")).to_contain_text("Yes")
    table = interviewer.locator("#scorecard .scorecard-table")
    expect(table.locator("a.evidence-link").first).to_contain_text(clock(moment))
    links = interviewer.locator("#scorecard .scorecard-table a.evidence-link")
    expect(links).to_have_count(2)
    assert links.first.get_attribute("href") == f"{session_path}replay/#t={moment // 1000 * 1000}"
    assert links.last.get_attribute("href") == f"#sub-{run_id}"
    interviewer.click("#release-button")
    expect(interviewer.locator("#released")).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    interviewer.screenshot(path=str(SHOTS / "review-page.png"), full_page=True)
    interviewer.goto("/sessions/review/")
    interviewer.screenshot(path=str(SHOTS / "review-dashboard.png"), full_page=True)

    # The candidate's report: released outcome, aggregates only, the PDF.
    candidate.goto(session_path + "report/")
    expect(candidate.locator("#report-recommendation")).to_have_text("Yes")
    expect(candidate.locator("#report-outcome")).to_contain_text("Correctness: 3.0 / 4")
    expect(candidate.locator("#report-timeline svg")).to_have_count(1)
    # Released scores come with the interviewer's comments (issue 14); evidence stays theirs.
    expect(candidate.locator(".report-comments")).to_contain_text("INTERVIEWER-ONLY comment")
    assert f"sub={run_id}" not in candidate.content()
    pdf_href = candidate.get_attribute("#report-pdf", "href") or ""
    response = candidate.request.get(pdf_href)
    assert response.status == 200 and response.headers["content-type"] == "application/pdf"
    assert response.body().startswith(b"%PDF-")
    candidate.screenshot(path=str(SHOTS / "report.png"), full_page=True)
