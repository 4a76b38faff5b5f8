"""The one JSON edge (core.endpoints): method, rate-limit scope, the bounded body, and every
refusal as its JSON answer, whatever the view raises."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.test import RequestFactory

from core.endpoints import Body, json_endpoint, text_field
from core.errors import ApplicationError

factory = RequestFactory()


@json_endpoint(scope="notes")
def echo(request: HttpRequest, body: Body) -> HttpResponse:
    return JsonResponse({"text": text_field(body, "text")})


@json_endpoint(methods=["GET"])
def query(request: HttpRequest, body: Body) -> HttpResponse:
    return JsonResponse(body)


def _raising(exc: Exception) -> Any:
    @json_endpoint()
    def view(request: HttpRequest, body: Body) -> HttpResponse:
        raise exc

    return view


def _post(view: Any, body: bytes | str, content_type: str = "application/json") -> Any:
    request = factory.post("/x", body, content_type=content_type)
    request.user = AnonymousUser()
    return view(request)


def _answer(response: HttpResponse) -> tuple[int, dict[str, Any]]:
    return response.status_code, json.loads(response.content)


def test_a_json_object_and_a_form_reach_the_view_as_its_body() -> None:
    assert _answer(_post(echo, '{"text": "hi"}')) == (200, {"text": "hi"})
    assert _answer(_post(echo, "text=hi", "application/x-www-form-urlencoded")) == (
        200,
        {"text": "hi"},
    )
    request = factory.get("/x", {"a": "1"})
    assert _answer(query(request)) == (200, {"a": "1"})


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b'{"text": ', 400, "bad_json"),
        (b"[1]", 400, "bad_json"),
        (b"[" * 10_000 + b"]" * 10_000, 400, "bad_json"),
        (b'{"text": NaN}', 400, "bad_json"),
        (b'{"text": 5}', 400, "bad_field"),
        (b'{"text": "a\\u0000b"}', 400, "bad_json"),  # a NUL anywhere in a body (core.jsonbody)
        (json.dumps({"text": "x" * 3_000_000}).encode(), 413, "too_large"),
    ],
)
def test_a_bad_body_is_answered_before_the_view_in_json(
    body: bytes, status: int, code: str
) -> None:
    got_status, payload = _answer(_post(echo, body))
    assert (got_status, payload["code"]) == (status, code)
    assert set(payload) == {"detail", "code"}


def test_a_broken_multipart_body_is_a_400() -> None:
    response = _post(echo, b"junk", "multipart/form-data")  # no boundary
    assert _answer(response) == (
        400,
        {"detail": "the form body could not be read", "code": "bad_form"},
    )


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (ApplicationError("conflict", "no"), 409, "conflict"),
        (ApplicationError("not_participant", "no such session"), 404, "not_found"),
        (ApplicationError("whatever", "no"), 400, "whatever"),
        (Http404("secret detail"), 404, "not_found"),
        (PermissionDenied("secret detail"), 403, "forbidden"),
    ],
)
def test_every_refusal_the_view_raises_is_its_json_answer(
    exc: Exception, status: int, code: str
) -> None:
    got_status, payload = _answer(_post(_raising(exc), b"{}"))
    assert (got_status, payload["code"]) == (status, code)
    assert "secret" not in payload["detail"]


def test_a_method_the_endpoint_does_not_take_is_a_json_405() -> None:
    request = factory.get("/x")
    status, payload = _answer(echo(request))
    assert (status, payload["code"]) == (405, "method_not_allowed")
    assert echo(request)["Allow"] == "POST"
    assert query(factory.head("/x")).status_code == 200


@pytest.mark.django_db
def test_the_scope_counts_writes_and_answers_429(settings: Any) -> None:
    settings.ONSITE_RATES = {**settings.ONSITE_RATES, "notes": "2/min"}
    cache.clear()
    statuses = [_post(echo, b'{"text": "a"}').status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert _answer(_post(echo, b"{}"))[1]["code"] == "rate_limited"
