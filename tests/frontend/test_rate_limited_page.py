"""The 429 page of a form post over its limit (core.edges.form_edge), in a real browser: an
author clicks the studio's Unpublish again too soon and gets the site's layout saying that
nothing was saved, when to try again and the way back; at a desk's width and at a phone's.

The pages are the real ones, rendered by Django for each request the browser makes (the test
client, through a Playwright route, under the real Content-Security-Policy the response
carries); static files come from the apps' static folders.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from playwright.sync_api import Browser, Request, Route, expect

from core.csp import HEADER
from problems.models import Problem
from tests.factories import client_for, tiny_problem, user_with_role
from tests.processes import SCREENSHOTS

# Committed data: Playwright calls the route from its own greenlet, which Django gives a
# database connection of its own.
pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ORIGIN = "http://onsite.test"


@pytest.fixture(scope="module", autouse=True)
def orm_beside_playwright() -> Iterator[None]:
    """Pages rendered with the ORM while Playwright's sync loop runs in the same thread:
    Django's guard is against async code, and none runs here."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


def _through(client: Client) -> Any:
    def http(route: Route, request: Request) -> None:
        path = request.url.removeprefix(ORIGIN)
        if path.startswith("/static/"):
            found = finders.find(path.removeprefix("/static/").split("?")[0])
            assert isinstance(found, str), path
            mime = mimetypes.guess_type(found)[0] or "application/octet-stream"
            route.fulfill(status=200, body=Path(found).read_bytes(), content_type=mime)
            return
        if request.method == "POST":
            response = client.post(path, data=request.post_data or "",
                                   content_type=request.headers.get("content-type", ""),
                                   HTTP_REFERER=request.headers.get("referer", ""))
        else:
            response = client.get(path)
        headers = {name: response[name] for name in (HEADER, "Location", "Retry-After")
                   if response.has_header(name)}
        route.fulfill(status=response.status_code, body=response.content,
                      content_type=response.get("Content-Type", "text/html"), headers=headers)

    return http


def test_a_button_clicked_over_its_limit_shows_the_429_page(
    browser: Browser, settings: Any
) -> None:
    # One a day, not one a minute: the limit counts in fixed windows, and two clicks seconds
    # apart on a loaded machine can fall in two minutes (the second is then taken: a flake).
    settings.ONSITE_RATES = {**settings.ONSITE_RATES, "studio": "1/day"}
    problem = tiny_problem("rate-one")
    client = client_for(user_with_role("boss", admin=True))
    context = browser.new_context(base_url=ORIGIN, viewport={"width": 1440, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route("**/*", _through(client))
    problem_url = f"/studio/{problem.slug}/"

    # the first Unpublish is taken; published again, the second within the day is not
    page.goto(problem_url)
    page.get_by_role("button", name="Unpublish").click()
    expect(page.locator(".studio-messages")).to_contain_text("hidden from candidates")
    Problem.objects.filter(pk=problem.pk).update(published=True)
    page.reload()
    with page.expect_response(f"**{problem_url}unpublish/") as answer:
        page.get_by_role("button", name="Unpublish").click()
    assert answer.value.status == 429 and 1 <= int(answer.value.headers["retry-after"]) <= 86400

    expect(page.locator("#error-page")).to_have_attribute("data-status", "429")
    expect(page.locator("h1")).to_have_text("Not saved: too many requests")
    expect(page.locator("#rate-limited-when")).to_contain_text("Try again in")
    back = page.locator("#rate-limited-back")
    assert (back.get_attribute("href") or "").endswith(problem_url)
    assert Problem.objects.get(pk=problem.pk).published  # nothing changed
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "rate-limited-1440.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    expect(back).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "rate-limited-390.png"), full_page=True)
    back.click()
    expect(page).to_have_url(f"{ORIGIN}{problem_url}")
    context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"
