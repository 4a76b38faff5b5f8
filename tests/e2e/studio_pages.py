"""Studio helpers for the browser tests: signing in and typing into a CodeMirror field."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import Platform


def code_type(page: Page, scope: str, field: str, lines: list[str]) -> None:
    """Replace the text of the code editor over `field` by typing `lines` as a person would:
    Enter auto-indents after a colon; Shift+Tab and Tab take the indent back and put it again,
    so the saved code shows that Tab indents by four spaces (never a tab character)."""
    content = page.locator(f"{scope} .studio-code-editor[data-code-for={field}] .cm-content")
    content.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    for number, line in enumerate(lines):
        if number:
            page.keyboard.press("Enter")
            if line.startswith("    "):
                page.keyboard.press("Shift+Tab")
                page.keyboard.press("Tab")
        page.keyboard.type(line.strip())


def log_in(page: Page, platform: Platform, username: str, url: str) -> None:
    page.goto(url)
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", platform.password)
    page.click("form.login-form button[type=submit]")
    expect(page).to_have_url(platform.base_url + url)
    page.wait_for_load_state("load")  # the page's scripts ran: typing is seen
