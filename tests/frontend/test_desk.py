"""The candidate's desk in a real browser: the editor (indentation, preferences, the way out),
the split panes, custom input and the scratch console, and per-category feedback.

As in test_bundle.py, the page is the real template and Playwright plays the grader.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.template.loader import render_to_string
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from core.markdown import markdown_render
from problems.models import Problem
from tests.csp import NONCE
from tests.frontend.fakes import (
    EXAMPLE,
    ORIGIN,
    SUBMISSION_ID,
    FakeGrader,
    FakeUser,
    public_test,
    send,
)

pytestmark = pytest.mark.e2e


# paged-KV's example table lost its last column (issue 26): a wide table must scroll in its box.
WIDE_TABLE = (
    "| step | admitted | running | evicted | free pages | kv tokens | ends |\n"
    "|---|---|---|---|---|---|---|\n"
    "| 0 | `[0, 1, 2]` | `[0, 1, 2]` | `[]` | 12 | 48 | `stop_token: int \\| None` |\n"
)


def desk_html(user_pk: int = 7) -> str:
    problem = Problem(
        slug="token-bucket",
        title="Token-bucket rate limiter",
        difficulty="easy",
        topics=["rate limiting"],
        statement_md="Implement `TokenBucket`.\n\n" + WIDE_TABLE + "\n" + "More text.\n\n" * 60,
        starter_code="class TokenBucket:\n    pass\n",
        published=True,
    )
    context = {
        "problem": problem,
        "statement_html": markdown_render(problem.statement_md),
        "hint_count": 0,
        "custom_example": EXAMPLE,
        "custom_reference": True,
        "user": FakeUser(user_pk),
        "csp_nonce": NONCE,
    }
    return render_to_string("frontend/problem_detail.html", context)


def open_desk(browser: Browser, grader: FakeGrader, **viewport: int) -> tuple[Page, list[str]]:
    size = {"width": 1440, "height": 900} | viewport
    context = browser.new_context(base_url=ORIGIN, viewport=size)  # type: ignore[arg-type]
    context.add_cookies([{"name": "csrftoken", "value": "csrf-abc", "url": ORIGIN}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.route("**/*", grader.http)
    page.route_web_socket(f"**/ws/submissions/{SUBMISSION_ID}/", grader.socket)
    page.goto("/problems/token-bucket/")
    expect(page.locator("#problem")).to_have_attribute("data-ready", "true")
    return page, errors


@pytest.fixture
def grader() -> FakeGrader:
    return FakeGrader(page_html=desk_html())


@pytest.fixture
def page(browser: Browser, bundle: Path, grader: FakeGrader) -> Iterator[Page]:
    page, errors = open_desk(browser, grader)
    yield page
    page.context.close()
    assert errors == [], f"errors in the page: {errors}"


def code(page: Page) -> str:
    return str(page.evaluate("window.onsiteEditor.getCode()"))


def test_python_indents_by_four_and_tab_shift_tab_indent_a_selection(page: Page) -> None:
    page.evaluate("window.onsiteEditor.setCode('')")
    page.locator("#editor .cm-content").click()
    page.keyboard.type("def f():")
    page.keyboard.press("Enter")
    page.keyboard.type("return 1")
    assert code(page) == "def f():\n    return 1"

    page.evaluate("window.onsiteEditor.setCode('a = 1\\nb = 2\\n')")
    page.locator("#editor .cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Tab")
    assert code(page) == "    a = 1\n    b = 2\n"
    page.keyboard.press("Shift+Tab")
    assert code(page) == "a = 1\nb = 2\n"


def test_esc_then_tab_leaves_the_editor_and_the_way_out_is_announced(page: Page) -> None:
    content = page.locator("#editor .cm-content")
    hint_id = content.get_attribute("aria-describedby")
    assert hint_id == "editor-escape-hint"
    expect(page.locator(f"#{hint_id}")).to_contain_text("press Esc, then Tab")

    before = code(page)
    content.click()
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert code(page) == before  # the Tab moved focus, it did not indent
    assert page.evaluate("document.activeElement.closest('#editor') === null")


def test_preferences_apply_at_once_and_are_remembered_per_user(
    browser: Browser, bundle: Path, page: Page, grader: FakeGrader
) -> None:
    editor = page.locator("#editor .cm-editor")
    content = page.locator("#editor .cm-content")
    expect(content).not_to_have_class(re.compile("cm-lineWrapping"))
    page.click(".editor-settings summary")
    page.select_option("#editor-prefs select[name=theme]", "dark")
    page.select_option("#editor-prefs select[name=keymap]", "vim")
    page.select_option("#editor-prefs select[name=fontSize]", "18")
    page.check("#editor-prefs input[name=wrap]")
    expect(content).to_have_class(re.compile("cm-lineWrapping"))

    expect(editor).to_have_attribute("data-theme", "dark")
    expect(page.locator("#editor .cm-vim-panel, #editor .cm-fat-cursor").first).to_be_attached()
    assert (
        page.evaluate("getComputedStyle(document.querySelector('#editor .cm-content')).fontSize")
        == "18px"
    )

    page.reload()
    expect(page.locator("#problem")).to_have_attribute("data-ready", "true")
    expect(page.locator("#editor .cm-editor")).to_have_attribute("data-theme", "dark")
    expect(page.locator("#editor .cm-editor")).to_have_attribute("data-keymap", "vim")
    expect(page.locator("#editor-prefs select[name=fontSize]")).to_have_value("18")
    expect(page.locator("#editor-prefs input[name=wrap]")).to_be_checked()
    expect(page.locator("#editor .cm-content")).to_have_class(re.compile("cm-lineWrapping"))

    # Another user in the same browser keeps the defaults.
    other = page.context.new_page()
    other.route("**/*", FakeGrader(page_html=desk_html(user_pk=8)).http)
    other.goto("/problems/token-bucket/")
    expect(other.locator("#problem")).to_have_attribute("data-ready", "true")
    expect(other.locator("#editor .cm-editor")).to_have_attribute("data-theme", "light")
    expect(other.locator("#editor .cm-editor")).to_have_attribute("data-keymap", "default")


def test_the_shortcuts_are_listed(page: Page) -> None:
    page.click(".editor-shortcuts summary")
    table = page.locator(".shortcut-table")
    expect(table).to_be_visible()
    for text in (
        "Run the public tests",
        "Submit",
        "Run custom input",
        "Leave the editor",
        "Run the file in the console",
        "Back to the editor",
        "Close a menu",
        "Open this list",
        "Emacs keys",
        "Vim keys",
    ):
        expect(table).to_contain_text(text)


def test_panes_resize_from_the_keyboard_and_keep_the_editor_in_view(page: Page) -> None:
    statement = page.locator("#pane-statement")
    width = statement.bounding_box()["width"]  # type: ignore[index]
    page.locator(".splitter[data-pane=statement]").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert statement.bounding_box()["width"] == pytest.approx(width + 64, abs=2)  # type: ignore[index]

    # The statement scrolls inside its pane; the page itself, footer included, fits the window,
    # so nothing can scroll the editor away (a wheel scrolls later, so the page is measured).
    editor_top = page.locator("#editor").bounding_box()["y"]  # type: ignore[index]
    statement.evaluate("el => el.scrollTo(0, 2000)")
    assert statement.evaluate("el => el.scrollTop") > 0
    page_size = page.evaluate(
        "() => [document.scrollingElement.scrollHeight, document.scrollingElement.clientHeight]"
    )
    assert page_size[0] <= page_size[1], f"the page scrolls: {page_size}"
    expect(page.locator("footer.site-footer a")).to_be_in_viewport()
    page.mouse.wheel(0, 2000)
    assert page.locator("#editor").bounding_box()["y"] == editor_top  # type: ignore[index]

    page.reload()
    expect(page.locator("#problem")).to_have_attribute("data-ready", "true")
    assert statement.bounding_box()["width"] == pytest.approx(width + 64, abs=2)  # type: ignore[index]


def test_custom_input_is_prefilled_sent_and_compared_with_the_reference(
    page: Page, grader: FakeGrader
) -> None:
    def script(ws: WebSocketRoute, _: int) -> None:
        ws.send(json.dumps(public_test(
            0, "custom input vs reference", "WA",
            input=json.dumps(EXAMPLE), output="[true, true]", expected="[true, false]",
            stdout="tokens 2.0\n",
        )))  # fmt: skip
        send(ws, type="done", verdict="WA", passed=0, total=1, score=0.0, by_tag={})

    grader.on_connect = script
    page.click("#tab-custom")
    assert json.loads(page.locator("#custom-input").input_value()) == EXAMPLE

    page.fill("#custom-input", '{"init": [1, 1], "ops": [["allow", 0.0, 1]]}')
    page.click("#custom-run-button")

    output = page.locator("#custom-output")
    expect(output).to_contain_text("Differs from the reference")
    expect(output.locator(".output-block").nth(0)).to_contain_text("Your answer")
    expect(output.locator(".output-block").nth(1)).to_contain_text("Reference answer")
    expect(output.locator(".diff .diff-del")).to_have_text(["-   false\n"])
    expect(output.locator(".diff .diff-add")).to_have_text(["+   true\n"])
    expect(output.locator(".console .output-text")).to_have_text("tokens 2.0\n")
    assert grader.posts == [{
        "problem": "token-bucket", "code": code(page), "mode": "custom",
        "input": {"init": [1, 1], "ops": [["allow", 0.0, 1]]},
    }]  # fmt: skip


def test_custom_input_that_is_not_json_is_refused_before_sending(
    page: Page, grader: FakeGrader
) -> None:
    page.click("#tab-custom")
    page.fill("#custom-input", "{not json")
    page.click("#custom-run-button")
    expect(page.locator("#custom-input-error")).to_contain_text("not valid JSON")
    assert grader.posts == []


def test_the_console_runs_the_file_and_shows_its_output(page: Page, grader: FakeGrader) -> None:
    def script(ws: WebSocketRoute, _: int) -> None:
        ws.send(json.dumps(public_test(
            0, "script", "RE", stdout="hello\n", error="Traceback...\nZeroDivisionError",
            message="raised ZeroDivisionError",
        )))  # fmt: skip
        send(ws, type="done", verdict="RE", passed=0, total=1, score=0.0, by_tag={})

    grader.on_connect = script
    page.click("#tab-console")
    page.click("#script-run-button")

    console = page.locator("#console-output")
    expect(console.locator(".console .output-text")).to_have_text("hello\n")
    expect(console.locator(".error .output-text")).to_contain_text("ZeroDivisionError")
    expect(console.locator(".verdict")).to_have_text("RE")
    assert grader.posts[-1]["mode"] == "script"


def test_submit_names_the_worst_verdict_of_each_category(page: Page, grader: FakeGrader) -> None:
    def script(ws: WebSocketRoute, _: int) -> None:
        done: dict[str, Any] = {
            "type": "done", "verdict": "TLE", "passed": 3, "total": 4, "score": 0.75,
            "by_tag": {"correctness": [2, 2], "performance": [1, 2]},
            "worst_by_tag": {"correctness": "AC", "performance": "TLE"},
        }  # fmt: skip
        ws.send(json.dumps(done))

    grader.on_connect = script
    page.click("#submit-button")

    expect(page.locator("#result-summary [data-tag=performance]")).to_have_text(
        "performance: passed 1 of 2 — time limit exceeded"
    )
    expect(page.locator("#result-summary [data-tag=correctness]")).to_have_text(
        "correctness: passed 2 of 2"
    )


def test_enter_before_a_docstring_starts_a_new_line(page: Page) -> None:
    page.evaluate("""window.onsiteEditor.setCode('\"\"\"Doc.\"\"\"\\n\\nclass A:\\n    pass\\n')""")
    page.locator("#editor .cm-content").click()
    page.keyboard.press("Control+Home")
    page.keyboard.type("# meanwhile, the interviewer\n")
    assert code(page).startswith('# meanwhile, the interviewer\n"""Doc."""')


# ---------------------------------------------------------------- issue 26


def many_tests(ws: WebSocketRoute, _: int) -> None:
    for index in range(40):
        ws.send(
            json.dumps(
                public_test(index, f"test {index}", "WA", input="[1]", output="[2]", expected="[3]")
            )
        )
    send(ws, type="done", verdict="WA", passed=0, total=40, score=0.0, by_tag={})


def test_after_a_run_the_other_tabs_panels_are_not_covered_by_the_tests(
    page: Page, grader: FakeGrader
) -> None:
    grader.on_connect = many_tests
    page.click("#run-button")
    expect(page.locator("#result-tests tbody.test")).to_have_count(40)

    page.click("#tab-custom")
    expect(page.locator("#results")).to_be_hidden()
    expect(page.locator("#custom-panel")).to_be_visible()
    # What is under the custom input's middle is the custom input itself.
    assert (
        page.evaluate("""(() => {
        const box = document.getElementById('custom-input').getBoundingClientRect();
        const x = box.left + box.width / 2, y = box.top + box.height / 2;
        return document.elementFromPoint(x, y).id;
    })()""")
        == "custom-input"
    )
    page.click("#tab-console")
    expect(page.locator("#custom-panel")).to_be_hidden()
    expect(page.locator("#script-run-button")).to_be_visible()


def test_the_editor_gets_half_the_width_and_the_results_go_beside_or_below_it(
    page: Page,
) -> None:
    editor = page.locator("#editor")
    results = page.locator("#pane-results")

    desk = page.locator("#desk")

    def beside() -> bool:
        return results.bounding_box()["x"] > editor.bounding_box()["x"]  # type: ignore[index]

    def resize(width: int, layout: str) -> None:
        # The desk relays itself out on the window's resize event, which comes after the call
        # returns: wait for the layout it settles on before measuring.
        page.set_viewport_size({"width": width, "height": 900})
        expect(desk).to_have_attribute("data-layout", layout)

    # "Automatic" (the default): below on these windows, beside on a wide one.
    expect(page.locator("#editor-prefs select[name=layout]")).to_have_value("auto")
    for width in (1440, 1280):
        resize(width, "below")
        assert editor.bounding_box()["width"] >= width * 0.6  # type: ignore[index]
        assert not beside()
    resize(1700, "beside")
    assert beside()

    page.click(".editor-settings summary")
    page.select_option("#editor-prefs select[name=layout]", "beside")
    for width in (1440, 1280):  # three columns, and still half the window for the code
        resize(width, "beside")
        assert beside()
        assert editor.bounding_box()["width"] >= width / 2  # type: ignore[index]

    page.select_option("#editor-prefs select[name=layout]", "below")
    expect(desk).to_have_attribute("data-layout", "below")
    editor_box = editor.bounding_box()
    results_box = results.bounding_box()
    assert editor_box and results_box
    assert results_box["y"] >= editor_box["y"] + editor_box["height"]

    page.reload()  # kept with the other editor settings, for this user
    expect(page.locator("#problem")).to_have_attribute("data-ready", "true")
    expect(page.locator("#desk")).to_have_attribute("data-layout", "below")
    expect(page.locator("#editor-prefs select[name=layout]")).to_have_value("below")


def test_a_wide_statement_table_scrolls_inside_its_box(page: Page) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    table = page.locator(".statement table").first
    pane = page.locator("#pane-statement").bounding_box()
    box = table.bounding_box()
    assert pane and box
    assert box["x"] + box["width"] <= pane["x"] + pane["width"] + 0.5  # not clipped by the pane
    assert table.evaluate("t => t.scrollWidth > t.clientWidth")  # its own scroll bar
    table.evaluate("t => t.scrollTo(t.scrollWidth, 0)")
    last = table.locator("td").last
    expect(last).to_have_text("stop_token: int | None")  # and no backslash
    expect(last).to_be_in_viewport()


def test_the_emacs_keymap_moves_kills_and_yanks(page: Page) -> None:
    page.click(".editor-settings summary")
    page.select_option("#editor-prefs select[name=keymap]", "emacs")
    page.keyboard.press("Escape")
    page.evaluate("window.onsiteEditor.setCode('abc\\nxyz\\n')")
    page.locator("#editor .cm-line").first.click()
    page.keyboard.press("Control+a")  # line start, not "select all"
    page.keyboard.type("X")
    assert code(page) == "Xabc\nxyz\n"
    page.keyboard.press("Control+e")
    page.keyboard.type("Y")
    assert code(page) == "XabcY\nxyz\n"
    page.keyboard.press("Control+n")  # next line
    page.keyboard.press("Control+a")
    page.keyboard.press("Control+k")  # kill to the end of the line
    assert code(page) == "XabcY\n\n"
    page.keyboard.press("Control+y")  # yank it back
    assert code(page) == "XabcY\nxyz\n"


def test_focus_goes_to_the_results_after_a_run_and_comes_back_by_key(
    page: Page, grader: FakeGrader
) -> None:
    grader.on_connect = many_tests
    page.click("#run-button")
    assert page.evaluate("document.activeElement.id") == "results"
    expect(page.locator("#result-tests tbody.test")).to_have_count(40)
    page.keyboard.press("Control+Shift+E")
    assert page.evaluate("document.activeElement.closest('#editor') !== null")

    page.keyboard.press("Control+Enter")  # a run from the editor: the results take focus
    assert page.evaluate("document.activeElement.id") == "results"
    page.keyboard.press("Escape")  # Esc in the results: back to the editor
    assert page.evaluate("document.activeElement.closest('#editor') !== null")


def test_esc_closes_the_menus_and_question_mark_opens_the_shortcuts(page: Page) -> None:
    settings = page.locator("details.editor-settings")
    page.click(".editor-settings summary")
    expect(settings).to_have_attribute("open", "")
    page.keyboard.press("Escape")
    expect(settings).not_to_have_attribute("open", "")
    assert page.evaluate("document.activeElement.closest('.editor-settings') !== null")

    page.keyboard.press("?")  # outside the editor
    shortcuts = page.locator("details.editor-shortcuts")
    expect(shortcuts).to_have_attribute("open", "")
    expect(page.locator(".shortcut-table")).to_be_visible()
    page.keyboard.press("Escape")
    expect(shortcuts).not_to_have_attribute("open", "")
    page.locator("#editor .cm-content").click()
    page.keyboard.type("?")  # inside the editor it is a character
    expect(shortcuts).not_to_have_attribute("open", "")
