"""End to end in the author's studio (issue 34.5), on the real platform: two co-authors save
stale copies of the statement; where both changed the same line the second is shown both
sides, side by side, with a choice; resolved, every other line of both stays. The limits have
a form of their own. Screenshots at 1440 and 390 px of the conflict view and the limits form.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.conftest import Platform
from tests.e2e.studio_pages import log_in
from tests.processes import SCREENSHOTS

pytestmark = [pytest.mark.e2e, pytest.mark.docker]

SLUG = "merge-view"
COAUTHOR = "coauthor34"
SHOTS = SCREENSHOTS / "merge"
SHOTS.mkdir(parents=True, exist_ok=True)
STATEMENT = "# Merge view\n\nReturn x + 1.\n\nInputs are integers.\n"


def shoot(page: Page, name: str, target: Locator) -> None:
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        target.scroll_into_view_if_needed()
        target.screenshot(path=str(SHOTS / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 1440, "height": 900})


def statement_save(page: Page, text: str) -> None:
    page.fill("#statement textarea[name=statement_md]", text)
    page.click("#statement button[type=submit]")


def test_co_authors_stale_statement_saves_are_merged_or_shown_side_by_side(
    browser: Browser, platform: Platform
) -> None:
    platform.shell(
        "from django.contrib.auth.models import Group, User\n"
        f"u, _ = User.objects.get_or_create(username={COAUTHOR!r})\n"
        f"u.set_password({platform.password!r})\n"
        "u.save()\n"
        "u.groups.add(Group.objects.get(name='author'))\n"
    )
    errors: list[str] = []
    first = browser.new_context(base_url=platform.base_url, viewport={"width": 1440, "height": 900})
    page_a = first.new_page()
    page_a.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page_a, platform, "author", "/studio/new/")
    page_a.fill("input[name=slug]", SLUG)
    page_a.fill("input[name=title]", "Merge view")
    page_a.click("#create-button")
    expect(page_a).to_have_url(f"{platform.base_url}/studio/{SLUG}/")
    page_a.fill("#coauthor-username", COAUTHOR)
    page_a.locator("#authors button[type=submit]", has_text="Add").click()
    expect(page_a.locator(".coauthor")).to_contain_text(COAUTHOR)
    statement_save(page_a, STATEMENT)
    expect(page_a.locator(".studio-message-success")).to_contain_text("Saved as draft")

    second = browser.new_context(
        base_url=platform.base_url, viewport={"width": 1440, "height": 900}
    )
    page_b = second.new_page()
    page_b.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page_b, platform, COAUTHOR, f"/studio/{SLUG}/")

    # both pages show the same statement; the author rewords a line and adds a note
    statement_save(page_a, STATEMENT.replace("x + 1", "x+1") + "\nThe author's note.\n")
    expect(page_a.locator(".studio-message-success")).to_contain_text("Saved as draft")
    # the co-author, still on the older page, changes the title and the same line
    mine = STATEMENT.replace("x + 1", "x plus 1").replace("# Merge view", "# Merge view, too")
    statement_save(page_b, mine)

    # the overlapping line is shown both ways, side by side, with a choice; nothing saved
    conflict = page_b.locator("#statement #conflict")
    expect(conflict).to_be_visible()
    expect(conflict.locator(".conflict-title")).to_contain_text(
        "you and author changed the same place"
    )
    expect(conflict.locator(".hunk")).to_have_count(1)
    expect(conflict.locator(".hunk-mine pre")).to_have_text("Return x plus 1.\n")
    expect(conflict.locator(".hunk-theirs pre")).to_have_text("Return x+1.\n")
    expect(conflict.locator("input[value=mine]")).to_be_checked()
    expect(page_b.locator("#statement textarea[name=statement_md]")).to_have_value(mine)
    shoot(page_b, "statement-conflict", conflict)

    # resolved with both sides edited into one line: every other change of both stays
    conflict.locator("input[value=edited]").check()
    expect(conflict.locator("textarea.hunk-edit")).to_be_visible()  # shown once chosen
    conflict.locator("textarea.hunk-edit").fill("Return x + 1 (x plus one).")
    shoot(page_b, "statement-conflict-edited", conflict.locator(".hunk"))
    page_b.click("#reapply")
    expect(page_b.locator(".studio-message-success")).to_contain_text("Saved as draft")
    expect(page_b.locator("#statement textarea[name=statement_md]")).to_have_value(
        "# Merge view, too\n\nReturn x + 1 (x plus one).\n\nInputs are integers.\n\n"
        "The author's note.\n"
    )

    # the limits: a small form of their own, whatever the tests
    limits = page_b.locator("#limits")
    page_b.fill("#limits input[name=memory_mb]", "512")
    page_b.click("#limits-save")
    expect(page_b.locator(".studio-message-success")).to_contain_text("Limits saved as draft")
    expect(page_b.locator("#limits input[name=memory_mb]")).to_have_value("512")
    shoot(page_b, "limits-form", limits)

    # a form over the upload limit is told why, never a bare 400
    page_b.locator("#tests-form textarea[name=hidden_tests]").evaluate(
        "(area) => { area.value = '[' + ' '.repeat(3 * 1024 * 1024) + ']'; }"
    )
    page_b.click("#tests-form button[type=submit]")
    expect(page_b.locator("#too-large-reason")).to_contain_text("over the 2.5")
    shoot(page_b, "too-large", page_b.locator("#error-page"))
    page_b.click("#too-large-back")
    expect(page_b).to_have_url(f"{platform.base_url}/studio/{SLUG}/")
    first.close()
    second.close()
    assert errors == [], f"uncaught errors in the page: {errors}"
