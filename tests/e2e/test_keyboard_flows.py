"""Keyboard only (issue 40.2): a whole practice problem and a live interview for both roles are
done without a mouse, the focus always shows, and the editor never traps it (Esc, then Tab or
Shift+Tab, leaves it). Every move is a key press: Tab and Shift+Tab between controls, Enter
or Space on them, typing in fields and the editor."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import Platform, people_at
from tests.e2e.keyboard import focused, keyboard_log_in, tab_to
from tests.e2e.run_pages import GRADING_TIMEOUT_MS, PACKAGE, PROBLEM_URL

pytestmark = [pytest.mark.e2e, pytest.mark.docker]

SYNC_MS = 15_000


@pytest.fixture
def keyboard_page(browser: Browser, platform: Platform) -> Iterator[Page]:
    context = browser.new_context(base_url=platform.base_url,
                                  viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], errors


def _leave_editor(page: Page) -> None:
    """Esc, then Tab: out of the editor forwards; Esc, then Shift+Tab: backwards."""
    for key in ("Tab", "Shift+Tab"):
        if not focused(page, ".cm-content"):
            tab_to(page, ".cm-content", back=key == "Tab")
        page.keyboard.press("Escape")
        page.keyboard.press(key)
        assert not focused(page, ".cm-content"), f"Esc then {key} stayed in the editor"


def test_a_practice_problem_by_keyboard_alone(keyboard_page: Page, platform: Platform) -> None:
    page = keyboard_page
    public = json.loads((PACKAGE / "tests" / "public.json").read_text())
    reference = (PACKAGE / "reference.py").read_text()
    unseen: list[str] = []
    keyboard_log_in(page, "candidate", platform.password, PROBLEM_URL)
    expect(page.locator("#problem")).to_have_attribute("data-ready", "true")

    # Edit: into the editor, everything selected, the solution pasted (Ctrl+V) over it.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.evaluate("text => navigator.clipboard.writeText(text)", reference)
    tab_to(page, ".cm-content", unseen=unseen)
    page.keyboard.press("Control+a")
    page.keyboard.press("Control+v")
    assert page.evaluate("window.onsiteEditor.getCode()").strip() == reference.strip()
    _leave_editor(page)

    # Run: Enter on the Run button; the results come, and each one can be reached and opened.
    tab_to(page, "#run-button", back=True, unseen=unseen)
    page.keyboard.press("Enter")
    summary = page.locator("#result-summary")
    expect(summary).to_contain_text(f"passed {len(public)} of {len(public)}",
                                    timeout=GRADING_TIMEOUT_MS)
    tab_to(page, "#results summary", unseen=unseen)
    page.keyboard.press("Enter")
    opened = page.locator("#results details[open]")
    expect(opened).to_have_count(1)
    expect(opened.first).to_be_visible()

    # Submit: Enter on the Submit button, and the verdict of every test.
    tab_to(page, "#submit-button", back=True, unseen=unseen)
    page.keyboard.press("Enter")
    expect(summary).to_contain_text(re.compile(r"passed \d+ of \d+"), timeout=GRADING_TIMEOUT_MS)
    expect(summary.locator(".verdict")).to_have_text("AC", timeout=GRADING_TIMEOUT_MS)
    assert unseen == [], f"focus not shown at: {sorted(set(unseen))}"


def test_a_live_interview_by_keyboard_for_both_roles(browser: Browser,
                                                     platform: Platform) -> None:
    with people_at(browser, platform) as people:
        unseen: list[str] = []
        interviewer = people.browser.new_context(base_url=platform.base_url,
                                                 viewport={"width": 1440, "height": 1000})
        people.contexts.append(interviewer)
        host = interviewer.new_page()
        keyboard_log_in(host, "interviewer", platform.password, "/sessions/")

        # Schedule: the form's fields by Tab, the problem chosen by typing its name.
        tab_to(host, "#live-form select[name=problem]", unseen=unseen)
        host.keyboard.type("Token")
        tab_to(host, "#live-form input[name=minutes]", unseen=unseen)
        host.keyboard.press("Control+a")
        host.keyboard.type("30")
        tab_to(host, "#live-form input[name=candidate]", unseen=unseen)
        host.keyboard.type("candidate")
        tab_to(host, "#live-form button[type=submit]", unseen=unseen)
        host.keyboard.press("Enter")
        host.wait_for_url(re.compile(r"/sessions/\d+/$"))
        invite = host.input_value("#invite-url")
        session_url = host.url

        # The candidate joins by the link: Tab to Join, Enter.
        guest_context = people.browser.new_context(base_url=platform.base_url,
                                                   viewport={"width": 1440, "height": 1000})
        people.contexts.append(guest_context)
        guest = guest_context.new_page()
        guest.on("pageerror", lambda error: people.errors.append(f"candidate: {error}"))
        host.on("pageerror", lambda error: people.errors.append(f"interviewer: {error}"))
        keyboard_log_in(guest, "candidate", platform.password, "/problems/")
        guest.goto(invite)
        tab_to(guest, "#join-form button[type=submit]", unseen=unseen)
        guest.keyboard.press("Enter")
        guest.wait_for_url(session_url)
        expect(guest.locator("#session")).to_have_attribute("data-ready", "true",
                                                            timeout=SYNC_MS)
        expect(host.locator("#session")).to_have_attribute("data-status", "active",
                                                           timeout=SYNC_MS)
        expect(host.locator("#session")).to_have_attribute("data-ready", "true",
                                                           timeout=SYNC_MS)

        # The candidate asks a question and chats; the interviewer answers in the chat.
        tab_to(guest, "#question-form textarea", unseen=unseen)
        guest.keyboard.type("Does the bucket start full?")
        tab_to(guest, "#question-form button[type=submit]", unseen=unseen)
        guest.keyboard.press("Enter")
        expect(guest.locator("#questions")).to_contain_text("start full", timeout=SYNC_MS)
        expect(host.locator("#questions")).to_contain_text("start full", timeout=60_000)
        tab_to(guest, "#chat-form input[name=text]", unseen=unseen)
        guest.keyboard.type("Can I use a dict?")
        guest.keyboard.press("Enter")
        expect(host.locator("#chat .chat-message")).to_have_count(1, timeout=SYNC_MS)
        tab_to(host, "#chat-form input[name=text]", unseen=unseen)
        host.keyboard.type("Yes, go ahead.")
        host.keyboard.press("Enter")
        expect(guest.locator("#chat .chat-message")).to_have_count(2, timeout=SYNC_MS)

        # The interviewer releases a hint from the Prompts tab (arrow keys between tabs).
        tab_to(host, "[data-tab-button=prompts]", unseen=unseen)
        host.keyboard.press("Enter")
        tab_to(host, "#hint-reveal", unseen=unseen)
        host.keyboard.press("Enter")
        expect(guest.locator("#session-hints .hint")).to_have_count(1, timeout=SYNC_MS)

        # The interviewer ends the session (the confirmation by keyboard too) and scores it.
        host.once("dialog", lambda dialog: dialog.accept())
        tab_to(host, "#finish-button", back=True, unseen=unseen)
        host.keyboard.press("Enter")
        for page in (guest, host):
            expect(page.locator("#session")).to_have_attribute("data-status", "finished",
                                                               timeout=SYNC_MS)
        tab_to(host, "#scorecard-link", unseen=unseen)
        host.keyboard.press("Enter")
        expect(host.locator("#scorecard-form")).to_be_visible()
        # Each criterion: Tab reaches its radio group, an arrow key picks a level.
        criteria = host.locator("#scorecard-form fieldset.criterion")
        for index in range(criteria.count()):
            name = criteria.nth(index).locator("input[type=radio]").first.get_attribute("name")
            tab_to(host, f"#scorecard-form input[name='{name}']", unseen=unseen)
            host.keyboard.press("ArrowRight")
            expect(criteria.nth(index).locator("input[type=radio]:checked")).to_have_count(1)
        tab_to(host, "#scorecard-form select[name=recommendation]", unseen=unseen)
        host.keyboard.type("Yes")
        tab_to(host, "#scorecard-form textarea[name=summary]", unseen=unseen)
        host.keyboard.type("Scored by keyboard alone.")
        tab_to(host, "#scorecard-submit", unseen=unseen)
        host.keyboard.press("Enter")
        expect(host.locator("#own-summary")).to_have_text("Scored by keyboard alone.")
        expect(host.locator("#own-recommendation")).to_have_text("Yes")
        assert unseen == [], f"focus not shown at: {sorted(set(unseen))}"


def test_the_studios_new_problem_flow_by_keyboard(keyboard_page: Page,
                                                  platform: Platform) -> None:
    page = keyboard_page
    unseen: list[str] = []
    slug = "keyboard-double"
    reference = "def solve(x):\n    return 2 * x\n"
    keyboard_log_in(page, "author", platform.password, "/studio/new/")

    # The new problem's form: each field by Tab, the difficulty chosen by typing.
    for field, text in (("input[name=slug]", slug), ("input[name=title]", "Double by keys")):
        tab_to(page, field, unseen=unseen)
        page.keyboard.type(text)
    tab_to(page, "select[name=difficulty]", unseen=unseen)
    page.keyboard.type("easy")
    tab_to(page, "#create-button", unseen=unseen)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/studio/{slug}/")

    # The statement, saved by Enter on its button.
    tab_to(page, "textarea[name=statement_md]", unseen=unseen)
    page.keyboard.press("Control+a")
    page.keyboard.type("# Double it\n\nReturn `2 * x`.\n")
    expect(page.locator("#statement-preview h1").first).to_have_text("Double it")
    tab_to(page, "form.statement-editor button[type=submit]", unseen=unseen)
    page.keyboard.press("Enter")
    expect(page.locator(".studio-message-success")).to_be_visible()

    # The reference solution in its code editor (pasted), the parts saved.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.evaluate("text => navigator.clipboard.writeText(text)", reference)
    tab_to(page, "#parts .studio-code-editor[data-code-for=reference_code] .cm-content",
           unseen=unseen)
    page.keyboard.press("Control+a")
    page.keyboard.press("Control+v")
    posted = page.locator("#parts textarea[name=reference_code]")
    as_pasted = re.compile(r"^def solve\(x\):\n    return 2 \* x\n?$")
    expect(posted).to_have_value(as_pasted)
    tab_to(page, "#parts-save", unseen=unseen)
    page.keyboard.press("Enter")
    expect(page.locator(".studio-message-success")).to_contain_text("Saved as draft")
    expect(page.locator("#parts textarea[name=reference_code]")).to_have_value(as_pasted)

    # A public test through the table's form: name, input and expected typed, saved by Enter.
    tab_to(page, "#test-form input[name=name]", unseen=unseen)
    page.keyboard.type("two")
    tab_to(page, "#test-form textarea[name=input]", unseen=unseen)
    page.keyboard.type('{"args": [2]}')
    tab_to(page, "#test-form textarea[name=expected]", unseen=unseen)
    page.keyboard.type("4")
    tab_to(page, "#test-save", unseen=unseen)
    page.keyboard.press("Enter")
    expect(page.locator("tr[data-test='two']")).to_have_count(1)
    assert unseen == [], f"focus not shown at: {sorted(set(unseen))}"
