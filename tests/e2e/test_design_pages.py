"""Design problems on the real platform at 1440 and 390 px (issue 29): the list's Design badge,
a design problem's page (no desk; a card that starts a solo design round, which opens the
session), and the studio's design editor with its board field. Screenshots for a person to
look at go to tests.processes.SCREENSHOTS."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import Platform
from tests.e2e.layout import WIDTHS, Watch, assert_fits, context_for
from tests.processes import SCREENSHOTS

pytestmark = [pytest.mark.e2e]

SLUG = "batch-inference-api"
LOAD = (
    "from problems.package import package_read\n"
    "from problems.services import BANK_DIR, problem_load\n"
    f"problem_load(package=package_read(BANK_DIR / {SLUG!r}))\n"
)


@pytest.mark.parametrize("size", list(WIDTHS))
def test_design_pages_fit_and_start_a_design_round(
    browser: Browser, platform: Platform, size: str
) -> None:
    platform.shell(LOAD)
    width, height = WIDTHS[size]
    watch = Watch()
    context = context_for(browser, platform, "candidate", width, height)
    page = context.new_page()
    watch.attach(page)

    page.goto("/")
    row = page.locator(f"tr[data-slug='{SLUG}']")
    expect(row.locator(".kind-badge.design")).to_have_text("Design")
    assert_fits(page, "problems-design", width)
    page.screenshot(path=str(SCREENSHOTS / f"problems-design-{width}.png"), full_page=True)

    page.goto(f"/problems/{SLUG}/")
    expect(page.locator("#design-start")).to_be_visible()
    assert page.locator("#desk, #editor, #run-button").count() == 0
    page.locator(".hint-button").click()
    expect(page.locator(".hints")).to_contain_text("unit of work")
    assert_fits(page, "problem-design", width)
    page.screenshot(path=str(SCREENSHOTS / f"problem-design-{width}.png"), full_page=True)
    page.select_option("#design-minutes", "30")
    page.click("#design-start-button")
    expect(page).to_have_url(re.compile(r"/sessions/\d+/$"))
    context.close()

    admin = context_for(browser, platform, "admin", width, height)
    studio = admin.new_page()
    watch.attach(studio)
    studio.goto(f"/studio/{SLUG}/")
    expect(studio.locator("#parts-title")).to_contain_text("Design round")
    assert studio.locator("#test-table, #wrong-form").count() == 0
    studio.locator("#board-editor summary").click()
    expect(studio.locator("textarea[name=reference_board]")).to_be_visible()
    assert_fits(studio, "studio-design", width)
    studio.screenshot(path=str(SCREENSHOTS / f"studio-design-{width}.png"), full_page=True)
    assert watch.problems == []
    # A malformed board is refused at its field (a 400, by design).
    studio.fill("textarea[name=reference_board]", '[{"id": "a", "type": "blob"}]')
    studio.click("#parts-save")
    expect(studio.locator("#id_reference_board-errors")).to_contain_text("[0].type")
    expect(studio.locator("#board-editor")).to_have_attribute("open", "")
    studio.screenshot(path=str(SCREENSHOTS / f"studio-design-board-error-{width}.png"))
    admin.close()
