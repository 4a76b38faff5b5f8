"""End to end: an author takes their own design draft as a solo round (issue 38, 5).

A design problem never published, owned by the author, with a draft version 2 of its own
words: on the version's studio page the author starts "Try v2 as a solo round" and lands in a
solo session that shows the draft's statement (marked "v2, not live"), its board in
Excalidraw's desktop layout to draw on, and its canned answer to a question. A candidate who
has the session's address gets the site's 404.

Screenshots at 1440 and 390 px: var/screenshots/design-draft-round/*.png.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.a11y import audit
from tests.e2e.conftest import Platform, people_at
from tests.e2e.design_pages import draw, wait_for_ids
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SHOTS = SCREENSHOTS / "design-draft-round"
SYNC_MS = 30_000
SEED = """
from django.contrib.auth.models import User
from problems.models import Problem, ProblemVersion
from tests.factories import design_problem

problem = design_problem("design-draft-round-e2e")
problem.owner = User.objects.get(username="author")
problem.published = False
problem.save()
draft = ProblemVersion.objects.get(pk=problem.live_version_id)
draft.pk = None
draft.number = 2
draft.statement_md = "Design a **ticket booking service** for a stadium of 80,000 seats."
draft.clarifications = [{"question": "Can two people book the same seat?",
                         "answer": "Never: a seat is held for ten minutes, then sold once.",
                         "keywords": ["seat", "same"]}]
draft.validation = ProblemVersion.Validation.DRAFT
draft.save()
print(problem.slug)
"""


def test_an_author_takes_the_draft_as_a_solo_round(browser: Browser, platform: Platform) -> None:
    slug = platform.shell(SEED).strip().splitlines()[-1]
    SHOTS.mkdir(parents=True, exist_ok=True)
    with people_at(browser, platform, viewport={"width": 1440, "height": 900}) as people:
        page = people.log_in("author", f"/studio/{slug}/v2/")
        form = page.locator("#version-solo-form")
        form.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "studio-version-1440.png"))
        page.set_viewport_size({"width": 390, "height": 844})
        form.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "studio-version-390.png"))
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.set_viewport_size({"width": 1440, "height": 900})
        page.locator("#version-solo-minutes").select_option("30")
        page.locator("#version-solo-button").click()
        expect(page).to_have_url(re.compile(r"/sessions/\d+/$"))
        session_url = page.url.removeprefix(platform.base_url)
        expect(page.locator("#version-round")).to_contain_text("v2, not live")
        expect(page.locator(".statement")).to_contain_text("ticket booking service")
        expect(page.locator(".statement")).not_to_contain_text("batch inference API")
        expect(page.locator("#session-board .excalidraw canvas.interactive")).to_be_visible()
        assert "excalidraw--mobile" not in (
            page.locator("#session-board .excalidraw").get_attribute("class") or "")
        draw(page, "rectangle", (0.3, 0.3, 0.5, 0.5))
        wait_for_ids(page, 1)
        page.fill("#question-form textarea", "Can two people book the same seat?")
        page.click("#question-form button[type=submit]")
        expect(page.locator("#questions > li")).to_contain_text("held for ten minutes",
                                                                 timeout=SYNC_MS)
        page.screenshot(path=str(SHOTS / "draft-round-1440.png"))
        assert audit(page, "draft round") == []
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(400)
        page.screenshot(path=str(SHOTS / "draft-round-390.png"), full_page=True)
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390, f"the round scrolls sideways at 390 px ({wide} px)"

        # A candidate never reaches the draft, not even with the round's address.
        other = people.log_in("candidate", "/sessions/")
        response = other.goto(session_url)
        assert response is not None and response.status == 404
        expect(other.locator("body")).not_to_contain_text("ticket booking service")
