"""The one edge of HTML form posts (core.edges.form_edge): method, rate-limit scope counted in
the real Redis, the styled 429 page, and every ApplicationError a page (the form again with
what was typed, or a message), never a 500."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.signed_cookies import SessionStore
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.test import Client, RequestFactory

from core.edges import form_edge
from core.errors import ApplicationError
from interviews.models import InterviewSession
from problems.models import Problem
from tests.factories import client_for, tiny_problem, user_with_role

factory = RequestFactory()
MAX_POSTS = 6  # enough to pass a limit of 2 even if a minute's window turns over once


def _unique_scope(settings: Any, rate: str = "2/min") -> str:
    """A scope of this test alone (the Redis is shared by every test process)."""
    scope = f"edge-test-{uuid.uuid4().hex[:12]}"
    settings.ONSITE_RATES = {**settings.ONSITE_RATES, scope: rate}
    return scope


def _post(view: Any, data: dict[str, str] | None = None, **headers: str) -> HttpResponse:
    request = factory.post("/x", data or {}, headers=headers)
    request.user = AnonymousUser()
    request.session = SessionStore()
    request._messages = FallbackStorage(request)  # type: ignore[attr-defined]
    response: HttpResponse = view(request)
    response.request_for_test = request  # type: ignore[attr-defined]
    return response


def _until_refused(post: Any) -> tuple[list[int], Any]:
    """Post until an answer is a 429 (at most MAX_POSTS): the statuses and the last answer."""
    statuses: list[int] = []
    response = None
    for _ in range(MAX_POSTS):
        response = post()
        statuses.append(response.status_code)
        if response.status_code == 429:
            break
    return statuses, response


def _assert_the_429_page(response: Any) -> str:
    page = response.content.decode()
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert response["Content-Type"].startswith("text/html")
    # on the site's layout, saying when to try again and that nothing was saved
    assert 'class="site-header"' in page and 'data-status="429"' in page
    assert "Not saved: too many requests" in page
    wait = re.search(r'id="rate-limited-when">Try again in <strong>(\d+) seconds?</strong>', page)
    assert wait is not None and int(wait.group(1)) == int(response["Retry-After"])
    return page


# ---------------------------------------------------------------- the edge itself


@pytest.mark.django_db
def test_a_form_post_over_its_limit_gets_the_styled_429_page(settings: Any) -> None:
    scope = _unique_scope(settings)
    saved: list[str] = []

    @form_edge(scope=scope)
    def button(request: HttpRequest) -> HttpResponse:
        saved.append(request.POST["text"])
        return HttpResponse("saved")

    statuses, response = _until_refused(
        lambda: _post(button, {"text": "hi"}, Referer="http://testserver/sessions/7/review/"))
    assert statuses[-1] == 429 and set(statuses[:-1]) == {200} and len(statuses) >= 3
    page = _assert_the_429_page(response)
    # the refused post never reached the view, and the way back is the page it came from
    assert len(saved) == len(statuses) - 1
    assert 'href="http://testserver/sessions/7/review/" id="rate-limited-back"' in page


@pytest.mark.django_db
def test_the_way_back_is_never_another_site(settings: Any) -> None:
    scope = _unique_scope(settings, "1/min")

    @form_edge(scope=scope)
    def button(request: HttpRequest) -> HttpResponse:
        return HttpResponse("saved")

    _, response = _until_refused(lambda: _post(button, Referer="https://evil.example/x"))
    assert 'href="/" id="rate-limited-back"' in _assert_the_429_page(response)


def test_a_method_the_form_does_not_take_is_a_405_and_a_read_is_never_counted(
    settings: Any,
) -> None:
    scope = _unique_scope(settings, "1/min")

    @form_edge(scope=scope, methods=("GET", "POST"))
    def page(request: HttpRequest) -> HttpResponse:
        return HttpResponse("page")

    @form_edge(scope=scope)
    def post_only(request: HttpRequest) -> HttpResponse:
        return HttpResponse("saved")

    request = factory.get("/x")
    assert post_only(request).status_code == 405
    assert post_only(request)["Allow"] == "POST"
    assert [page(factory.get("/x")).status_code for _ in range(3)] == [200, 200, 200]
    assert page(factory.head("/x")).status_code == 200
    assert page(factory.put("/x")).status_code == 405


def test_every_refusal_is_a_page_never_a_500() -> None:
    def raising(exc: Exception, **options: Any) -> Any:
        @form_edge(scope=None, **options)
        def view(request: HttpRequest) -> HttpResponse:
            raise exc

        return view

    # a button (nothing typed): the refusal as a message on the page it goes back to
    response = _post(raising(ApplicationError("not_validated", "validate it first"),
                             back=lambda request: "/studio/add-one/"))
    assert (response.status_code, response["Location"]) == (302, "/studio/add-one/")
    messages = [str(m) for m in get_messages(response.request_for_test)]
    assert messages == ["validate it first"]
    # a session that is not yours is the site's 404, whatever the view; the codes a view
    # lists are the site's page of their status
    with pytest.raises(Http404):
        _post(raising(ApplicationError("not_participant", "no such session")))
    with pytest.raises(PermissionDenied):
        _post(raising(ApplicationError("forbidden", "no"), pages=("forbidden",)))
    with pytest.raises(Http404):
        _post(raising(ApplicationError("not_found", "no"), pages=("not_found",)))
    # unlisted, they are the view's own refusal like any other
    response = _post(raising(ApplicationError("forbidden", "not yours"),
                             back=lambda request: "/back/"))
    assert response.status_code == 302


def test_a_form_with_its_own_page_gets_it_again_with_what_was_typed(settings: Any) -> None:
    def again(request: HttpRequest, exc: ApplicationError) -> HttpResponse:
        return HttpResponse(f"{exc.message}|{request.POST['text']}", status=400)

    @form_edge(scope=None, on_error=again)
    def form(request: HttpRequest) -> HttpResponse:
        raise ApplicationError("bad_note", "too long")

    response = _post(form, {"text": "what I typed"})
    assert (response.status_code, response.content) == (400, b"too long|what I typed")


@pytest.mark.django_db
def test_over_the_limit_a_form_with_its_own_page_gets_it_again_as_a_429(settings: Any) -> None:
    scope = _unique_scope(settings)

    def again(request: HttpRequest, exc: ApplicationError) -> HttpResponse:
        return HttpResponse(f"{exc.code}|{request.POST['text']}", status=400)

    @form_edge(scope=scope, on_error=again)
    def form(request: HttpRequest) -> HttpResponse:
        return HttpResponse("saved")

    _, response = _until_refused(lambda: _post(form, {"text": "a long answer"}))
    assert response.status_code == 429 and int(response["Retry-After"]) >= 1
    assert response.content == b"rate_limited|a long answer"


@pytest.mark.django_db
def test_the_page_autosave_goes_to_its_json_view_and_is_not_counted_twice(
    settings: Any,
) -> None:
    scope = _unique_scope(settings, "1/min")
    autosaved: list[str] = []

    def autosave(request: HttpRequest) -> HttpResponse:
        autosaved.append(request.POST["text"])
        return JsonResponse({"saved": True})

    @form_edge(scope=scope, autosave=autosave)
    def form(request: HttpRequest) -> HttpResponse:
        return HttpResponse("saved")

    for _ in range(3):
        assert _post(form, {"text": "draft"}, X_Autosave="1")["Content-Type"] == (
            "application/json")
    assert autosaved == ["draft"] * 3
    assert _post(form, {"text": "final"}).status_code == 200  # the form's own count: first
    assert getattr(form, "json_endpoint", False) and getattr(form, "form_edge", "") == scope


# ---------------------------------------------------------------- the platform's forms


@pytest.mark.django_db
def test_a_studio_button_over_its_limit_is_the_429_page_and_changes_nothing(
    settings: Any,
) -> None:
    settings.ONSITE_RATES = {**settings.ONSITE_RATES, "studio": "2/min"}
    admin = user_with_role(f"boss-{uuid.uuid4().hex[:6]}", admin=True)
    problem = tiny_problem("edge-one")
    client = client_for(admin)
    url = f"/studio/{problem.slug}/unpublish/"

    def toggle() -> Any:
        Problem.objects.filter(pk=problem.pk).update(published=True)
        return client.post(url, HTTP_REFERER=f"http://testserver/studio/{problem.slug}/")

    statuses, response = _until_refused(toggle)
    assert statuses[-1] == 429 and set(statuses[:-1]) == {302}
    page = _assert_the_429_page(response)
    assert f'href="http://testserver/studio/{problem.slug}/"' in page
    problem.refresh_from_db()
    assert problem.published  # the refused unpublish changed nothing


def _field_error(page: str, name: str) -> str:
    found = re.search(rf'<p class="field-error" id="error-{name}"[^>]*>(.*?)</p>', page, re.S)
    return found.group(1).strip() if found else ""


def _schedule_values(problem: Problem, candidate: str) -> dict[str, str]:
    return {
        "problem": problem.slug,
        "minutes": "35",
        "starts_date": "2031-05-06",
        "starts_time": "09:15",
        "tz": "Europe/Paris",
        "email": "ada@example.com",
        "candidate": candidate,
        "call_link": "https://meet.example.com/r1",
        "interviewer_can_edit": "on",
    }


def _kept(page: str, values: dict[str, str]) -> bool:
    page = page.replace("&amp;", "&")
    return all(f'name="{name}" value="{values[name]}"' in page
               for name in ("minutes", "starts_date", "starts_time", "email", "candidate",
                            "call_link")) and 'name="tz" value="Europe/Paris"' in page


@pytest.mark.django_db
def test_a_service_refusal_is_a_field_error_with_everything_typed_kept() -> None:
    # given an interviewer who names themselves as the candidate (the service refuses it)
    problem = tiny_problem()
    name = f"ivy-{uuid.uuid4().hex[:6]}"
    interviewer = user_with_role(name, "interviewer")
    values = _schedule_values(problem, name)
    # when the schedule form is posted
    response = client_for(interviewer).post("/sessions/live/", values)
    page = response.content.decode()
    # then the form comes back with the refusal at its field and every value as typed
    assert response.status_code == 400 and not InterviewSession.objects.exists()
    assert "cannot be the candidate" in _field_error(page, "candidate")
    assert _kept(page, values)


@pytest.mark.django_db
def test_a_typed_form_over_its_limit_comes_back_with_everything_typed(settings: Any) -> None:
    settings.ONSITE_RATES = {**settings.ONSITE_RATES, "sessions": "1/min"}
    problem = tiny_problem()
    candidate = user_with_role(f"ada-{uuid.uuid4().hex[:6]}", "candidate")
    client: Client = client_for(user_with_role(f"ivy-{uuid.uuid4().hex[:6]}", "interviewer"))
    values = _schedule_values(problem, candidate.username)
    statuses, response = _until_refused(lambda: client.post("/sessions/live/", values))
    assert statuses[-1] == 429 and set(statuses[:-1]) == {302}
    page = response.content.decode()
    assert int(response["Retry-After"]) >= 1
    assert "Too many requests" in page and _kept(page, values)
    assert InterviewSession.objects.count() == len(statuses) - 1


@pytest.mark.django_db
def test_a_review_button_over_its_limit_is_a_page_not_json(settings: Any) -> None:
    # The review's buttons answered a JSON 429 to a browser's form before the edge.
    settings.ONSITE_RATES = {**settings.ONSITE_RATES, "reviews": "1/min"}
    client = client_for(user_with_role(f"rev-{uuid.uuid4().hex[:6]}", "interviewer"))
    statuses, response = _until_refused(
        lambda: client.post("/sessions/0/review/release"))
    assert statuses[-1] == 429 and set(statuses[:-1]) == {404}
    _assert_the_429_page(response)
