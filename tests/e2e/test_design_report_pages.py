"""End to end: a design round's report (the final diagram, the notes, a cited board moment once
released) and the cockpit's private reference design, in Debian's chromium at 1440 and 390 px,
under the Content-Security-Policy guard. The rows go straight into the platform's database
(`Platform.shell`); the board is real Yjs updates stored through the session's document door.

Screenshots: var/screenshots/design-report-*.png, design-review-*.png, design-cockpit-*.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import Platform, people_at
from tests.e2e.design_pages import report_seed
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SEED = report_seed("batch-api-e2e")

def test_a_design_rounds_report_and_the_cockpits_reference_design(
    browser: Browser, platform: Platform
) -> None:
    done, running = platform.shell(SEED).split()[-2:]
    for width in (1440, 390):
        with people_at(browser, platform, viewport={"width": width, "height": 900}) as people:
            candidate = people.log_in("candidate", f"/sessions/{done}/report/")
            board = candidate.locator("#report-board img.board-image")
            expect(board).to_be_visible()
            assert (
                candidate.evaluate("document.querySelector('#report-board img').naturalWidth") > 0
            )
            expect(candidate.locator("#report-board-notes")).to_contain_text("20 MB/s")
            moments = candidate.locator(".report-board-moment img")
            expect(moments).to_have_count(2)
            expect(candidate.locator(".report-board-moment figcaption").first).to_contain_text(
                "Board at 05:00"
            )
            candidate.wait_for_load_state("networkidle")
            candidate.screenshot(
                path=str(SCREENSHOTS / f"design-report-{width}.png"), full_page=True
            )

            reviewer = people.log_in("interviewer", f"/sessions/{done}/review/")
            expect(reviewer.locator("#review-board img.board-image")).to_be_visible()
            expect(reviewer.locator("#scorecard")).to_contain_text("Board at 13:00")
            reviewer.wait_for_load_state("networkidle")
            reviewer.screenshot(
                path=str(SCREENSHOTS / f"design-review-{width}.png"), full_page=True
            )

            interviewer = people.log_in("interviewer", f"/sessions/{running}/")
            tab = interviewer.locator("[data-tab-button=rubric]")
            if tab.count() and tab.is_visible():
                tab.click()
            interviewer.locator("#reference-panel summary").click()
            expect(interviewer.locator("#reference-board svg")).to_be_visible()
            expect(interviewer.locator("#reference-design-text")).to_contain_text("batcher")
            interviewer.locator("#reference-panel").scroll_into_view_if_needed()
            interviewer.screenshot(
                path=str(SCREENSHOTS / f"design-cockpit-{width}.png"), full_page=True
            )
