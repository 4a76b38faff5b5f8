"""No request text with a NUL character reaches a view.

PostgreSQL's text columns cannot hold NUL (SQLite can), so a NUL in any field a view stores or
filters on was a 500 in production only. Django's form fields refuse it, but several edges read
`request.POST` or the query string directly; one check at the door covers them all. A JSON body
is checked where it is parsed (core.jsonbody), so the JSON edge answers in JSON.
"""

from __future__ import annotations

from asyncio import iscoroutinefunction
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, QueryDict
from django.utils.decorators import sync_and_async_middleware

NUL = "\x00"
REFUSAL = "Bad request: text may not contain NUL characters.\n"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _holds_nul(data: QueryDict) -> bool:
    return any(NUL in key or any(NUL in value for value in values)
               for key, values in data.lists())


def request_holds_nul(request: HttpRequest) -> bool:
    """Whether the query string or a form body carries a NUL in a name or a value (uploaded
    files are bytes and are not looked at)."""
    if _holds_nul(request.GET):
        return True
    if request.method == "POST" and request.content_type in FORM_TYPES:
        return _holds_nul(request.POST)
    return False


def _refusal() -> HttpResponse:
    return HttpResponseBadRequest(REFUSAL, content_type="text/plain; charset=utf-8")


@sync_and_async_middleware
def nul_guard_middleware(get_response: Any) -> Any:
    """A 400 for a request whose text holds a NUL, before any view or session read."""
    if iscoroutinefunction(get_response):

        async def middleware_async(request: Any) -> Any:
            if request_holds_nul(request):
                return _refusal()
            return await get_response(request)

        return middleware_async

    def middleware(request: Any) -> Any:
        if request_holds_nul(request):
            return _refusal()
        return get_response(request)

    return middleware
