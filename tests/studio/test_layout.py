"""The studio's pages fit the screen (issue 28, point 8): in Debian's chromium, at 390, 1280 and
1440 px, the problem editor, a version page with validation, timing and regrade tables, and
the tokens page have no horizontal scroll at desktop widths, no two cells of a row overlap, and
every button in a table is drawn whole inside its cell.

The pages are rendered by Django's test client with real data (a stored report, a regrade
preview, tokens); chromium then loads that HTML with the real stylesheets and bundle, served
from the static finders. Rendering first keeps the ORM out of Playwright's event loop.
Screenshots land in var/screenshots/studio/.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from playwright.sync_api import Page, Route, sync_playwright

from core.tokens import token_create
from grading.models import Submission
from problems.models import ProblemVersion
from studio.models import Regrade, RegradeItem
from tests.factories import ADD_ONE, client_for, tiny_problem, user_with_role
from tests.frontend.conftest import CHROMIUM, CHROMIUM_ARGS, bundle_ensure
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.django_db

SHOTS = SCREENSHOTS / "studio"
ORIGIN = "http://studio.test"
WIDTHS = (390, 1280, 1440)
LONG = "a-rather-long-solution-name-that-would-push-its-neighbours_" * 2


def _report() -> dict[str, Any]:
    check = {"role": "wrong", "expected": "WA", "got": "AC", "status": "fail",
             "why": "forgets the +1 " * 8, "passed_tests": 15, "total_tests": 15,
             "tests": [{"name": "secret 1", "verdict": "WA", "hidden": True, "message": "x"}],
             "message": "declared WA, got AC " * 4}  # fmt: skip
    return {
        "passed": False,
        "checks": [check | {"role": "reference", "name": "reference.py", "status": "pass",
                            "expected": "AC", "got": "AC"},
                   check | {"name": f"wrong/{LONG}.py"}],
        "timing": {"status": "warn", "limit_ms": 2000.0, "slowest_ms": 1500.0,
                   "slowest_test": "secret 1", "multiplier": 3.0, "floor_seconds": 1.0,
                   "flag_fraction": 0.5, "suggested_limit_seconds": 4.5, "flagged": [LONG],
                   "warnings": ["1 test(s) take the reference over 50% of the 2 s limit"],
                   "tests": [{"name": LONG, "hidden": True, "tag": "edge_cases",
                              "verdict": "AC", "time_ms": 1500.0, "percent_of_limit": 75.0,
                              "flagged": True}] * 3},
        "lint": {"status": "warn", "issues": ["needs at least 12 hidden tests"]},
        "error": "",
    }  # fmt: skip


def _pages() -> dict[str, tuple[int, dict[str, str], bytes]]:
    writer = user_with_role("writer", "author")
    problem = tiny_problem(published=False, hidden=4)
    problem.owner = writer
    problem.save()
    v1 = problem.versions.get(number=1)
    ProblemVersion.objects.filter(pk=v1.pk).update(validation="failed", validation_report=_report())
    candidate = user_with_role("candidate-with-a-long-username-indeed", "candidate")
    regrade = Regrade.objects.create(version=v1, status="done", total=3, done=3, changed=1)
    for n in range(3):
        submission = Submission.objects.create(
            user=candidate, problem=problem, version=v1, mode="submit", code=ADD_ONE,
            status="done", verdict="AC", passed=5, total=5,
        )  # fmt: skip
        RegradeItem.objects.create(
            regrade=regrade, submission=submission, old_version_number=1, old_verdict="AC",
            old_passed=5, old_total=5, new_verdict="WA", new_passed=4, new_total=6,
            changed=n == 0, message="now fails secret 1",
        )  # fmt: skip
    for name in ("grading script", LONG[:80]):
        token_create(user=writer, name=name)
    client: Client = client_for(writer)
    pages = {}
    for name, url in (
        ("problem", "/studio/add-one/"),
        ("version", "/studio/add-one/v1/"),
        ("tokens", "/accounts/tokens/"),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        headers = {k: v for k, v in response.items() if k.lower() != "content-length"}
        pages[name] = (response.status_code, headers, response.content)
    return pages


def _serve(pages: dict[str, tuple[int, dict[str, str], bytes]], route: Route) -> None:
    path = route.request.url.removeprefix(ORIGIN).split("?")[0]
    if path.startswith("/static/"):
        found = finders.find(path.removeprefix("/static/"))
        if found:
            body = Path(str(found)).read_bytes()
            kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
            route.fulfill(status=200, body=body, content_type=kind)
            return
    page = pages.get(path.strip("/").replace("/", "-"))
    if page is None:
        route.fulfill(status=404, body=b"")
        return
    status, headers, body = page
    route.fulfill(status=status, headers=headers, body=body)


OVERLAPS = """() => {
  const bad = [];
  for (const row of document.querySelectorAll('table tr')) {
    const cells = [...row.children].map(c => c.getBoundingClientRect());
    for (let i = 1; i < cells.length; i++) {
      const over = cells[i].width && cells[i - 1].right > cells[i].left + 1;
      if (over) bad.push(row.outerHTML.slice(0, 120));
    }
    for (const cell of row.children) {
      const box = cell.getBoundingClientRect();
      for (const el of cell.querySelectorAll('button, .button, code')) {
        const r = el.getBoundingClientRect();
        if (r.width && (r.left < box.left - 1 || r.right > box.right + 1)) {
          bad.push('clipped ' + el.outerHTML.slice(0, 80));
        }
      }
    }
  }
  return bad;
}"""


def _rows_and_gutters(page: Page) -> None:
    """The static rows.js: line numbers beside each JSON view; add and remove rows."""
    assert page.locator("#tests .lined .line-numbers").count() == 2
    numbers = page.locator("#tests .lined .line-numbers").first.text_content() or ""
    assert numbers.split() == [str(n) for n in range(1, len(numbers.split()) + 1)]
    rows = page.locator("table[data-rows=clar] tbody tr")
    before = rows.count()
    page.click("[data-row-add=clar]")
    assert rows.count() == before + 1
    assert rows.last.locator("textarea").first.get_attribute("name") == f"clar-{before}-question"
    rows.first.locator("[data-row-remove]").click()
    assert rows.count() == before
    last = rows.last.locator("textarea").first.get_attribute("name")
    assert last == f"clar-{before - 1}-question"


@pytest.mark.slow  # builds the bundle and drives Debian's chromium (test-fast runs no browser)
def test_the_studio_pages_fit_at_phone_and_desktop_widths() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed")
    bundle_ensure()
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages = _pages()
    aliases = {"studio-add-one": pages["problem"], "studio-add-one-v1": pages["version"],
               "accounts-tokens": pages["tokens"]}  # fmt: skip
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for width in WIDTHS:
                context = browser.new_context(viewport={"width": width, "height": 900})
                page = context.new_page()
                page.route("**/*", lambda route: _serve(aliases, route))
                for name, url in (
                    ("problem", "studio/add-one/"),
                    ("version", "studio/add-one/v1/"),
                    ("tokens", "accounts/tokens/"),
                ):
                    page.goto(f"{ORIGIN}/{url}")
                    page.wait_for_load_state("load")
                    page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
                    if name == "problem":
                        _rows_and_gutters(page)
                    if width >= 1280:
                        fits = page.evaluate("document.documentElement.scrollWidth <= innerWidth")
                        assert fits, f"{name} scrolls sideways at {width} px"
                        assert page.evaluate(OVERLAPS) == [], f"{name} at {width} px"
                context.close()
        finally:
            browser.close()
