"""End to end in the studio (real daphne, worker and Docker sandbox, as in test_run_flow).

An admin edits a bank problem's statement with the live htmx preview and validates it; and, on
the platform's fresh database, an author creates a problem from nothing, adds tests and wrong
solutions, validates, makes it live and publishes; a candidate then solves it, and a second
author, not an owner, can read it but not edit it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import Platform
from tests.e2e.studio_pages import code_type, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.docker]

STUDIO_URL = "/studio/token-bucket/"
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "var" / "screenshots"
SHOTS.mkdir(parents=True, exist_ok=True)
VALIDATION_TIMEOUT_MS = 240_000  # seven sandbox runs on a busy two-core machine


def test_author_previews_the_statement_and_validates_the_live_version(
    page: Page, platform: Platform
) -> None:
    page.goto(STUDIO_URL)
    # Bank problems have no owner: admins edit them.
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", platform.password)
    page.click("form.login-form button[type=submit]")
    expect(page).to_have_url(platform.base_url + STUDIO_URL)
    # The URL changes when the navigation commits; typing before the page's scripts ran
    # would go unseen by the preview's listener.
    page.wait_for_load_state("load")

    # Live preview: typing posts the Markdown; the sanitised, highlighted HTML comes back.
    page.evaluate("window.__sameDocument = true")
    page.fill(
        "textarea[name=statement_md]",
        "# Preview check\n\n```python\ndef take(now):\n    return True\n```\n\n"
        "<script>window.__pwned = true</script>\n",
    )
    preview = page.locator("#statement-preview")
    expect(preview.locator("h1")).to_have_text("Preview check")
    expect(preview.locator(".codehilite .k").first).to_have_text("def")
    assert preview.locator("script").count() == 0
    assert page.evaluate("window.__pwned === undefined && window.__sameDocument") is True
    page.screenshot(path=str(SHOTS / "studio-bank-problem-1440.png"), full_page=True)

    # Validate v1: the worker grades every solution; the polled panel shows the report.
    page.click("a[href='/studio/token-bucket/v1/']")
    page.click("#validate-button")
    panel = page.locator("#version-panel")
    expect(panel).to_have_attribute("data-state", "passed", timeout=VALIDATION_TIMEOUT_MS)
    expect(panel.locator("tr[data-check='reference.py'] .state")).to_have_text("pass")
    expect(panel.locator("tr.check-fail")).to_have_count(0)
    expect(page.locator("#suggested-limit")).to_contain_text(" s")
    page.screenshot(path=str(SHOTS / "studio-bank-version-1440.png"), full_page=True)

    # The candidate's page shows the declared constraints, rendered from problem.toml (36.10).
    page.goto("/problems/token-bucket/")
    heading = page.locator("article.statement h2", has_text="Constraints")
    listed = heading.locator("xpath=following-sibling::ul[1]")
    expect(listed.locator("li").first).to_have_text("0 < capacity <= 10^9.")
    heading.scroll_into_view_if_needed()
    listed.screenshot(path=str(SHOTS / "statement-constraints-1440.png"))
    page.set_viewport_size({"width": 390, "height": 900})
    heading.scroll_into_view_if_needed()
    listed.screenshot(path=str(SHOTS / "statement-constraints-390.png"))


# ---------------------------------------------------------------- a problem from nothing

SLUG = "double-it"
REFERENCE = "def solve(x):\n    return 2 * x\n"
WRONG = {
    "wrong/adds.py": ("WA", "adds one too many", "def solve(x):\n    return x + x + 1\n"),
    "wrong/crashes.py": ("RE", "divides by zero", "def solve(x):\n    return 2 * x // x * x\n"),
}
CLARIFICATIONS = [
    {"question": f"Question {i}?", "answer": f"Answer {i}.", "key": i == 0} for i in range(4)
]
RUBRIC = [
    {
        "criterion": "edge_cases",
        "weight": 1,
        "strong": "names zero and negatives",
        "levels": ["none", "zero", "zero and negatives", "all, unprompted"],
    }
]


def _test(name: str, x: int, tag: str = "correctness") -> dict[str, object]:
    return {"name": name, "input": {"args": [x]}, "expected": 2 * x, "tag": tag}


def make_second_author(platform: Platform) -> None:
    """A second author on the platform's own database (the demo accounts have only one)."""
    platform.shell(
        "from django.contrib.auth.models import Group, User\n"
        f"u = User.objects.create_user('author2', password={platform.password!r})\n"
        "u.groups.add(Group.objects.get(name='author'))\n"
    )


def test_an_author_creates_validates_and_publishes_a_problem_a_candidate_solves(
    browser: Browser, platform: Platform
) -> None:
    context = browser.new_context(
        base_url=platform.base_url, viewport={"width": 1440, "height": 1000}
    )
    page = context.new_page()
    log_in(page, platform, "author", "/studio/new/")

    # New problem from nothing.
    page.fill("input[name=slug]", SLUG)
    page.fill("input[name=title]", "Double it")
    page.select_option("select[name=difficulty]", "easy")
    page.fill("input[name=topics]", "warm-up")
    page.click("#create-button")
    expect(page).to_have_url(f"{platform.base_url}/studio/{SLUG}/")

    # Code, hints, clarifications (one key), rubric anchors; the live statement preview.
    page.fill("textarea[name=statement_md]", "# Double it\n\nReturn `2 * x`.\n")
    expect(page.locator("#statement-preview h1")).to_have_text("Double it")
    page.click("form.statement-editor button[type=submit]")
    # The code parts are CodeMirror editors (line numbers, Python highlighting), each kept in
    # step with the hidden textarea the form posts.
    editor = page.locator("#parts .studio-code-editor[data-code-for=reference_code]")
    expect(editor.locator(".cm-lineNumbers")).to_have_count(1)
    expect(page.locator("#parts textarea[name=reference_code]")).to_be_hidden()
    expect(page.locator("#parts .studio-code-editor")).to_have_count(5)
    code_type(page, "#parts", "reference_code", REFERENCE.splitlines())
    expect(editor.locator(".cm-line").first.locator("span").first).to_have_text("def")
    posted = page.locator("#parts textarea[name=reference_code]").input_value()
    assert posted == REFERENCE.rstrip("\n"), posted
    # Hints are rows too (one line each, in unlock order), added with their button.
    page.fill("input[name=hint-0-text]", "Multiply.")
    page.click("[data-row-add=hint]")
    page.fill("input[name=hint-1-text]", "By two.")
    expect(page.locator("#hint-rows .row-number")).to_have_text(["1", "2"])
    # Clarifications and rubric are rows; their JSON is the advanced view, used when ticked.
    for name in ("clarifications", "rubric"):
        page.click(f"#{name}-json-view summary")
        page.check(f"input[name={name}_as_json]")
    page.fill("textarea[name=clarifications]", json.dumps(CLARIFICATIONS))
    page.fill("textarea[name=rubric]", json.dumps(RUBRIC))
    page.click("#parts-save")
    expect(page.locator(".studio-message-success")).to_contain_text("Saved as draft")
    # the page comes back with the saved code in the editor
    saved = page.locator("#parts .studio-code-editor[data-code-for=reference_code] .cm-line")
    expect(saved).to_have_text(REFERENCE.rstrip("\n").splitlines())
    page.set_viewport_size({"width": 390, "height": 900})
    page.locator("#parts").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "studio-code-editors-390.png"), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.screenshot(path=str(SHOTS / "studio-code-editors-1440.png"), full_page=True)

    # Tests: most at once as JSON, then one through the table's form.
    public = [_test(f"public {i}", i) for i in range(1, 4)]
    hidden = [
        _test(f"hidden {i}", 10 + i, "edge_cases" if i % 3 == 0 else "correctness")
        for i in range(11)
    ]
    page.fill("textarea[name=public_tests]", json.dumps(public))
    page.fill("textarea[name=hidden_tests]", json.dumps(hidden))
    page.click("form.tests-editor button[type=submit]")
    page.goto(f"/studio/{SLUG}/#test-form")
    page.fill("input[name=name]", "zero")
    page.select_option("select[name=visibility]", "hidden")
    page.select_option("select[name=tag]", "edge_cases")
    page.fill("textarea[name=input]", '{"args": [0]}')
    page.fill("textarea[name=expected]", "0")
    page.click("#test-save")
    expect(page.locator("tr[data-test='zero']")).to_have_count(1)

    # Two known-wrong solutions with the verdicts they must get.
    for file, (verdict, why, code) in WRONG.items():
        page.fill("#wrong input[name=file]", file)
        page.select_option("#wrong select[name=verdict]", verdict)
        page.fill("#wrong input[name=why]", why)
        code_type(page, "#wrong", "code", code.splitlines())
        page.click("#wrong-add")
        expect(page.locator(f"tr[data-wrong='{file}']")).to_have_count(1)
    page.screenshot(path=str(SHOTS / "studio-new-problem-1440.png"), full_page=True)

    # Not offered yet: publishing is refused while the live version is not validated.
    page.click("#publish-button")
    expect(page.locator(".studio-message-error")).to_contain_text("has not passed validation")

    # Validate the newest version, make it live, publish.
    newest = page.locator("table.version-table tbody tr").first
    newest.locator("a").first.click()
    page.click("#validate-button")
    panel = page.locator("#version-panel")
    expect(panel).to_have_attribute("data-state", "passed", timeout=VALIDATION_TIMEOUT_MS)
    expect(panel.locator("tr[data-check='wrong/adds.py'] .state")).to_have_text("pass")
    page.screenshot(path=str(SHOTS / "studio-new-version-1440.png"), full_page=True)
    page.click("#live-button")
    # Not published yet: candidates do not get it, so it does not read "live" (issue 36.10).
    label = page.locator("#version-panel [data-live-label]")
    expect(label).to_have_text("current, unpublished")
    expect(page.locator("#version-panel .state-live")).to_have_count(0)
    page.locator("#version-panel .studio-actions").screenshot(
        path=str(SHOTS / "studio-current-unpublished-1440.png")
    )
    version_url = page.url
    page.goto(f"/studio/{SLUG}/")
    page.click("#publish-button")
    expect(page.locator(".studio-message-success")).to_contain_text("is published")
    page.goto(version_url)
    expect(page.locator("#version-panel .state-live")).to_have_text("live")
    page.locator("#version-panel .studio-actions").screenshot(
        path=str(SHOTS / "studio-live-1440.png")
    )
    page.goto(f"/studio/{SLUG}/")
    expect(page.locator("td.changed-by").first).to_have_text("author")
    context.close()

    # A candidate sees it and solves it.
    context = browser.new_context(
        base_url=platform.base_url, viewport={"width": 1440, "height": 1000}
    )
    page = context.new_page()
    log_in(page, platform, "candidate", f"/problems/{SLUG}/")
    expect(page.locator("#problem")).to_have_attribute("data-ready", "true")
    page.evaluate("code => window.onsiteEditor.setCode(code)", REFERENCE)
    page.click("#submit-button")
    summary = page.locator("#result-summary")
    expect(summary.locator(".verdict")).to_have_text("AC", timeout=VALIDATION_TIMEOUT_MS)
    page.screenshot(path=str(SHOTS / "candidate-solves-1440.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 900})
    page.screenshot(path=str(SHOTS / "candidate-solves-390.png"), full_page=True)
    context.close()

    # A second author reads it but cannot edit it.
    make_second_author(platform)
    context = browser.new_context(
        base_url=platform.base_url, viewport={"width": 1440, "height": 1000}
    )
    page = context.new_page()
    log_in(page, platform, "author2", f"/studio/{SLUG}/")
    expect(page.locator("#read-only")).to_be_visible()
    expect(page.locator("#parts-save")).to_have_count(0)
    # The server refuses too, not only the page: a well-formed POST (with its CSRF token).
    csrf = next(c["value"] for c in context.cookies() if c["name"] == "csrftoken")
    refused = page.request.post(f"/studio/{SLUG}/unpublish/", headers={"X-CSRFToken": csrf})
    assert refused.status == 403
    page.set_viewport_size({"width": 390, "height": 900})
    page.screenshot(path=str(SHOTS / "studio-read-only-390.png"), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.screenshot(path=str(SHOTS / "studio-read-only-1440.png"), full_page=True)
    context.close()
