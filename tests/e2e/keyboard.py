"""Keyboard-only helpers of the browser tests (issue 40.2): Tab (or Shift+Tab) to an element
the way a person would, leaving a code editor the way its hint says (Esc, then the key), and
collect every element that took focus without showing it."""

from __future__ import annotations

import contextlib

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

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
           inEditor: editor !== null, focused: el.matches(":focus") };
}"""


def tab_to(page: Page, selector: str, *, key: str = "Tab", limit: int = 80) -> list[str]:
    """Presses `key` until `selector` has focus (leaving the editor as its hint says, Esc then
    the key); returns the focused elements that showed no focus indicator on the way."""
    # The person's window is this page's (of two people's pages, only one has the focus, and
    # :focus matches nothing in the other).
    page.bring_to_front()
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
        # Past the page's last element focus leaves the document (body) and wraps: no trap. A
        # date or time field reached by keys in headless chromium sometimes does not match
        # :focus at all (its inner segment has the focus): no style could show there, the
        # check is moot (site.css rings them when they do).
        if not state["shown"] and state["tag"] != "BODY" and state["focused"]:
            unseen.append(f"{state['tag']}#{state['id']}.{state['cls']}")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return unseen
    raise AssertionError(f"{selector} never took focus after {limit} presses of {key}")
