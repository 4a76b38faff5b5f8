"""End to end: two authors draw on one design draft's reference board (issue 38, 5), in two
browsers. The board follows the studio's rule for every part (issue 34.5): a save based on an
older version is merged, element by element, with what was saved since; where both changed
the same element it is refused with both sides and a choice. Nothing either drew is dropped.

The author draws a rectangle and saves; the co-author, whose page still holds the older
version, draws a diamond and saves: merged ("both are kept"), the new version has the given
ellipse, the rectangle and the diamond. Then both move every element (select all, arrow keys)
from the same version: the second save is refused (409) with each element both ways; the
co-author keeps theirs and saves. Screenshots: var/screenshots/studio-board-merge/*.png.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import Platform, people_at
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

SHOTS = SCREENSHOTS / "studio-board-merge"
SLUG = "studio-board-merge-e2e"
COAUTHOR = "boardcoauthor"
SEED = f"""
from django.contrib.auth.models import Group, User
from tests.factories import design_problem
co, _ = User.objects.get_or_create(username={COAUTHOR!r})
co.set_password({{password!r}})
co.save()
co.groups.add(Group.objects.get_or_create(name="author")[0])
problem = design_problem({SLUG!r}, reference_board=[
    {{"id": "given1", "type": "ellipse", "index": "a1", "version": 1, "x": 0, "y": 0,
     "width": 160, "height": 70}}])
problem.published = False
problem.owner = User.objects.get(username="author")
problem.save()
problem.coauthors.add(co)
"""
NEWEST = f"""
import json
from problems.models import Problem
version = Problem.objects.get(slug={SLUG!r}).versions.order_by("-number")[0]
board = {{e["id"]: [e["type"], e["x"], e["y"]] for e in version.reference_board}}
print(json.dumps({{"number": version.number, "board": board}}))
"""


def newest(platform: Platform) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(platform.shell(NEWEST).strip().splitlines()[-1])
    return result


def open_board(page: Page) -> None:
    page.locator("#board-editor summary").click()
    expect(page.locator("#reference-board-editor .excalidraw canvas.interactive")).to_be_visible()


def draw(page: Page, tool: str, at: tuple[float, float]) -> None:
    board = page.locator("#reference-board-editor")
    count = int(board.get_attribute("data-count") or "0")
    board.locator(f'[data-testid="toolbar-{tool}"]').click(force=True)
    area = board.locator("canvas.interactive").bounding_box()
    assert area is not None
    x, y = area["x"] + area["width"] * at[0], area["y"] + area["height"] * at[1]
    page.mouse.move(x, y)
    page.mouse.down()
    for step in range(1, 6):
        page.mouse.move(x + 20 * step, y + 14 * step)
    page.mouse.up()
    page.keyboard.press("Escape")
    expect(board).to_have_attribute("data-count", str(count + 1))
    # The board writes its JSON a moment after the stroke: the form saves what it holds.
    expect(page.locator("#board-editor textarea")).to_have_value(
        re.compile(f'"type": "{tool}"'), timeout=10_000)


def move_all(page: Page, key: str) -> None:
    """Select every element on the board and move it 5 px with Shift and the arrow `key`."""
    board = page.locator("#reference-board-editor")
    board.evaluate("(board) => board.scrollIntoView({block: 'start'})")
    area = board.locator("canvas.interactive").bounding_box()
    assert area is not None
    before = page.locator("#board-editor textarea").input_value()
    # An empty place of the canvas (under the Library button, right of the shapes): the click
    # gives the board the keyboard.
    page.mouse.click(area["x"] + area["width"] * 0.95, area["y"] + 150)
    page.keyboard.press("Control+a")
    page.keyboard.press(f"Shift+{key}")
    expect(page.locator("#board-editor textarea")).not_to_have_value(before, timeout=10_000)


def save(page: Page) -> None:
    page.locator("#parts-save").click()
    page.wait_for_load_state("load")


def test_a_stale_save_of_the_reference_board_is_merged_or_shown_as_a_conflict(
    browser: Browser, platform: Platform
) -> None:
    platform.shell(SEED.replace("{password!r}", repr(platform.password)))
    start = newest(platform)
    SHOTS.mkdir(parents=True, exist_ok=True)
    with people_at(browser, platform, viewport={"width": 1440, "height": 1000}) as people:
        author = people.log_in("author", f"/studio/{SLUG}/")
        coauthor = people.log_in(COAUTHOR, f"/studio/{SLUG}/")
        for page in (author, coauthor):
            open_board(page)

        # Different elements: the stale save is merged, nothing dropped.
        draw(author, "rectangle", (0.55, 0.55))
        save(author)
        expect(author.locator(".studio-message-success")).to_contain_text("Saved as draft")
        draw(coauthor, "diamond", (0.35, 0.65))
        save(coauthor)
        expect(coauthor.locator(".studio-messages")).to_contain_text(
            "Merged with author's changes")
        merged = newest(platform)
        assert merged["number"] == start["number"] + 2, (start, merged)
        assert sorted(t for t, _, _ in merged["board"].values()) == [
            "diamond", "ellipse", "rectangle"], merged
        open_board(coauthor)
        expect(coauthor.locator("#reference-board-editor")).to_have_attribute("data-count", "3")
        coauthor.screenshot(path=str(SHOTS / "merged-1440.png"), full_page=True)

        # The same elements, moved both ways from one version: refused, both sides shown.
        author.reload()
        open_board(author)
        move_all(author, "ArrowRight")
        move_all(coauthor, "ArrowDown")
        save(author)
        expect(author.locator(".studio-message-success")).to_contain_text("Saved as draft")
        theirs = newest(platform)
        save(coauthor)
        conflict = coauthor.locator("#parts #conflict")
        expect(conflict).to_be_visible()
        expect(conflict.locator(".conflict-title")).to_contain_text(
            "you and author changed the same place")
        expect(conflict.locator(".hunk")).to_have_count(3)
        expect(conflict.locator(".hunk legend").first).to_contain_text("board element")
        # What the author changed since, as a file of the package: the board, one element a line.
        expect(conflict.locator(".conflict-diff summary")).to_contain_text("(1 file)")
        assert newest(platform)["number"] == theirs["number"], "the refused save stored nothing"
        # The co-author's board still shows their own drawing, and the form their values.
        expect(coauthor.locator("#reference-board-editor")).to_have_attribute("data-count", "3")
        conflict.scroll_into_view_if_needed()
        conflict.screenshot(path=str(SHOTS / "conflict-1440.png"))
        coauthor.set_viewport_size({"width": 390, "height": 844})
        coauthor.wait_for_timeout(300)
        conflict.screenshot(path=str(SHOTS / "conflict-390.png"))
        wide = coauthor.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390, f"the conflict scrolls sideways at 390 px ({wide} px)"
        coauthor.set_viewport_size({"width": 1440, "height": 1000})
        coauthor.click("#reapply")  # "Keep mine" is chosen at every place
        expect(coauthor.locator(".studio-message-success")).to_contain_text("Saved as draft")
    final = newest(platform)
    assert final["number"] == theirs["number"] + 1
    for ident, (_, x, y) in final["board"].items():
        _, their_x, their_y = theirs["board"][ident]
        # The author moved right, the co-author down: the co-author's positions were kept.
        assert (x, y) == (their_x - 5, their_y + 5), (ident, theirs, final)
