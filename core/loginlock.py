"""Login throttling: django-axes, told who the client is and what to answer when locked.

Every sign-in counts: the login page and the admin login (through `authenticate()`, which
axes' backend guards) and API tokens (`core.authentication`, which reports its failures here).
Failures are counted per account and per client address (`core.clientaddr`, so behind nginx
each visitor has their own count); at `ONSITE_LOGIN_FAILURE_LIMIT` within
`ONSITE_LOGIN_LOCK_MINUTES` that account, or that address, is locked for
`ONSITE_LOGIN_LOCK_MINUTES`, the right password included. The lock then expires by itself; an
admin lifts it sooner by deleting its access attempt in the admin, or with
`manage.py axes_reset_username <name>` / `axes_reset_ip <address>` / `axes_reset`. Every
attempt is logged (`axes` and `core.loginlock` loggers) and kept in the admin's access logs.
"""

from __future__ import annotations

import logging
import math
from datetime import timedelta
from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt
from axes.signals import user_locked_out
from django.contrib.auth import signals as auth_signals
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Max, Q
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone

log = logging.getLogger(__name__)

# The refusal's code, as for any other 429 (core.errors, the API's throttling): one vocabulary.
LOCKED_CODE = "rate_limited"


def lockout_parameters(request_or_attempt: Any, credentials: dict[str, Any] | None) -> list[str]:
    """AXES_LOCKOUT_PARAMETERS: each account, and each address, has its own count.

    A failure without a username (a wrong API token) counts against its address alone: all
    of them share no account, and counting them under one "no username" would let anyone lock
    every token client at once.
    """
    if credentials is not None:
        username = credentials.get("username")
    else:
        username = getattr(request_or_attempt, "username", None)
    return ["username", "ip_address"] if username else ["ip_address"]


# Django's own bound on a username: a longer one names no account, and the attempt's column
# (255 characters) must hold whatever a client typed.
USERNAME_MAX_CHARS = 150


def attempt_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str:
    """AXES_USERNAME_CALLABLE: the username a sign-in tried, as stored with its attempt, cut
    to a username's length (a 300-character guess was a 500 on PostgreSQL's varchar)."""
    raw = credentials.get("username") if credentials else request.POST.get("username")
    return str(raw or "").replace("\x00", "")[:USERNAME_MAX_CHARS]


def _lock_filter(request: HttpRequest, credentials: dict[str, Any] | None) -> Q:
    address = getattr(request, "axes_ip_address", None) or ""
    which = Q(ip_address=address)
    username = get_client_username(request, credentials)
    if username:
        which |= Q(username=username)
    return which


def login_lock_seconds_left(*, request: HttpRequest, credentials: dict[str, Any] | None) -> int:
    """Seconds until this request's lock expires (its newest counted failure plus the cool-off).

    An upper bound when several attempts hold the lock: by then every one of them has expired.
    """
    cool_off: timedelta = get_cool_off(request) or timedelta(0)
    newest = AccessAttempt.objects.filter(_lock_filter(request, credentials)).aggregate(
        newest=Max("attempt_time")
    )["newest"]
    if newest is None:
        return int(cool_off.total_seconds())
    return max(1, math.ceil((newest + cool_off - timezone.now()).total_seconds()))


def login_locked_message(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    unit = "minute" if minutes == 1 else "minutes"
    return (
        "Too many failed sign-ins for this account or from this address. "
        f"Try again in {minutes} {unit}."
    )


def login_lockout_response(
    request: HttpRequest, credentials: dict[str, Any] | None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: 429 with "try again in N minutes", as the page asked for it."""
    seconds = login_lock_seconds_left(request=request, credentials=credentials)
    message = login_locked_message(seconds)
    response: HttpResponse
    if request.path.startswith("/api/") or "application/json" in request.headers.get("Accept", ""):
        response = JsonResponse({"detail": message, "code": LOCKED_CODE}, status=429)
    else:
        # The login page again, with the reason instead of "did not match" (the admin's login
        # gets it too: its own template needs the admin site's context).
        username = get_client_username(request, credentials)
        context = {
            "form": AuthenticationForm(request, initial={"username": username}),
            "locked_message": message,
            "next": request.POST.get("next") or request.GET.get("next", ""),
        }
        response = render(request, "registration/login.html", context, status=429)
    response["Retry-After"] = str(seconds)
    return response


def axes_request(request: HttpRequest) -> HttpRequest:
    """A bare request for axes to record an API sign-in by: the client's address, user agent
    and path, never the API call's body (axes stores a failed form's fields)."""
    probe = HttpRequest()
    probe.META = {key: value for key, value in request.META.items() if isinstance(value, str)}
    probe.path = probe.path_info = request.path
    probe.method = request.method
    return probe


def token_login_check(*, request: HttpRequest) -> int | None:
    """Seconds to wait when the client's address is locked, else None (`request`: axes_request)."""
    if AxesProxyHandler.is_locked(request, {"username": None}):
        return login_lock_seconds_left(request=request, credentials=None)
    return None


def token_login_failed(*, request: HttpRequest, token_prefix: str) -> int | None:
    """Count a wrong API token against the client's address; seconds to wait if that locked it."""
    auth_signals.user_login_failed.send(
        sender=__name__, credentials={"username": None}, request=request
    )
    log.warning("token sign-in failed: token %r from %s", token_prefix,
                getattr(request, "axes_ip_address", ""))  # fmt: skip
    if getattr(request, "axes_locked_out", False):
        return login_lock_seconds_left(request=request, credentials=None)
    return None


@receiver(user_locked_out)
def _log_locked(sender: Any, request: HttpRequest, username: str | None, ip_address: str,
                **kwargs: Any) -> None:  # fmt: skip
    # Axes logs each failure; this names each refusal while the lock holds (not counted).
    log.warning("sign-in refused, locked: username=%r address=%s path=%s",
                username, ip_address, getattr(request, "path", ""))  # fmt: skip
