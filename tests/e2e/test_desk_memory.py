"""The desk keeps its promises across browsers and reloads (issue 36): editor settings are kept
for the account, so a second browser of the same user opens with them; what was typed in the
custom input survives a reload, and Reset brings the example back. A user of its own, so no
other browser test sees these settings."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.e2e.conftest import Platform
from tests.processes import SCREENSHOTS

pytestmark = [pytest.mark.e2e]
GRADING_TIMEOUT_MS = 180_000

PROBLEM = "/problems/token-bucket/"
USER = "prefs-candidate"


def _user(platform: Platform) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    platform.shell(
        "from django.contrib.auth.models import Group, User\n"
        f"u, _ = User.objects.get_or_create(username={USER!r})\n"
        f"u.set_password({platform.password!r}); u.save()\n"
        "u.groups.add(Group.objects.get_or_create(name='candidate')[0])\n"
    )


def _browser_of(browser: Browser, platform: Platform, width: int, height: int) -> BrowserContext:
    """A fresh browser (no localStorage shared with any other) signed in as USER."""
    context = browser.new_context(
        base_url=platform.base_url, viewport={"width": width, "height": height}
    )
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", USER)
    page.fill("input[name=password]", platform.password)
    page.click("form.login-form button[type=submit]")
    expect(page.locator(".user-name")).to_contain_text(USER)
    page.close()
    return context


def _desk(context: BrowserContext) -> Page:
    page = context.new_page()
    page.goto(PROBLEM)
    expect(page.locator("#editor .cm-content")).to_be_visible()
    return page


def test_settings_follow_the_user_to_another_browser(browser: Browser, platform: Platform) -> None:
    _user(platform)
    first = _browser_of(browser, platform, 1440, 900)
    page = _desk(first)
    page.click("details.editor-settings summary")
    with page.expect_response(lambda r: r.url.endswith("/accounts/editor-preferences")) as saved:
        page.select_option("#editor-prefs select[name=theme]", "dark")
    assert saved.value.status == 200
    with page.expect_response(lambda r: r.url.endswith("/accounts/editor-preferences")) as saved:
        page.select_option("#editor-prefs select[name=fontSize]", "18")
    assert saved.value.status == 200 and saved.value.json()["prefs"]["fontSize"] == 18
    expect(page.locator("#prefs-status")).to_be_hidden()  # stored: nothing to warn about
    page.screenshot(path=str(SCREENSHOTS / "desk-settings-1440.png"))
    first.close()

    for width, height, name in ((1440, 900, "1440"), (390, 844, "390")):
        second = _browser_of(browser, platform, width, height)  # another browser: no storage
        page = _desk(second)
        expect(page.locator("#editor .cm-editor")).to_have_attribute("data-theme", "dark")
        page.click("details.editor-settings summary")
        expect(page.locator("#editor-prefs select[name=theme]")).to_have_value("dark")
        expect(page.locator("#editor-prefs select[name=fontSize]")).to_have_value("18")
        page.screenshot(path=str(SCREENSHOTS / f"desk-settings-other-browser-{name}.png"))
        second.close()


def test_the_custom_input_survives_a_reload(browser: Browser, platform: Platform) -> None:
    _user(platform)
    context = _browser_of(browser, platform, 1440, 900)
    page = _desk(context)
    page.click("#tab-custom")
    box = page.locator("#custom-input")
    example = box.input_value()
    typed = '{"capacity": 7, "refill_per_second": 1, "events": []}'
    box.fill(typed)
    page.reload()
    expect(page.locator("#editor .cm-content")).to_be_visible()
    page.click("#tab-custom")
    expect(page.locator("#custom-input")).to_have_value(typed)
    page.click("#custom-reset-button")
    expect(page.locator("#custom-input")).to_have_value(example)
    page.reload()
    page.click("#tab-custom")
    expect(page.locator("#custom-input")).to_have_value(example)  # Reset is remembered too
    context.close()


@pytest.mark.docker
def test_a_custom_runs_answer_is_in_view_at_1440_by_900(
    browser: Browser, platform: Platform
) -> None:
    """The results pane below the editor puts the answer beside the input box: no scrolling."""
    _user(platform)
    context = _browser_of(browser, platform, 1440, 900)
    page = _desk(context)
    page.click("#tab-custom")
    page.click("#custom-reset-button")
    page.click("#custom-run-button")
    answer = page.locator("#custom-output .output-block").first
    expect(answer).to_be_visible(timeout=GRADING_TIMEOUT_MS)
    box, pane = answer.bounding_box(), page.locator("#pane-results").bounding_box()
    assert box is not None and pane is not None
    assert pane["y"] <= box["y"] and box["y"] + 40 <= pane["y"] + pane["height"] <= 900
    page.screenshot(path=str(SCREENSHOTS / "desk-custom-answer-1440.png"))
    context.close()


def test_on_a_phone_a_link_jumps_between_statement_and_editor(
    browser: Browser, platform: Platform
) -> None:
    _user(platform)
    context = _browser_of(browser, platform, 390, 844)
    page = _desk(context)
    to_editor = page.locator("#jump-to-editor")
    expect(to_editor).to_be_visible()
    assert (to_editor.bounding_box() or {"y": 1e9})["y"] < 844  # on the first screen
    to_editor.click()
    editor = page.locator("#pane-editor").bounding_box()
    assert editor is not None and -5 <= editor["y"] < 200
    page.screenshot(path=str(SCREENSHOTS / "desk-jump-editor-390.png"))
    page.locator("#jump-to-statement").click()
    statement = page.locator("#pane-statement").bounding_box()
    assert statement is not None and -5 <= statement["y"] < 200
    context.close()
    wide = _browser_of(browser, platform, 1440, 900)
    page = _desk(wide)
    expect(page.locator("#jump-to-editor")).to_be_hidden()  # side by side: nothing to jump to
    wide.close()
