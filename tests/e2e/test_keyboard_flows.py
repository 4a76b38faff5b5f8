"""End to end, by keyboard alone (issue 40.2): a live interview for both roles, in Debian's
chromium on the real platform. The interviewer schedules it, the candidate joins, chats and
asks a question, the interviewer releases a hint, gives more time and ends it, then fills the
scorecard; and the studio's new-problem flow (create, statement, a hint, save). Every step is
Tab, Shift+Tab, typing, arrows, Space and Enter (the pages' own tests click). Every element
that takes focus on the way shows it, and nothing traps it.
"""

from __future__ import annotations

import re
import secrets

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import Platform
from tests.e2e.keyboard import tab_to
from tests.e2e.layout import Watch

pytestmark = [pytest.mark.e2e, pytest.mark.docker]

TIMEOUT_MS = 60_000


def log_in(page: Page, platform: Platform, username: str, next_url: str) -> None:
    """The login form by keyboard: its fields in order, Enter to send."""
    page.goto(f"/accounts/login/?next={next_url}")
    tab_to(page, "input[name=username]")
    page.keyboard.type(username)
    page.keyboard.press("Tab")
    page.keyboard.type(platform.password)
    page.keyboard.press("Enter")
    expect(page).to_have_url(platform.base_url + next_url)


def test_a_live_interview_for_both_roles_without_a_mouse(
    browser: Browser, platform: Platform
) -> None:
    watch = Watch()
    unseen: list[str] = []
    contexts = []
    try:

        def person() -> Page:
            context = browser.new_context(
                base_url=platform.base_url, viewport={"width": 1440, "height": 1000}
            )
            contexts.append(context)
            page = context.new_page()
            watch.attach(page)
            return page

        interviewer = person()
        log_in(interviewer, platform, "interviewer", "/sessions/")

        # Scheduling: the problem chosen by typing its name into the select, 30 minutes, the
        # candidate's username, and Enter on Schedule.
        unseen += tab_to(interviewer, "#live-form select[name=problem]")
        interviewer.keyboard.type("Token")
        expect(interviewer.locator("#live-form select[name=problem]")).to_have_value("token-bucket")
        unseen += tab_to(interviewer, "#live-form input[name=minutes]")
        interviewer.keyboard.press("Control+a")
        interviewer.keyboard.type("30")
        unseen += tab_to(interviewer, "#live-form input[name=candidate]")
        interviewer.keyboard.type("candidate")
        unseen += tab_to(interviewer, "#live-form button[type=submit]")
        interviewer.keyboard.press("Enter")
        expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/$"))
        session_path = re.sub(r"^https?://[^/]+", "", interviewer.url)
        invite = interviewer.input_value("#invite-url")

        # Joining: the invitation's page, Tab to Join, Enter.
        candidate = person()
        log_in(candidate, platform, "candidate", "/sessions/")
        candidate.goto(invite)
        unseen += tab_to(candidate, "#join-form button[type=submit]")
        candidate.keyboard.press("Enter")
        for each in (candidate, interviewer):
            expect(each.locator("#session")).to_have_attribute(
                "data-status", "active", timeout=TIMEOUT_MS
            )
            expect(each.locator("#session")).to_have_attribute(
                "data-ready", "true", timeout=TIMEOUT_MS
            )

        # The candidate chats and asks a question; each arrives on the other side.
        unseen += tab_to(candidate, "#chat-form input[name=text]")
        candidate.keyboard.type("Can I use a dict here?")
        candidate.keyboard.press("Enter")
        expect(interviewer.locator("#chat .chat-message")).to_have_count(1, timeout=TIMEOUT_MS)
        unseen += tab_to(candidate, "#question-form textarea")
        candidate.keyboard.type("Can the cost exceed the capacity?")
        unseen += tab_to(candidate, "#question-form button[type=submit]")
        candidate.keyboard.press("Enter")
        expect(interviewer.locator("#questions")).to_contain_text(
            "Can the cost exceed the capacity?", timeout=TIMEOUT_MS
        )

        # The interviewer releases a hint, gives ten more minutes, and ends the session
        # (the browser's confirmation is answered as a key would).
        if interviewer.locator("[data-tab-button=prompts]").is_visible():  # the side tabs
            unseen += tab_to(interviewer, "[data-tab-button=prompts]")
            interviewer.keyboard.press("Enter")
        unseen += tab_to(interviewer, "#hint-reveal")
        interviewer.keyboard.press("Enter")
        expect(candidate.locator("#session-hints .hint")).to_have_count(1, timeout=TIMEOUT_MS)
        unseen += tab_to(interviewer, "#extend-minutes", key="Shift+Tab")
        interviewer.keyboard.press("ArrowDown")  # 10 -> 15 minutes
        unseen += tab_to(interviewer, "#extend-button")
        interviewer.keyboard.press("Enter")
        expect(candidate.locator("#session-banner")).to_have_text(
            "Your interviewer gave you 15 more minutes.", timeout=TIMEOUT_MS
        )
        interviewer.once("dialog", lambda dialog: dialog.accept())
        unseen += tab_to(interviewer, "#finish-button")
        interviewer.keyboard.press("Enter")
        expect(candidate.locator("#session")).to_have_attribute(
            "data-status", "finished", timeout=TIMEOUT_MS
        )

        # The scorecard: each criterion's level by arrows, a recommendation typed into its
        # select, Submit by Enter.
        interviewer.goto(session_path + "review/")
        criteria = interviewer.locator("#scorecard-form fieldset.criterion")
        for index in range(criteria.count()):
            name = criteria.nth(index).get_attribute("data-criterion")
            unseen += tab_to(interviewer, f'input[name="level-{name}"]')
            interviewer.keyboard.press("Space")
            interviewer.keyboard.press("ArrowRight")
            interviewer.keyboard.press("ArrowRight")
            expect(interviewer.locator(f'input[name="level-{name}"][value="3"]')).to_be_checked()
        unseen += tab_to(interviewer, "select[name=recommendation]")
        interviewer.keyboard.type("Yes")
        unseen += tab_to(interviewer, "#scorecard-submit")
        interviewer.keyboard.press("Enter")
        expect(interviewer.locator("#scorecard-submitted")).to_contain_text("Yes")
    finally:
        for context in contexts:
            context.close()
    assert unseen == [], f"focused without a visible indicator: {unseen}"
    assert watch.problems == [], "\n".join(watch.problems)


def test_the_studio_new_problem_flow_without_a_mouse(browser: Browser, platform: Platform) -> None:
    """The author creates a problem, writes its statement (the preview follows) and a hint, and
    saves the draft: Tab, typing, arrows and Enter only."""
    slug = f"by-keys-{secrets.token_hex(3)}"
    watch = Watch()
    context = browser.new_context(
        base_url=platform.base_url, viewport={"width": 1440, "height": 1000}
    )
    unseen: list[str] = []
    try:
        page = context.new_page()
        watch.attach(page)
        log_in(page, platform, "author", "/studio/new/")
        unseen += tab_to(page, "input[name=slug]")
        page.keyboard.type(slug)
        unseen += tab_to(page, "input[name=title]")
        page.keyboard.type("Made by keys")
        unseen += tab_to(page, "select[name=difficulty]")
        page.keyboard.type("easy")
        unseen += tab_to(page, "input[name=topics]")
        page.keyboard.type("warm-up")
        unseen += tab_to(page, "#create-button")
        page.keyboard.press("Enter")
        expect(page).to_have_url(f"{platform.base_url}/studio/{slug}/")

        unseen += tab_to(page, "textarea[name=statement_md]")
        page.keyboard.press("Control+a")
        page.keyboard.type("# Made by keys\n\nReturn `2 * x`.\n")
        expect(page.locator("#statement-preview h1")).to_have_text("Made by keys")
        unseen += tab_to(page, "form.statement-editor button[type=submit]")
        page.keyboard.press("Enter")
        expect(page.locator(".studio-message-success").first).to_be_visible()

        unseen += tab_to(page, "input[name=hint-0-text]")
        page.keyboard.type("Multiply.")
        unseen += tab_to(page, "#parts-save")
        page.keyboard.press("Enter")
        expect(page.locator(".studio-message-success")).to_contain_text("Saved as draft")
        expect(page.locator("input[name=hint-0-text]")).to_have_value("Multiply.")
    finally:
        context.close()
    assert unseen == [], f"focused without a visible indicator: {unseen}"
    assert watch.problems == [], "\n".join(watch.problems)
