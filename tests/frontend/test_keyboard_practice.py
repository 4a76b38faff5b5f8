"""A whole practice problem by keyboard alone (issue 40.2), in a real browser against the
scripted grader: from the skip link into the editor, edit, leave the editor (Esc, then Tab or
Shift+Tab), Run, read the results, Submit. Every element Tab reaches shows where focus is, and
focus is never trapped."""

from __future__ import annotations

import contextlib
import json

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.frontend.fakes import FakeGrader, public_test, send

pytestmark = pytest.mark.e2e

# What the focused element looks like: an outline or a ring (box-shadow), either counts.
FOCUS_SHOWN = """() => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  const ring = (s) => (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0)
    || s.boxShadow !== "none";
  // The editor's ring is drawn on .cm-editor around its content; a splitter's is its bar
  // (::after) turned the accent colour.
  const editor = el.closest(".cm-editor");
  const bar = el.classList.contains("splitter")
    && getComputedStyle(el, "::after").backgroundColor === "rgb(47, 91, 211)";
  return { id: el.id, tag: el.tagName, cls: String(el.className),
           shown: ring(style) || (editor !== null && ring(getComputedStyle(editor))) || bar,
           inEditor: !!el.closest("#editor") };
}"""


def tab_to(page: Page, selector: str, *, key: str = "Tab", limit: int = 80) -> list[str]:
    """Presses `key` until `selector` has focus (leaving the editor as its hint says, Esc then
    the key); returns the focused elements that showed no focus indicator on the way."""
    unseen: list[str] = []
    in_editor = False
    for _ in range(limit):
        if in_editor:  # the editor's announced way out: Esc, then Tab or Shift+Tab
            page.keyboard.press("Escape")
        page.keyboard.press(key)
        # CodeMirror marks its editor focused on its next update: wait for the ring to show.
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(f"() => ({FOCUS_SHOWN})().shown", timeout=2000)
        state = page.evaluate(FOCUS_SHOWN)
        in_editor = state["inEditor"]
        # Past the page's last element focus leaves the document (body) and wraps: no trap.
        if not state["shown"] and state["tag"] != "BODY":
            unseen.append(f"{state['tag']}#{state['id']}.{state['cls']}")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return unseen
    raise AssertionError(f"{selector} never took focus after {limit} presses of {key}")


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
