"""End to end (issue 28, point 5): a custom driver's own check_input refuses a malformed test
input where the author typed it, in the test form and in the JSON lists, run in the sandbox;
the author's text stays and nothing is saved."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import Platform
from tests.e2e.studio_pages import log_in
from tests.processes import SCREENSHOTS

pytestmark = [pytest.mark.e2e, pytest.mark.docker]

SLUG = "checked-input"
SHOTS = SCREENSHOTS / "inputcheck"
SHOTS.mkdir(parents=True, exist_ok=True)
DRIVER = """def run(solution, inp):
    return solution.solve(*inp["args"])


def check_input(inp):
    if not isinstance(inp, dict) or not isinstance(inp.get("args"), list):
        return 'the input is {"args": [x]}'
    if len(inp["args"]) != 1 or not isinstance(inp["args"][0], int):
        return "x must be one integer, e.g. {\\"args\\": [3]}"
    return None
"""


def shoot(page: Page, name: str, selector: str) -> None:
    for width in (390, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        target = page.locator(selector)
        target.scroll_into_view_if_needed()
        target.screenshot(path=str(SHOTS / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 1440, "height": 900})


def open_checked_draft(page: Page, platform: Platform, slug: str) -> None:
    """A new draft graded by a custom driver with its own input check, open in the studio.
    Each test makes its own: under xdist the tests of this file may run on different
    platforms."""
    log_in(page, platform, "author", "/studio/new/")
    page.fill("input[name=slug]", slug)
    page.fill("input[name=title]", "Checked input")
    page.click("#create-button")
    expect(page).to_have_url(f"{platform.base_url}/studio/{slug}/")
    platform.shell(
        "from problems.models import ProblemVersion\n"
        f"ProblemVersion.objects.filter(problem__slug={slug!r}).update(\n"
        f"    driver={{'kind': 'custom', 'entry': ''}}, driver_code={DRIVER!r})\n"
    )
    page.reload()


def test_a_custom_drivers_check_refuses_a_malformed_input_at_the_test(
    browser: Browser, platform: Platform
) -> None:
    context = browser.new_context(base_url=platform.base_url,
                                  viewport={"width": 1440, "height": 900})  # fmt: skip
    page = context.new_page()
    open_checked_draft(page, platform, SLUG)

    # the test form: the driver's sentence under the input, the author's values kept
    page.fill("#test-form input[name=name]", "two numbers")
    page.fill("#test-form textarea[name=input]", '{"args": [1, 2]}')
    page.fill("#test-form textarea[name=expected]", "3")
    page.click("#test-save")
    form = page.locator("#test-form")
    expect(form).to_contain_text("does not fit the driver: x must be one integer")
    expect(page.locator("#test-form textarea[name=input]")).to_have_value('{"args": [1, 2]}')
    expect(page.locator("tr[data-test='two numbers']")).to_have_count(0)
    shoot(page, "test-form", "#test-form")

    # a well-formed one saves
    page.fill("#test-form textarea[name=input]", '{"args": [2]}')
    page.click("#test-save")
    expect(page.locator(".studio-message-success")).to_contain_text("Saved as draft")
    expect(page.locator("tr[data-test='two numbers']")).to_have_count(1)
    context.close()


def test_the_json_lists_name_the_refused_test(browser: Browser, platform: Platform) -> None:
    context = browser.new_context(base_url=platform.base_url,
                                  viewport={"width": 1440, "height": 900})  # fmt: skip
    page = context.new_page()
    open_checked_draft(page, platform, f"{SLUG}-lists")
    hidden = page.locator("#tests-form textarea[name=hidden_tests]")
    tests = json.loads(hidden.input_value() or "[]")
    tests.append({"name": "a string", "input": {"args": ["x"]}, "expected": 1,
                  "tag": "correctness"})  # fmt: skip
    hidden.fill(json.dumps(tests, indent=1))
    page.click("#tests-form button[type=submit]")
    form = page.locator("#tests-form")
    expect(form).to_contain_text('does not fit the driver: test "a string"')
    assert '"a string"' in page.locator("#tests-form textarea[name=hidden_tests]").input_value()
    expect(page.locator("tr[data-test='a string']")).to_have_count(0)
    shoot(page, "json-lists", "#tests-form")
    context.close()
