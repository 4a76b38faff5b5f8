"""The REST API's edges: a bounded JSON parser, JSON error bodies everywhere under /api/.

Every error the API answers has the same body, `{"detail": str, "code": str}` (the
`ErrorBody` schema): DRF's own refusals (auth, throttling, parse errors), our
`ApplicationError`s, Django's 404 for a path that matches no route, and a request body over
Django's upload limit, which would otherwise be an HTML page.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.template import loader
from django.views import defaults
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, serializers
from rest_framework.parsers import BaseParser
from rest_framework.response import Response
from rest_framework.views import exception_handler

from core.errors import ApplicationError, error_payload, error_status
from core.jsonbody import json_body_parse

API_PREFIX = "/api/"


class BoundedJSONParser(BaseParser):
    """`application/json` through `core.jsonbody`: bounded size and depth, no NaN/Infinity."""

    media_type = "application/json"

    def parse(self, stream: Any, media_type: str | None = None,
              parser_context: Any = None) -> Any:
        from django.conf import settings

        raw = stream.read(settings.ONSITE_JSON_MAX_BYTES + 1) if stream is not None else b""
        try:
            return json_body_parse(raw)
        except ApplicationError as exc:
            raise _AppAPIError(exc) from None


class _AppAPIError(exceptions.APIException):
    def __init__(self, exc: ApplicationError) -> None:
        super().__init__(detail=exc.message, code=exc.code)
        self.status_code = error_status(exc)


def _code_of(exc: exceptions.APIException) -> str:
    codes = exc.get_codes()
    while isinstance(codes, (list, dict)) and codes:
        codes = next(iter(codes.values())) if isinstance(codes, dict) else codes[0]
    return codes if isinstance(codes, str) else "error"


def _detail_of(detail: Any) -> str:
    if isinstance(detail, dict):
        for field, value in detail.items():
            return f"{field}: {_detail_of(value)}"
    if isinstance(detail, list):
        return _detail_of(detail[0]) if detail else "invalid request"
    return str(detail)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's `EXCEPTION_HANDLER`: every refusal as `{"detail", "code"}`."""
    if isinstance(exc, ApplicationError):
        return Response(error_payload(exc), status=error_status(exc))
    if isinstance(exc, RequestDataTooBig):
        return Response({"detail": "the request body is too large", "code": "too_large"},
                        status=413)
    if isinstance(exc, SuspiciousOperation):
        return Response({"detail": "bad request", "code": "bad_request"}, status=400)
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.APIException):
        # A throttled API call says what a throttled page call says (core.ratelimit).
        code = "rate_limited" if isinstance(exc, exceptions.Throttled) else _code_of(exc)
        response.data = {"detail": _detail_of(exc.detail), "code": code}
    return response




class StrictCharField(serializers.CharField):
    """A string, and only a string: DRF's CharField would take `123` as "123"."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class StrictSlugField(serializers.SlugField):
    """A slug given as a string (DRF's SlugField would take `123` as "123")."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class ErrorBody(serializers.Serializer[Any]):
    """The body of every error the API answers."""

    detail = serializers.CharField()
    code = serializers.CharField()


_ERROR_DESCRIPTIONS = {
    400: "invalid request (bad field, bad JSON, JSON too deep)",
    401: "not authenticated",
    403: "not allowed",
    404: "not found, or not yours",
    405: "method not allowed",
    406: "not acceptable",
    409: "conflicts with the current state",
    413: "request body too large",
    415: "unsupported media type",
    429: "rate limited",
}


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """The schema of the error answers an operation can give (each an `ErrorBody`)."""
    return {code: OpenApiResponse(ErrorBody, _ERROR_DESCRIPTIONS[code]) for code in statuses}


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """`handler404`: JSON under /api/, the HTML page elsewhere."""
    if _is_api(request):
        return JsonResponse({"detail": "not found", "code": "not_found"}, status=404)
    return defaults.page_not_found(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """`handler403`: JSON under /api/, elsewhere the site's 403 page (403.html), which says
    who is signed in, why (the `PermissionDenied` message) and what to do."""
    if _is_api(request):
        return JsonResponse({"detail": "not allowed", "code": "forbidden"}, status=403)
    return defaults.permission_denied(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """`handler400`: a body over the upload limit is a 413, other bad requests a 400."""
    too_big = isinstance(exception, RequestDataTooBig)
    if _is_api(request):
        if too_big:
            return JsonResponse({"detail": "the request body is too large",
                                 "code": "too_large"}, status=413)
        return JsonResponse({"detail": "bad request", "code": "bad_request"}, status=400)
    # The site's 400 page, rendered without the request: a request refused before the
    # middleware ran (a broken multipart body) has no user for the context processors.
    if too_big:
        # Never a bare 400 (issue 34.5): how big it was, the limit, what to do instead.
        context = {
            "sent": _content_length(request),
            "limit": settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
            "back": _page_of(request.path),
            "studio": request.path.startswith("/studio/"),
        }
        return HttpResponse(loader.get_template("413.html").render(context), status=413)
    return HttpResponseBadRequest(loader.get_template("400.html").render())


def _page_of(path: str) -> str:
    """The page a too-large form was posted from, as far as its path tells: a studio
    problem's page for its forms, the site's start otherwise."""
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 2 and parts[0] == "studio":
        return f"/studio/{parts[1]}/"
    return "/"


def _content_length(request: HttpRequest) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def server_error(request: HttpRequest) -> HttpResponse:
    """`handler500`: still JSON under /api/ (the traceback stays in the log)."""
    if _is_api(request):
        return JsonResponse({"detail": "server error", "code": "server_error"}, status=500)
    return defaults.server_error(request)


__all__ = [
    "BoundedJSONParser",
    "ErrorBody",
    "StrictCharField",
    "StrictSlugField",
    "api_exception_handler",
    "bad_request",
    "error_responses",
    "page_not_found",
    "permission_denied",
    "server_error",
]
