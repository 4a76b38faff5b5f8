"""A report opened before grading ends (issue 36.8): it says the final submission is still
grading, asks again by itself, and shows the results once they are in; its start time is in
the reader's zone, the zone named, and its PDF link asks for that zone.

The page is the real report, rendered by Django for each request the browser makes (the
test client, through a Playwright route, under the real Content-Security-Policy the
response carries); static files come from the apps' static folders.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from playwright.sync_api import Browser, Request, Route, expect

from core.csp import HEADER
from grading.models import Submission
from tests.factories import client_for
from tests.interviews.worlds import build_world
from tests.processes import SCREENSHOTS

# Committed data: Playwright calls the route from its own greenlet, which Django gives a
# database connection of its own.
pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ORIGIN = "http://onsite.test"


@pytest.fixture(scope="module", autouse=True)
def orm_beside_playwright() -> Iterator[None]:
    """This module renders pages with the ORM while Playwright's sync loop runs in the same
    thread (module-scoped, so it holds before the browser and the test database start):
    Django's guard is against async code, and none runs here."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


def test_a_report_opened_while_grading_says_so_and_refreshes_itself(
    browser: Browser,
) -> None:
    world = build_world()
    final = world.final
    Submission.objects.filter(pk=final.pk).update(status="running", verdict="", passed=0, total=0)
    client = client_for(world.owner)
    asked: list[str] = []

    def http(route: Route, request: Request) -> None:
        path = request.url.removeprefix(ORIGIN)
        if path.startswith("/static/"):
            found = finders.find(path.removeprefix("/static/").split("?")[0])
            assert isinstance(found, str), path
            mime = mimetypes.guess_type(found)[0] or "application/octet-stream"
            route.fulfill(status=200, body=Path(found).read_bytes(), content_type=mime)
            return
        asked.append(path)
        response = client.get(path)
        headers = {HEADER: response[HEADER]} if response.has_header(HEADER) else {}
        route.fulfill(
            status=response.status_code,
            body=response.content,
            content_type=response["Content-Type"],
            headers=headers,
        )

    context = browser.new_context(
        base_url=ORIGIN,
        timezone_id="America/New_York",
        locale="en-US",
        viewport={"width": 1440, "height": 900},
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route("**/*", http)
    report = f"/sessions/{world.session.pk}/report/"
    page.goto(report)

    expect(page.locator("#report")).to_have_attribute("data-grading", "true")
    expect(page.locator("#report-grading")).to_contain_text("grading…")
    expect(page.locator("#report")).not_to_contain_text("running")
    # The start in the reader's zone, named (December in New York: EST); the PDF asks for it.
    expect(page.locator("#report-started")).to_contain_text("EST")
    pdf = page.locator("#report-pdf").get_attribute("href") or ""
    assert pdf.endswith("?tz=America%2FNew_York"), pdf
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "report-grading-1440.png"), full_page=True)

    # Grading ends: the open page shows the results without anyone reloading it.
    Submission.objects.filter(pk=final.pk).update(status="done", verdict="WA", passed=4, total=5)
    expect(page.locator("#report-tests")).to_contain_text("4/5 tests passed", timeout=20_000)
    expect(page.locator("#report")).not_to_have_attribute("data-grading", "true")
    assert asked.count(report) >= 2  # it asked again by itself
    page.screenshot(path=str(SCREENSHOTS / "report-graded-1440.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SCREENSHOTS / "report-graded-390.png"), full_page=True)
    context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"
