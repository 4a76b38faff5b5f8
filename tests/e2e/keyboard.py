"""Driving a page by keyboard alone, for the browser tests (issue 40.2): Tab to a control,
checking on the way that every stop shows where the focus is and that Tab never stays put."""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.sync_api import Page

# The most Tab presses one move may take: a long page has many stops, none has this many.
MAX_STOPS = 150

# The focused element and whether it shows it: an outline, a ring (box-shadow) or, for the
# editor's content, the editor's own focused frame.
_FOCUS = """async () => {
  // A few frames first: CodeMirror marks its frame focused a little after the focus event.
  for (let frame = 0; frame < 2; frame += 1) {
    await new Promise((done) => requestAnimationFrame(() => done()));
  }
  await new Promise((done) => setTimeout(done, 30));
  const el = document.activeElement;
  if (!el || el === document.body) return {tag: 'body', visible: true, path: 'body'};
  // A date or time input's own picker button (inside the browser's shadow tree) takes a stop
  // of its own: the browser rings it, and the host does not match :focus meanwhile.
  if (el.matches('input[type=date], input[type=time]') && !el.matches(':focus')) {
    return {tag: el.tagName, visible: true, path: '#' + el.id + ' (picker)'};
  }
  const style = getComputedStyle(el);
  const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
  const ring = style.boxShadow && style.boxShadow !== 'none';
  const editor = el.closest('.cm-editor');
  const editorRing = editor && (editor.classList.contains('cm-focused') &&
    (getComputedStyle(editor).outlineStyle !== 'none' ||
     getComputedStyle(editor).boxShadow !== 'none'));
  const name = el.id ? '#' + el.id : el.tagName.toLowerCase() +
    (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '');
  return {tag: el.tagName, visible: Boolean(outline || ring || editorRing), path: name};
}"""


def focused(page: Page, selector: str) -> bool:
    return bool(page.evaluate(
        "sel => { const el = document.activeElement; return Boolean(el && el.matches(sel)); }",
        selector,
    ))


def tab_to(page: Page, selector: str, *, back: bool = False, unseen: list[str] | None = None,
           ) -> int:
    """Presses Tab (Shift+Tab when `back`) until the focus is on `selector`; how many presses.
    Every stop on the way whose focus does not show is added to `unseen` (when given). Passing
    through the code editor, where Tab indents, it leaves as the page says: Esc, then Tab."""
    key = "Shift+Tab" if back else "Tab"
    for presses in range(1, MAX_STOPS + 1):
        if focused(page, ".cm-content"):
            page.keyboard.press("Escape")
        page.keyboard.press(key)
        stop = page.evaluate(_FOCUS)
        if unseen is not None and not stop["visible"]:
            unseen.append(stop["path"])
        if focused(page, selector):
            return presses
    raise AssertionError(f"{selector} was never reached by {key} in {MAX_STOPS} presses")


def keyboard_log_in(page: Page, username: str, password: str, next_url: str) -> None:
    """The login form by keyboard: the name, Tab, the password, Enter."""
    page.goto(f"/accounts/login/?next={next_url}")
    tab_to(page, "input[name=username]")
    page.keyboard.type(username)
    page.keyboard.press("Tab")
    assert focused(page, "input[name=password]")
    page.keyboard.type(password)
    page.keyboard.press("Enter")
    # The login page's own URL ends with `next_url` too: wait for the path itself.
    page.wait_for_url(lambda url: urlsplit(url).path == next_url)
    page.wait_for_load_state("load")
