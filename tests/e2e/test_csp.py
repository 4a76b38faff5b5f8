"""The Content-Security-Policy (core/csp.py) in a real browser, against the real platform.

The Markdown sanitiser (core/markdown.py) already drops scripts, handlers and styles from an
author's statement; the policy is what stops them should some ever get past it. So the first
test plants them past the sanitiser: the problem page's real response (the real header) with
markup written into its statement, as a sanitiser bug would leave it. The rest open the pages
whose scripts are not the site's bundles (the Django admin, Swagger UI) and watch the policy
refuse nothing there (the `csp_guard` fixture, tests/e2e/conftest.py, fails any test whose
pages hit a violation).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, ViewportSize, expect

from core.csp import CURSOR_COLORS
from tests.csp import CspGuard
from tests.e2e.conftest import People, Platform, people_at

pytestmark = [pytest.mark.e2e]

PROBLEM_URL = "/problems/token-bucket/"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PHONE: ViewportSize = {"width": 390, "height": 844}
SYNC_MS = 20_000
PLANTED = (
    '<p id="planted">'
    "<script>window.__planted = 'script'</script>"
    '<img src="/no-such-image.png" onerror="window.__planted = \'handler\'">'
    '<span id="planted-style" style="color: rgb(255, 0, 0)">styled</span>'
    "</p>"
)


def _plant(route: Route) -> None:
    """The page as the server answered it, headers and all, with PLANTED in the statement."""
    response = route.fetch()
    html = response.text()
    assert 'class="statement' in html
    marker = html.index(">", html.index('class="statement')) + 1
    route.fulfill(response=response, body=html[:marker] + PLANTED + html[marker:])


def test_markup_planted_in_a_statement_neither_runs_nor_styles(
    people: People, csp_guard: CspGuard
) -> None:
    page = people.log_in("candidate", next_url=PROBLEM_URL)
    page.route(f"**{PROBLEM_URL}", _plant)
    page.reload()
    page.wait_for_load_state("load")

    expect(page.locator("#planted-style")).to_have_text("styled")
    assert page.evaluate("window.__planted") is None
    assert page.locator("#planted-style").evaluate("e => getComputedStyle(e).color") != (
        "rgb(255, 0, 0)"
    )
    # The site's own scripts still run, and CodeMirror's nonce'd styles still apply.
    expect(page.locator("#problem")).to_have_attribute("data-ready", "true")
    editor = page.locator(".cm-editor").first
    expect(editor).to_be_visible()
    assert editor.evaluate("e => getComputedStyle(e).display") == "flex"  # CodeMirror's theme

    # The browser reported each refusal, and the guard saw them (then forgets them, on purpose).
    refused = " ".join(csp_guard.take())
    assert "script-src-elem" in refused
    assert "script-src-attr" in refused
    assert "style-src-attr" in refused


def test_the_django_admin_runs_under_the_policy(people: People, platform: Platform) -> None:
    page = people.log_in("admin", next_url="/admin/")
    expect(page.locator("#site-name")).to_be_visible()
    for path in ["/admin/auth/user/", "/admin/auth/user/add/", "/admin/problems/problem/"]:
        page.goto(path)
        page.wait_for_load_state("load")
    # A date field's calendar (a user's "date joined"): the admin's widget scripts build it.
    page.goto("/admin/auth/user/?q=admin")
    page.locator("#result_list a", has_text="admin").first.click()
    page.wait_for_load_state("load")
    page.locator("a#calendarlink0").click()
    expect(page.locator("#calendarbox0")).to_be_visible()
    # The admin's own scripts ran: the user form's password toggle / the changelist actions.
    page.goto("/admin/auth/user/")
    expect(page.locator("#action-toggle")).to_be_visible()


def test_swagger_ui_runs_under_the_policy(browser: Browser, platform: Platform) -> None:
    context = browser.new_context(base_url=platform.base_url)
    page: Page = context.new_page()
    page.goto("/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Onsite API")
    context.close()


def _rgb(hex_color: str) -> str:
    red, green, blue = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def _rgba(hex_color: str) -> str:
    """#rrggbbaa as getComputedStyle writes it."""
    alpha = round(int(hex_color[7:9], 16) / 255, 2)
    return _rgb(hex_color[:7]).replace("rgb(", "rgba(").replace(")", f", {alpha:g})")


def test_the_editor_and_the_cockpit_look_right_under_the_policy(
    people: People, browser: Browser, platform: Platform
) -> None:
    """Screenshots (var/screenshots/csp-*.png, 1440 and 390 px) for a person to look at; the
    guard fails the test if the policy refused anything on these pages."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    practice = people.log_in("candidate", next_url=PROBLEM_URL)
    expect(practice.locator("#problem")).to_have_attribute("data-ready", "true")
    practice.screenshot(path=str(SHOTS / "csp-editor-1440.png"))

    interviewer = people.log_in("interviewer")
    interviewer.select_option("#live-form select[name=problem]", "token-bucket")
    interviewer.fill("#live-form input[name=minutes]", "30")
    interviewer.fill("#live-form input[name=candidate]", "candidate")
    interviewer.click("#live-form button[type=submit]")
    expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/$"))
    invite = interviewer.input_value("#invite-url")

    with people_at(browser, platform, viewport=dict(PHONE)) as phones:
        phone = phones.log_in("candidate", next_url=PROBLEM_URL)
        expect(phone.locator("#problem")).to_have_attribute("data-ready", "true")
        phone.screenshot(path=str(SHOTS / "csp-editor-390.png"))
        phone.goto(invite)
        phone.click("#join-form button[type=submit]")
        expect(phone.locator("#session")).to_have_attribute("data-ready", "true", timeout=SYNC_MS)
        phone.click("#session-editor .cm-content")
        phone.keyboard.press("Control+End")
        phone.keyboard.type("# the candidate types\n")
        expect(interviewer.locator("#session")).to_have_attribute(
            "data-status", "active", timeout=SYNC_MS
        )
        expect(interviewer.locator("#session-editor .cm-content")).to_contain_text(
            "# the candidate types", timeout=SYNC_MS
        )
        interviewer.click("#session-editor .cm-content")
        # The other person's caret keeps its colour: the style attribute y-codemirror sets
        # is one the policy allows by hash (core/csp.py, STYLE_ATTRIBUTE_VALUES).
        caret = phone.locator(".cm-ySelectionCaret").first
        expect(caret).to_be_attached(timeout=SYNC_MS)
        expect(caret).to_have_css(
            "background-color", _rgb(CURSOR_COLORS["interviewer"]["color"]), timeout=SYNC_MS
        )
        expect(interviewer.locator(".cm-ySelectionCaret").first).to_have_css(
            "background-color", _rgb(CURSOR_COLORS["candidate"]["color"]), timeout=SYNC_MS
        )
        # ...and so does the other person's selection (its lighter colour).
        interviewer.keyboard.press("Shift+ArrowUp")
        expect(phone.locator(".cm-ySelection").first).to_have_css(
            "background-color", _rgba(CURSOR_COLORS["interviewer"]["colorLight"]), timeout=SYNC_MS
        )
        interviewer.screenshot(path=str(SHOTS / "csp-cockpit-1440.png"))
        phone.screenshot(path=str(SHOTS / "csp-session-candidate-390.png"), full_page=True)
        interviewer.set_viewport_size(PHONE)
        interviewer.screenshot(path=str(SHOTS / "csp-cockpit-390.png"), full_page=True)
