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

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.e2e.conftest import CspGuard, People, Platform

pytestmark = [pytest.mark.e2e]

PROBLEM_URL = "/problems/token-bucket/"
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
    # The admin's own scripts ran: the user form's password toggle / the changelist actions.
    page.goto("/admin/auth/user/")
    expect(page.locator("#action-toggle")).to_be_visible()


def test_swagger_ui_runs_under_the_policy(browser: Browser, platform: Platform) -> None:
    context = browser.new_context(base_url=platform.base_url)
    page: Page = context.new_page()
    page.goto("/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Onsite API")
    context.close()
