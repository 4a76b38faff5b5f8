"""The one edge of every HTML form post (the JSON endpoints have theirs: core.endpoints).

`form_edge` does for a view that answers a page what `json_endpoint` does for one that answers
JSON, so no form view writes its own copy (30 of them did, and the copies drifted: some had no
rate limit, six answered a JSON 429 to a browser's form):

- refuses a method the view does not take (405, as Django's `require_POST` does);
- counts a state-changing request against the view's rate-limit scope (core.ratelimit, the
  limiter of the JSON edge and of the API);
- maps every `ApplicationError` the view raises to a page, never a 500:
  - "not_participant", and the codes the view lists in `pages` ("forbidden", "not_found"),
    are the site's 404 / 403 page by their status (core.errors), as the JSON edge answers
    them (nobody learns which sessions exist);
  - any other goes to the view's `on_error(request, error, *url_args)`, which re-renders
    its page with what was posted and the error at its field or at the top (nothing typed is
    lost); a view without one (a button: nothing typed) gets the error as a message on the
    page it came back to (`back`, else the same-site page it was posted from);
  - over the rate limit: the page `on_error` renders, else the styled 429 page (429.html,
    on the site's layout: when to try again, and the way back); both with `Retry-After`.

Sign-in stays with `login_required` (or the studio's `author_required`), stacked above it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from datetime import timedelta
from functools import wraps
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.shortcuts import render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme

from core.errors import ANSWERED_AS_MISSING, ApplicationError, error_status
from core.ratelimit import RateLimited, rate_limit_check

View = Callable[..., HttpResponse]
# on_error(request, error, *url_args, **url_kwargs): the view's page again, with what was posted.
ErrorPage = Callable[..., HttpResponse]
# back(request, *url_args, **url_kwargs): where a refused button goes back to.
Back = Callable[..., str]

_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
# The header of a page's autosave: the same form posted by script, answered in JSON.
AUTOSAVE_HEADER = "X-Autosave"


def came_from(request: HttpRequest, default: str = "/") -> str:
    """The same-site page this form was posted from (its Referer), else `default`."""
    referer = request.headers.get("Referer", "")
    if referer and url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return referer
    return default


def _retry_after(exc: ApplicationError) -> int:
    return max(1, exc.retry_after) if isinstance(exc, RateLimited) else 60


def rate_limited_page(request: HttpRequest, exc: ApplicationError, *, back: str) -> HttpResponse:
    """The styled 429: nothing was saved, when to try again, the way back."""
    seconds = _retry_after(exc)
    context = {
        "seconds": seconds,
        "minutes": math.ceil(seconds / 60),
        "retry_at": timezone.now() + timedelta(seconds=seconds),
        "back": back,
    }
    response = render(request, "429.html", context, status=429)
    response["Retry-After"] = str(seconds)
    return response


def _refusal(
    request: HttpRequest,
    exc: ApplicationError,
    on_error: ErrorPage | None,
    back: Back | None,
    pages: Collection[str],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> HttpResponse:
    if exc.code in ANSWERED_AS_MISSING or exc.code in pages:
        if error_status(exc) == 403:
            raise PermissionDenied(exc.message)
        raise Http404(exc.message)
    way_back = back(request, *args, **kwargs) if back else came_from(request)
    if exc.code == "rate_limited":
        response = on_error(request, exc, *args, **kwargs) if on_error else None
        if response is None or response.status_code in range(300, 400):
            # Nothing typed to keep on a page (a button, or a refusal that redirects): the 429
            # page, its way back the page it was posted from (else where a refusal goes).
            if response is not None and not back:
                way_back = response["Location"].partition("?")[0]
            return rate_limited_page(request, exc, back=came_from(request, default=way_back))
        # The form again, with what was posted and the refusal: only the status is the 429's.
        response.status_code = 429
        response["Retry-After"] = str(_retry_after(exc))
        return response
    if on_error is not None:
        return on_error(request, exc, *args, **kwargs)
    messages.error(request, exc.message, fail_silently=True)
    return HttpResponseRedirect(way_back)


def form_edge(
    *,
    scope: str | None,
    methods: Sequence[str] = ("POST",),
    on_error: ErrorPage | None = None,
    back: Back | None = None,
    pages: Collection[str] = (),
    autosave: View | None = None,
) -> Callable[[View], View]:
    """Decorate `view(request, **url_kwargs)` as an HTML form post (see the module doc).

    `scope` names the rate limit a state-changing request counts against (None: a post that
    changes nothing, such as a preview). `pages`: refusal codes answered by the site's 404 /
    403 page rather than the view's own (a 404 or a 403 status in core.errors). `autosave`:
    the view (on the JSON edge) that answers the page's script posting the same form with
    `X-Autosave: 1`; it counts it itself.
    """
    allowed = tuple(m.upper() for m in methods)
    if "GET" in allowed and "HEAD" not in allowed:
        allowed += ("HEAD",)

    def decorate(view: View) -> View:
        @wraps(view)
        def edge(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in allowed:
                return HttpResponseNotAllowed(allowed)
            if autosave is not None and request.headers.get(AUTOSAVE_HEADER) == "1":
                return autosave(request, *args, **kwargs)
            try:
                if scope is not None and request.method not in _SAFE_METHODS:
                    rate_limit_check(request=request, scope=scope)
                return view(request, *args, **kwargs)
            except ApplicationError as exc:
                return _refusal(request, exc, on_error, back, pages, args, kwargs)

        edge.form_edge = scope or "unlimited"  # type: ignore[attr-defined]  # the route walk's
        if autosave is not None:
            edge.json_endpoint = True  # type: ignore[attr-defined]  # its JSON: the JSON edge's
        return edge

    return decorate
