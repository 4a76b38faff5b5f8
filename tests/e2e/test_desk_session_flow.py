"""End to end: the desk in a live session (issue 26), everything real (daphne, Redis, the
Celery worker, the Docker sandbox). The candidate runs a custom input and the file in the
console from the session page; both run in the sandbox, both pages show the outcome, and the
interviewer sees each on the live Activity list and on the replay's timeline.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import People, Platform, people_at

pytestmark = [pytest.mark.e2e, pytest.mark.docker]

GRADING_TIMEOUT_MS = 180_000
SYNC_TIMEOUT_MS = 15_000


@pytest.fixture
def pages(browser: Browser, platform: Platform) -> Iterator[People]:
    with people_at(browser, platform, viewport={"width": 1440, "height": 900}) as opened:
        yield opened


def wait_ready(page: Page) -> None:
    expect(page.locator("#session")).to_have_attribute(
        "data-ready", "true", timeout=SYNC_TIMEOUT_MS
    )


def test_custom_input_and_console_runs_in_a_live_session_reach_the_interviewer(
    pages: People,
) -> None:
    interviewer = pages.log_in("interviewer")
    interviewer.select_option("#live-form select[name=problem]", "token-bucket")
    interviewer.fill("#live-form input[name=minutes]", "30")
    interviewer.fill("#live-form input[name=candidate]", "candidate")
    interviewer.click("#live-form button[type=submit]")
    expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/$"))
    session_url = interviewer.url
    invite = interviewer.input_value("#invite-url")
    wait_ready(interviewer)

    candidate = pages.log_in("candidate")
    candidate.goto(invite)
    candidate.click("#join-form button[type=submit]")
    expect(candidate).to_have_url(session_url)
    wait_ready(candidate)
    expect(interviewer.locator("#session")).to_have_attribute(
        "data-status", "active", timeout=SYNC_TIMEOUT_MS
    )

    # A custom input, from the candidate's desk (the example is already in the box).
    candidate.click("#tab-custom")
    candidate.click("#custom-run-button")
    for page in (candidate, interviewer):
        expect(page.locator("#custom-output")).to_have_attribute(
            "data-state", "shown", timeout=GRADING_TIMEOUT_MS
        )
        expect(page.locator("#custom-output .scratch-head")).to_be_visible()
    assert interviewer.input_value("#custom-input") == candidate.input_value("#custom-input")
    expect(interviewer.locator("#activity")).to_contain_text("ran the code on a custom input")

    # The file in the console: a print the candidate adds shows on both sides.
    candidate.evaluate(
        "window.onsiteSession.setCode(window.onsiteSession.getCode()"
        ' + \'\\nif __name__ == "__main__":\\n    print("from the console")\\n\')'
    )
    candidate.click("#tab-console")
    candidate.click("#script-run-button")
    for page in (candidate, interviewer):
        expect(page.locator("#console-output .console .output-text")).to_have_text(
            "from the console\n", timeout=GRADING_TIMEOUT_MS
        )
    expect(interviewer.locator("#activity")).to_contain_text("ran the file in the console")

    # The replay's timeline has both.
    interviewer.goto(session_url + "replay/")
    marks = interviewer.locator(".mark-item")
    expect(marks.filter(has_text="Custom input run")).to_have_count(1, timeout=SYNC_TIMEOUT_MS)
    expect(marks.filter(has_text="Console run")).to_have_count(1)
