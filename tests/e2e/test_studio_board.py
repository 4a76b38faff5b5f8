"""End to end: an author draws a design problem's reference board in the studio (issue 38, 5).

The studio's design round form has an Excalidraw board over the reference board's JSON: the
author draws a rectangle with the mouse, the JSON under it holds it, and saving the form makes
a new draft version whose reference board has it (saved like any other part). JSON pasted by
hand shows on the board. The draft is then tried as a candidate: its try page has a board to
draw on (nothing saved). Screenshots: var/screenshots/studio-board/*.png at 1440 and 390 px.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import Platform, people_at
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SHOTS = SCREENSHOTS / "studio-board"
SEED = """
from django.contrib.auth.models import User
from tests.factories import design_problem
problem = design_problem("studio-board-e2e", reference_board=[
    {"id": "given1", "type": "ellipse", "index": "a1", "version": 1, "x": 0, "y": 0,
     "width": 160, "height": 70}])
problem.owner = User.objects.get(username="author")
problem.save(update_fields=["owner"])
print(problem.slug)
"""
NEWEST = """
from problems.models import Problem
problem = Problem.objects.get(slug="studio-board-e2e")
version = problem.versions.order_by("-number")[0]
import json
types = sorted(e["type"] for e in version.reference_board)
print(json.dumps({"number": version.number, "types": types}))
"""


def test_an_author_draws_the_reference_board_and_saves_it_as_a_version(
    browser: Browser, platform: Platform
) -> None:
    slug = platform.shell(SEED).strip().splitlines()[-1]
    before = json.loads(platform.shell(NEWEST).strip().splitlines()[-1])
    SHOTS.mkdir(parents=True, exist_ok=True)
    with people_at(browser, platform, viewport={"width": 1440, "height": 1000}) as people:
        page = people.log_in("author", f"/studio/{slug}/")
        page.locator("#board-editor summary").click()
        board = page.locator("#reference-board-editor")
        expect(board.locator(".excalidraw canvas.interactive")).to_be_visible()
        expect(board).to_have_attribute("data-count", "1")
        board.locator('[data-testid="toolbar-rectangle"]').click(force=True)
        area = board.locator("canvas.interactive").bounding_box()
        assert area is not None
        x, y = area["x"] + area["width"] * 0.45, area["y"] + area["height"] * 0.5
        page.mouse.move(x, y)
        page.mouse.down()
        for step in range(1, 6):
            page.mouse.move(x + 30 * step, y + 20 * step)
        page.mouse.up()
        expect(board).to_have_attribute("data-count", "2")
        textarea = page.locator("#board-editor textarea")
        expect(textarea).to_have_value(re.compile('"type": "rectangle"'), timeout=10_000)
        page.screenshot(path=str(SHOTS / "studio-board-1440.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(400)
        page.screenshot(path=str(SHOTS / "studio-board-390.png"), full_page=True)
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390, f"the studio scrolls sideways at 390 px ({wide} px)"
        page.set_viewport_size({"width": 1440, "height": 1000})
        page.locator("#parts-save").click()
        page.wait_for_load_state("load")
    after = json.loads(platform.shell(NEWEST).strip().splitlines()[-1])
    assert after["number"] == before["number"] + 1, (before, after)
    assert after["types"] == ["ellipse", "rectangle"], after

    # The new draft tried as a candidate: its statement and a board to draw on (not saved).
    with people_at(browser, platform, viewport={"width": 1440, "height": 1000}) as people:
        page = people.log_in("author", f"/studio/{slug}/v{after['number']}/try/")
        expect(page.locator("#tryout-note")).to_contain_text(f"Draft v{after['number']}")
        board = page.locator("#tryout-board")
        expect(board.locator(".excalidraw canvas.interactive")).to_be_visible()
        board.locator('[data-testid="toolbar-ellipse"]').click(force=True)
        area = board.locator("canvas.interactive").bounding_box()
        assert area is not None
        x, y = area["x"] + area["width"] * 0.45, area["y"] + area["height"] * 0.4
        page.mouse.move(x, y)
        page.mouse.down()
        for step in range(1, 6):
            page.mouse.move(x + 30 * step, y + 20 * step)
        page.mouse.up()
        expect(board).to_have_attribute("data-count", "1")
        page.screenshot(path=str(SHOTS / "tryout-1440.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(400)
        page.screenshot(path=str(SHOTS / "tryout-390.png"), full_page=True)
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390, f"the try page scrolls sideways at 390 px ({wide} px)"
