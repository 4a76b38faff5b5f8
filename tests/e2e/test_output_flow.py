"""End to end (issue 26): what a candidate reads after a Run, and a double-clicked Submit.

Real platform and sandbox: a solution that prints on both streams shows them apart, a syntax
error is reported once with its line marked in the editor's gutter, and a double click on
Submit makes one submission. Screenshots of the results area at 390 and 1440 px go to
var/screenshots/output/ for a person to look at.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import Platform
from tests.e2e.run_pages import GRADING_TIMEOUT_MS, PACKAGE, log_in
from tests.processes import SCREENSHOTS

pytestmark = [pytest.mark.e2e, pytest.mark.docker]

SHOTS = SCREENSHOTS / "output"
PRINTING = 'import sys\nprint("hello from stdout")\nprint("a warning on stderr", file=sys.stderr)\n'
BROKEN = "class TokenBucket:\n    def __init__(self, capacity, rate):\n        self.capacity = (\n"


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 1000})
        page.locator(".results-pane").screenshot(path=str(SHOTS / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 1440, "height": 1000})


def test_streams_apart_a_syntax_error_once_and_a_double_click_submits_once(
    page: Page, platform: Platform
) -> None:
    log_in(page, platform)
    summary = page.locator("#result-summary")

    # stdout and stderr, each labelled, stdout first.
    reference = (PACKAGE / "reference.py").read_text()
    page.evaluate("code => window.onsiteEditor.setCode(code)", PRINTING + reference)
    page.click("#run-button")
    expect(summary.locator(".verdict")).to_have_text("AC", timeout=GRADING_TIMEOUT_MS)
    first = page.locator("tbody.test").first
    expect(first.locator(".stream-label")).to_have_text(["stdout", "stderr"])
    expect(first.locator(".stdout-text")).to_have_text("hello from stdout\n")
    expect(first.locator(".stderr-text")).to_have_text("a warning on stderr\n")
    shoot(page, "run-print")

    # A syntax error: one box naming its line, the line marked in the gutter.
    page.evaluate("code => window.onsiteEditor.setCode(code)", BROKEN)
    page.click("#run-button")
    expect(summary.locator(".verdict")).to_have_text("RE", timeout=GRADING_TIMEOUT_MS)
    expect(page.locator(".load-error")).to_have_count(1)
    expect(page.locator(".load-error-title")).to_contain_text("did not load (line 3)")
    expect(page.locator(".load-error-text")).to_contain_text("SyntaxError")
    expect(page.locator(".test-not-loaded")).not_to_have_count(0)
    expect(page.locator("#editor .cm-editor")).to_have_attribute("data-error-line", "3")
    expect(page.locator("#editor .cm-lint-marker-error")).to_have_count(1)
    shoot(page, "syntax-error")
    page.locator("#editor").screenshot(path=str(SHOTS / "syntax-error-gutter-1440.png"))

    # A double click on Submit: one submission (the platform is shared: count the new ones).
    def submits() -> int:
        count: int = page.request.get("/api/submissions?mode=submit").json()["count"]
        return count

    before = submits()
    page.evaluate("code => window.onsiteEditor.setCode(code)", reference)
    page.dblclick("#submit-button")
    expect(summary.locator(".verdict")).to_have_text("AC", timeout=GRADING_TIMEOUT_MS)
    assert submits() == before + 1
