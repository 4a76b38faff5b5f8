"""End to end in the author's studio (issue 28, points 1-3; issue 34.5), on the real platform:
one author in two tabs edits the same problem; the stale tab's save is merged with the other
tab's change, nothing is lost (an overlapping save is shown side by side: test_studio_merge.py);
the draft opens in the candidate's page
under its banner and a Run grades on it in the sandbox; a known-wrong solution opens in the
code editor; a version's contents and its diff against another are shown.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from tests.e2e.conftest import Platform
from tests.e2e.studio_pages import code_type, log_in
from tests.processes import SCREENSHOTS

pytestmark = [pytest.mark.e2e, pytest.mark.docker]

SLUG = "two-tabs"
SHOTS = SCREENSHOTS / "draft"
SHOTS.mkdir(parents=True, exist_ok=True)
RUN_TIMEOUT_MS = 120_000
WIDTHS = (390, 1280, 1440)
WRONG_CODE = "def solve(x):\n    return x + 1"


def shoot(page: Page, name: str, target: Locator | None = None) -> None:
    """The screen at each width: `target` alone (scrolled to), or the whole page."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        if target is not None:
            target.scroll_into_view_if_needed()
            target.screenshot(path=str(SHOTS / f"{name}-{width}.png"))
        else:
            page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 900})


def add_test(page: Page, name: str, x: int) -> None:
    page.fill("#test-form input[name=name]", name)
    page.fill("#test-form textarea[name=input]", f'{{"args": [{x}]}}')
    page.fill("#test-form textarea[name=expected]", str(x))
    page.click("#test-save")


def tab(context: BrowserContext, errors: list[str]) -> Page:
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page


def test_two_tabs_a_merged_save_and_the_draft_tried_as_a_candidate(
    browser: Browser, platform: Platform
) -> None:
    errors: list[str] = []
    first = browser.new_context(base_url=platform.base_url, viewport={"width": 1440, "height": 900})
    page_a = tab(first, errors)
    log_in(page_a, platform, "author", "/studio/new/")
    page_a.fill("input[name=slug]", SLUG)
    page_a.fill("input[name=title]", "Two tabs")
    page_a.click("#create-button")
    expect(page_a).to_have_url(f"{platform.base_url}/studio/{SLUG}/")

    # the same author's second tab (a context of its own), opened on v1
    second = browser.new_context(
        base_url=platform.base_url, viewport={"width": 1440, "height": 900}
    )
    page_b = tab(second, errors)
    log_in(page_b, platform, "author", f"/studio/{SLUG}/")

    # when tab A adds a test, then tab B, still on v1, adds another
    add_test(page_a, "from tab A", 5)
    expect(page_a.locator("tr[data-test='from tab A']")).to_have_count(1)
    add_test(page_b, "from tab B", 6)

    # then B's save is merged with A's (they touched different rows): both land, B is told
    expect(page_b.locator(".studio-message-info")).to_contain_text(
        "Merged with what you saved in another tab"
    )
    for name in ("sample", "from tab A", "from tab B"):
        expect(page_b.locator(f"tr[data-test='{name}']")).to_have_count(1)
    page_a.reload()
    expect(page_a.locator("tr[data-test='from tab B']")).to_have_count(1)

    # A known-wrong solution: added in the code editor, then opened again in it to edit.
    page_a.fill("#wrong input[name=file]", "wrong/plus_one.py")
    page_a.select_option("#wrong select[name=verdict]", "WA")
    page_a.fill("#wrong input[name=why]", "adds one")
    code_type(page_a, "#wrong", "code", WRONG_CODE.splitlines())
    page_a.click("#wrong-add")
    expect(page_a.locator("tr[data-wrong='wrong/plus_one.py']")).to_have_count(1)
    page_a.click("a[aria-label='Edit wrong/plus_one.py']")
    lines = page_a.locator("#wrong .studio-code-editor[data-code-for=code] .cm-line")
    expect(lines).to_have_text(WRONG_CODE.splitlines())
    expect(page_a.locator("#wrong input[name=why]")).to_have_value("adds one")
    shoot(page_a, "wrong-editor", page_a.locator("#wrong"))

    # The draft in the candidate's page, under its banner; a Run grades on it.
    page_a.goto(f"/studio/{SLUG}/")
    page_a.click("#candidate-view")
    expect(page_a.locator("#draft-banner")).to_contain_text("Draft v")
    expect(page_a.locator("#problem")).to_have_attribute("data-ready", "true")
    page_a.evaluate("code => window.onsiteEditor.setCode(code)", "def solve(x):\n    return x\n")
    page_a.click("#run-button")
    verdict = page_a.locator("#result-summary .verdict")
    expect(verdict).to_have_text("AC", timeout=RUN_TIMEOUT_MS)
    expect(page_a.locator("#result-tests")).to_contain_text("from tab B")
    shoot(page_a, "draft-candidate-view")

    # A version's contents and its diff against the one before.
    page_a.goto(f"/studio/{SLUG}/")
    page_a.locator("table.version-table tbody tr").first.locator("a").first.click()
    page_a.select_option("#against", "1")
    page_a.click("#compare-button")
    expect(page_a.locator("#compare .file-diff[data-path='tests/public.json']")).to_contain_text(
        "from tab B"
    )
    expect(page_a.locator("#contents .version-file[data-path='statement.md']")).to_be_visible()
    shoot(page_a, "version-diff", page_a.locator("#compare"))
    shoot(page_a, "version-contents", page_a.locator("#contents"))
    first.close()
    second.close()
    assert errors == [], f"uncaught errors in the page: {errors}"
