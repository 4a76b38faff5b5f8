"""A whole practice problem by keyboard alone (issue 40.2), in a real browser against the
scripted grader: from the skip link into the editor, edit, leave the editor (Esc, then Tab or
Shift+Tab), Run, read the results, Submit. Every element Tab reaches shows where focus is, and
focus is never trapped."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.keyboard import tab_to
from tests.frontend.fakes import FakeGrader, public_test, send

pytestmark = pytest.mark.e2e


def answer(ws: WebSocketRoute, _: int) -> None:
    ws.send(json.dumps(public_test(0, "burst", "AC", input={"ops": [1]}, expected=[True])))
    ws.send(json.dumps(public_test(1, "refill", "WA", input={"ops": [2]}, expected=[1])))
    send(ws, type="done", verdict="WA", passed=1, total=2, score=0.5,
         by_tag={"correctness": [1, 2]})  # fmt: skip


def test_a_practice_problem_from_open_to_submit_without_a_mouse(
    page: Page, grader: FakeGrader
) -> None:
    grader.on_connect = answer
    unseen: list[str] = []

    # The first Tab is the skip link; Enter lands on the content.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"

    # Into the editor, and edit: select all, type a solution.
    unseen += tab_to(page, "#editor .cm-content")
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.type("x = 1")
    page.keyboard.press("Enter")
    assert page.evaluate("window.onsiteEditor.getCode()").startswith("x = 1")

    # Out of the editor both ways: Esc then Tab goes on, Esc then Shift+Tab goes back.
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.closest('#editor') === null")
    unseen += tab_to(page, "#editor .cm-content")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('#editor') === null")

    # Run, from the button reached by Tab; the results take focus and are read by Tab.
    unseen += tab_to(page, "#run-button")
    page.keyboard.press("Enter")
    expect(page.locator("#result-summary")).to_contain_text("passed 1 of 2")
    assert page.evaluate("document.activeElement.id") == "results"
    unseen += tab_to(page, "tbody.test[data-index='1'] summary")  # the failing test's details
    page.keyboard.press("Enter")  # its details fold and unfold by key
    # Past the results, Tab goes on to the rest of the page: nothing traps it.
    unseen += tab_to(page, "footer a")

    # Submit, reached backwards by Shift+Tab.
    unseen += tab_to(page, "#submit-button", key="Shift+Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#result-summary")).to_contain_text("passed 1 of 2")
    assert [post["mode"] for post in grader.posts] == ["run", "submit"]
    assert unseen == [], f"focused without a visible indicator: {unseen}"
