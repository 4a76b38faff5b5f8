"""The one edge of every JSON endpoint outside the REST API (which has DRF's: core/api.py).

`json_endpoint` does for a plain Django view what the REST API's parser, throttle and exception
handler do for an API view, so no view writes its own copy (the copies drifted: some caught
only their own app's error type and answered 500 for a malformed body):

- refuses a method the endpoint does not take (405, JSON);
- counts a state-changing request against the endpoint's rate-limit scope (core.ratelimit);
- parses the input once: a JSON object body through core.jsonbody (size and depth bounded),
  else the form fields; for a GET, the query. The view gets it as its `body` argument;
- maps every `ApplicationError` to its JSON answer (core.errors), and a 404 / 403 raised on
  the way (a session that is not yours) to the same JSON shape.

Sign-in stays with `login_required`, stacked above it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig, TooManyFieldsSent
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError

from core.errors import ApplicationError, error_json
from core.jsonbody import json_object_parse
from core.ratelimit import rate_limit_check

Body = dict[str, Any]
EndpointView = Callable[..., HttpResponse]
View = Callable[..., HttpResponse]

_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def request_body_parse(request: HttpRequest) -> Body:
    """The request's input as a dict: a JSON object body (bounded by core.jsonbody), the form
    fields of any other POST, the query of a GET. Raises ApplicationError (400 / 413)."""
    if request.method in _SAFE_METHODS:
        return request.GET.dict()
    try:
        if request.content_type == "application/json":
            return json_object_parse(request.body)
        return request.POST.dict()
    except RequestDataTooBig:
        raise ApplicationError("too_large", "the request body is too large") from None
    except (MultiPartParserError, TooManyFieldsSent):
        raise ApplicationError("bad_form", "the form body could not be read") from None


def _refusal(status: int, code: str, detail: str) -> JsonResponse:
    return JsonResponse({"detail": detail, "code": code}, status=status)


def json_endpoint(
    *, methods: Sequence[str] = ("POST",), scope: str | None = None
) -> Callable[[EndpointView], View]:
    """Decorate `view(request, body, **url_kwargs)` as a JSON endpoint (see the module doc).

    `scope` names the rate limit a state-changing request counts against (none for reads).
    """
    allowed = tuple(m.upper() for m in methods)
    if "GET" in allowed and "HEAD" not in allowed:
        allowed += ("HEAD",)

    def decorate(view: EndpointView) -> View:
        @wraps(view)
        def endpoint(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in allowed:
                response = _refusal(405, "method_not_allowed",
                                    f"{request.method} is not allowed here")
                response["Allow"] = ", ".join(allowed)
                return response
            try:
                if scope is not None and request.method not in _SAFE_METHODS:
                    rate_limit_check(request=request, scope=scope)
                body = request_body_parse(request)
                return view(request, body, *args, **kwargs)
            except ApplicationError as exc:
                return error_json(exc)
            except Http404:
                # A missing object and one that is not yours answer alike (no existence leak).
                return _refusal(404, "not_found", "not found")
            except PermissionDenied:
                return _refusal(403, "forbidden", "not allowed")

        endpoint.json_endpoint = True  # type: ignore[attr-defined]  # the route walk's marker
        return endpoint

    return decorate


def text_field(body: Body, name: str, default: str = "") -> str:
    """`body[name]` as text; a number, list or object where text belongs is refused (400). (A
    NUL character never gets this far: core.jsonbody and core.textguard refuse it.)"""
    value = body.get(name, default)
    if not isinstance(value, str):
        raise ApplicationError("bad_field", f"{name} must be a string")
    return value
