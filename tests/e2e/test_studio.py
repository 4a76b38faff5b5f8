"""End to end in the studio: an author edits the statement with the live htmx preview, then
validates the live version and reads the report that htmx polls in as the Celery worker
finishes (real daphne, worker and Docker sandbox, as in test_run_flow)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import Platform

pytestmark = [pytest.mark.e2e, pytest.mark.docker]

STUDIO_URL = "/studio/token-bucket/"
VALIDATION_TIMEOUT_MS = 240_000  # seven sandbox runs on a busy two-core machine


@pytest.fixture
def page(browser: Browser, platform: Platform) -> Iterator[Page]:
    context = browser.new_context(
        base_url=platform.base_url, viewport={"width": 1400, "height": 1000}
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"


def test_author_previews_the_statement_and_validates_the_live_version(
    page: Page, platform: Platform
) -> None:
    page.goto(STUDIO_URL)
    page.fill("input[name=username]", "author")
    page.fill("input[name=password]", platform.password)
    page.click("form.login-form button[type=submit]")
    expect(page).to_have_url(platform.base_url + STUDIO_URL)

    # Live preview: typing posts the Markdown; the sanitised, highlighted HTML comes back.
    page.evaluate("window.__sameDocument = true")
    page.fill(
        "textarea[name=statement_md]",
        "# Preview check\n\n```python\ndef take(now):\n    return True\n```\n\n"
        "<script>window.__pwned = true</script>\n",
    )
    preview = page.locator("#statement-preview")
    expect(preview.locator("h1")).to_have_text("Preview check")
    expect(preview.locator(".codehilite .k").first).to_have_text("def")
    assert preview.locator("script").count() == 0
    assert page.evaluate("window.__pwned === undefined && window.__sameDocument") is True
    page.screenshot(path="/tmp/onsite-e2e-studio-problem.png", full_page=True)

    # Validate v1: the worker grades every solution; the polled panel shows the report.
    page.click("a[href='/studio/token-bucket/v1/']")
    page.click("#validate-button")
    panel = page.locator("#version-panel")
    expect(panel).to_have_attribute("data-state", "passed", timeout=VALIDATION_TIMEOUT_MS)
    expect(panel.locator("tr[data-check='reference.py'] .state")).to_have_text("pass")
    expect(panel.locator("tr.check-fail")).to_have_count(0)
    expect(page.locator("#suggested-limit")).to_contain_text(" s")
    page.screenshot(path="/tmp/onsite-e2e-studio-version.png", full_page=True)
