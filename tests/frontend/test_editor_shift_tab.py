"""Shift+Tab in the editor (issue 40.2), in a real browser against the scripted grader: inside
the editor Tab indents and Shift+Tab dedents the line (never indents it, and never leaves);
after Esc, Shift+Tab moves focus backwards out of the editor, to the Tab stop before it, and
the code is as it was."""

from __future__ import annotations

from playwright.sync_api import Page

FOCUS_IN_EDITOR = "document.activeElement.closest('#editor') !== null"


def code(page: Page) -> str:
    return str(page.evaluate("window.onsiteEditor.getCode()"))


def line_end(page: Page, text: str) -> None:
    """The editor holds `text` alone, focused, with the cursor at the end of its first line."""
    page.evaluate("code => window.onsiteEditor.setCode(code)", text)
    page.locator("#editor .cm-content").click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("End")


def test_shift_tab_dedents_the_line_and_never_indents_it(page: Page) -> None:
    line_end(page, "    x = 1\ny = 2\n")
    page.keyboard.press("Shift+Tab")
    assert code(page) == "x = 1\ny = 2\n"
    # At the margin there is nothing to take away: the line stays, focus stays.
    page.keyboard.press("Shift+Tab")
    assert code(page) == "x = 1\ny = 2\n"
    assert page.evaluate(FOCUS_IN_EDITOR)
    # A line indented less than one unit goes to the margin.
    line_end(page, "  x = 1\n")
    page.keyboard.press("Shift+Tab")
    assert code(page) == "x = 1\n"
    # Tab and Shift+Tab undo each other, the cursor anywhere in the line.
    line_end(page, "if a:\n    b()\n")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    assert code(page) == "if a:\n        b()\n"
    page.keyboard.press("Shift+Tab")
    assert code(page) == "if a:\n    b()\n"
    assert page.evaluate(FOCUS_IN_EDITOR)


def test_esc_then_shift_tab_moves_focus_back_to_the_stop_before_the_editor(page: Page) -> None:
    line_end(page, "    x = 1\n")
    before = code(page)
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Tab")
    assert code(page) == before  # the Shift+Tab moved focus; it did not dedent
    assert not page.evaluate(FOCUS_IN_EDITOR)
    left_to = page.evaluate("document.activeElement.outerHTML.slice(0, 120)")
    # It is the Tab stop just before the editor: one Tab from it is back in the editor...
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('#editor .cm-content')"), left_to
    # ...where Shift+Tab (no Esc before it) dedents again instead of leaving.
    page.keyboard.press("Shift+Tab")
    assert code(page) == "x = 1\n"
    assert page.evaluate(FOCUS_IN_EDITOR)
