"""Every page at 1440 and 390 px on the real platform: no horizontal scroll, a collapsible
nav, a favicon, a skip link, no console errors; and the desk's scratch runs (custom input with
the reference's answer, the file as a script) through the real queue and Docker sandbox.

Screenshots go to var/screenshots/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import Platform
from tests.e2e.layout import WIDTHS, Watch, assert_fits, context_for
from tests.processes import SCREENSHOTS

pytestmark = [pytest.mark.e2e, pytest.mark.docker]

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "problems" / "bank" / "token-bucket"
GRADING_TIMEOUT_MS = 180_000
# Pages per role: (name, path). A session page is opened by starting a solo session.
PAGES = {
    "anonymous": [("login", "/accounts/login/"), ("problems-anonymous", "/")],
    "candidate": [
        ("problems", "/"),
        ("problems-filtered", "/?difficulty=easy&q=bucket"),
        ("problem", "/problems/token-bucket/"),
        ("history", "/submissions/"),
        ("sessions", "/sessions/"),
        ("session-history", "/sessions/history/"),
    ],
    "interviewer": [("review", "/sessions/review/"), ("sessions-interviewer", "/sessions/")],
    "author": [("studio", "/studio/"), ("studio-problem", "/studio/token-bucket/")],
}


def check_page(page: Page, name: str, size: str, width: int) -> None:
    page.wait_for_load_state("networkidle")
    assert_fits(page, name, width)
    # A favicon, and a skip link that is the first thing Tab reaches and leads to the content.
    favicon = page.locator("link[rel=icon]").get_attribute("href")
    assert favicon and page.request.get(favicon).status == 200
    first = page.evaluate(
        "() => document.querySelector('a[href], button, input:not([type=hidden]), select,"
        ' textarea, [tabindex]:not([tabindex="-1"])\').className'
    )
    assert first == "skip-link", f"{name}: the first focusable element is .{first}"
    skip = page.locator(".skip-link")
    skip.focus()
    assert skip.bounding_box()["y"] >= 0  # type: ignore[index]  # shown while focused
    skip.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    if size == "phone":
        toggle = page.locator("#nav-toggle")
        expect(toggle).to_be_visible()
        expect(page.locator("#site-menu")).to_be_hidden()
        toggle.click()
        expect(page.locator("#site-menu .site-nav")).to_be_visible()
        expect(toggle).to_have_attribute("aria-expanded", "true")
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}-menu.png"))
        toggle.click()
        expect(page.locator("#site-menu")).to_be_hidden()
    else:
        expect(page.locator("#nav-toggle")).to_be_hidden()
        expect(page.locator(".site-nav")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=size == "phone")


@pytest.mark.parametrize("size", list(WIDTHS))
def test_every_page_fits_the_screen_with_a_menu_favicon_skip_link_and_no_errors(
    browser: Browser, platform: Platform, size: str
) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    width, height = WIDTHS[size]
    watch = Watch()
    for role, pages in PAGES.items():
        context = context_for(browser, platform, role, width, height)
        try:
            page = context.new_page()
            watch.attach(page)
            for name, path in pages:
                page.goto(path)
                check_page(page, name, size, width)
            if role == "candidate":  # the interview session page (the shared editor)
                page.goto("/sessions/")
                page.select_option("#solo-form select[name=problem]", "token-bucket")
                page.click("#solo-form button[type=submit]")
                expect(page).to_have_url(re.compile(r"/sessions/\d+/$"))
                check_page(page, "session", size, width)
        finally:
            context.close()
    assert watch.problems == [], "\n".join(watch.problems)


def newest_history_item(page: Page) -> str | None:
    """The id of the newest submission in the practice history (None when it is empty)."""
    page.goto("/submissions/")
    page.wait_for_load_state()
    items = page.locator(".history-item")
    return items.first.get_attribute("data-submission") if items.count() else None


def test_custom_input_and_the_console_run_in_the_real_sandbox(
    browser: Browser, platform: Platform
) -> None:
    context = context_for(browser, platform, "candidate", 1440, 900)
    watch = Watch()
    try:
        page = context.new_page()
        watch.attach(page)
        # The platform serves the whole run: earlier flows may have left submissions.
        newest_before = newest_history_item(page)
        page.goto("/problems/token-bucket/")
        expect(page.locator("#problem")).to_have_attribute("data-ready", "true")
        reference = (PACKAGE / "reference.py").read_text()
        page.evaluate("code => window.onsiteEditor.setCode(code)", reference)

        # Custom input: prefilled from a public test, answered beside the reference's answer.
        page.click("#tab-custom")
        assert '"ops"' in page.locator("#custom-input").input_value()
        page.click("#custom-run-button")
        output = page.locator("#custom-output")
        expect(output).to_contain_text("Same answer as the reference", timeout=GRADING_TIMEOUT_MS)
        expect(output.locator(".output-block")).to_have_count(3)  # yours, reference, stdout
        page.screenshot(path=str(SCREENSHOTS / "problem-custom-input-1440.png"))

        # The console: the whole file as a script.
        script = "print('hello from main')\nimport sys\nprint('warn', file=sys.stderr)\n"
        page.evaluate("code => window.onsiteEditor.setCode(code)", script)
        page.click("#tab-console")
        page.click("#script-run-button")
        console = page.locator("#console-output .console .output-text")
        # stdout and stderr apart (issue 26.3), each in its own labelled block.
        expect(console).to_have_text(["hello from main\n", "warn\n"], timeout=GRADING_TIMEOUT_MS)
        page.screenshot(path=str(SCREENSHOTS / "problem-console-1440.png"))

        # Neither appears in the practice history (Run and Submit only).
        assert newest_history_item(page) == newest_before

        # Submit a known-wrong solution: each failing category names its worst verdict, and
        # the submission then shows in the history with its verdict and code.
        page.goto("/problems/token-bucket/")
        expect(page.locator("#problem")).to_have_attribute("data-ready", "true")
        wrong = (PACKAGE / "wrong" / "starts_empty.py").read_text()
        page.evaluate("code => window.onsiteEditor.setCode(code)", wrong)
        page.click("#submit-button")
        summary = page.locator("#result-summary")
        expect(summary.locator(".verdict")).to_have_text("WA", timeout=GRADING_TIMEOUT_MS)
        expect(summary.locator(".by-tag .tag-fail").first).to_contain_text("— wrong answer")
        page.screenshot(path=str(SCREENSHOTS / "problem-submit-1440.png"))
        newest = newest_history_item(page)
        assert newest is not None and newest != newest_before
        newest_item = page.locator(".history-item").first
        expect(newest_item.locator(".verdict")).to_have_text("WA")
        newest_item.locator(".history-code summary").click()
        expect(newest_item.locator(".history-code pre")).to_contain_text("class TokenBucket")
        page.screenshot(path=str(SCREENSHOTS / "history-after-submit-1440.png"))
    finally:
        context.close()
    assert watch.problems == [], "\n".join(watch.problems)
