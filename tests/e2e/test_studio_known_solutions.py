"""End to end: an admin (bank problems have no owner) adds a known (leaked) solution on the
studio's problem page (issue 41.3): typed in the code editor, saved as a draft, listed.
Screenshots at 1440 and 390 px go to var/screenshots/studio-known-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import Platform
from tests.e2e.studio_pages import code_type, log_in
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

LEAKED = [
    "class TokenBucket:",
    "    def __init__(self, capacity, refill_per_sec):",
    "        self.cap = capacity",
]


def test_a_known_solution_is_added_on_the_problem_page(page: Page, platform: Platform) -> None:
    log_in(page, platform, "admin", "/studio/token-bucket/")  # bank problems: admins edit
    page.fill("#known input[name=file]", "known/forum_post.py")
    code_type(page, "#known", "code", LEAKED)
    page.click("#known-add")

    row = page.locator("#known tr[data-known='known/forum_post.py']")
    expect(row).to_be_visible()
    page.locator("#known").scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#known").screenshot(path=str(SCREENSHOTS / "studio-known-1440.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#known").screenshot(path=str(SCREENSHOTS / "studio-known-390.png"))
