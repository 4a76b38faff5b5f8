"""Login throttling that stops guessing without locking people out: django-axes records every
attempt; this module decides who is refused, for how long, and what they are told.

Every sign-in counts: the login page and the admin login (through `authenticate()`, which
axes' backend guards) and API tokens (`core.authentication`, which reports its failures here).
The client is the real one behind nginx (`core.clientaddr`). Within `ONSITE_LOGIN_LOCK_MINUTES`:

* an account *from one address* (the pair) is locked at `ONSITE_LOGIN_FAILURE_LIMIT`
  failures: a guessing run is refused before its 10th try, and the same account from any
  other address is untouched (its owner at home is not locked out by a guesser elsewhere);
* an *address* is locked at `ONSITE_LOGIN_ADDRESS_FAILURE_LIMIT` password failures over all
  accounts, well above one person's: a classroom behind one NAT where everyone mistypes twice
  signs in;
* wrong *API tokens* have their own count per address (they name no account), locked at
  `ONSITE_LOGIN_FAILURE_LIMIT`; password failures do not count towards it, nor it towards them;
* an *account guessed from many addresses* is slowed, never locked: once it has failed from
  `ONSITE_LOGIN_FAILURE_LIMIT` addresses, each further failure makes the next try from an
  address that never signed in to it wait longer (`ONSITE_LOGIN_SLOWDOWN_SECONDS`,
  doubled per further failure, at most the lock time); an address it signed in from before
  is not slowed. Such an account is logged as a warning and listed in the admin (Core ›
  Guessed accounts).

A lock or a wait ends by itself; an admin lifts a lock sooner by deleting its access attempt
in the admin, or with `manage.py axes_reset_username <name>` / `axes_reset_ip <address>` /
`axes_reset`, and a slowdown by deleting the guessed account. Every attempt is logged (`axes`
and `core.loginlock` loggers) and kept in the admin's access logs.
"""

from __future__ import annotations

import logging
import math
from datetime import datetime, timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt, AccessLog
from axes.signals import user_locked_out
from django.conf import settings
from django.contrib.auth import signals as auth_signals
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Count, Max, Q, QuerySet, Sum
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone

from core.models import GuessedAccount

log = logging.getLogger(__name__)

# The refusal's code, as for any other 429 (core.errors, the API's throttling): one vocabulary.
LOCKED_CODE = "rate_limited"


def lockout_parameters(request_or_attempt: Any, credentials: dict[str, Any] | None) -> list[Any]:
    """AXES_LOCKOUT_PARAMETERS, for axes' own resets: a password failure belongs to its
    account-and-address pair, a wrong API token (no username) to its address. Who is locked
    is decided by `ThrottleHandler`, not by these."""
    if credentials is not None:
        username = credentials.get("username")
    else:
        username = getattr(request_or_attempt, "username", None)
    return [["username", "ip_address"]] if username else ["ip_address"]


# Django's own bound on a username: a longer one names no account, and the attempt's column
# (255 characters) must hold whatever a client typed.
USERNAME_MAX_CHARS = 150


def attempt_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str:
    """AXES_USERNAME_CALLABLE: the username a sign-in tried, as stored with its attempt, cut
    to a username's length (a 300-character guess was a 500 on PostgreSQL's varchar)."""
    raw = credentials.get("username") if credentials else request.POST.get("username")
    return str(raw or "").replace("\x00", "")[:USERNAME_MAX_CHARS]


def _window_start() -> datetime:
    cool_off: timedelta = settings.AXES_COOLOFF_TIME
    return timezone.now() - cool_off


def _recent() -> QuerySet[AccessAttempt]:
    return AccessAttempt.objects.filter(attempt_time__gte=_window_start())


def _token_attempts() -> Q:
    return Q(username__isnull=True) | Q(username="")


def _failures(attempts: QuerySet[AccessAttempt]) -> int:
    return int(attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0)


def _newest(attempts: QuerySet[AccessAttempt]) -> datetime | None:
    newest: datetime | None = attempts.aggregate(t=Max("attempt_time"))["t"]
    return newest


class _Counts:
    """The attempts that decide one request: its pair, its address, its tokens."""

    def __init__(self, username: str | None, address: str) -> None:
        recent = _recent()
        self.username = username or ""
        self.address = address
        if self.username:
            self.pair = recent.filter(username=self.username, ip_address=address)
            self.by_address = recent.filter(ip_address=address).exclude(_token_attempts())
        else:
            self.pair = recent.none()
            self.by_address = recent.filter(_token_attempts(), ip_address=address)

    def locks(self) -> list[QuerySet[AccessAttempt]]:
        """The attempt sets over their limit (each lock lasts from its newest failure)."""
        held = []
        if self.username:
            if _failures(self.pair) >= settings.AXES_FAILURE_LIMIT:
                held.append(self.pair)
            if _failures(self.by_address) >= settings.ONSITE_LOGIN_ADDRESS_FAILURE_LIMIT:
                held.append(self.by_address)
        elif _failures(self.by_address) >= settings.AXES_FAILURE_LIMIT:
            held.append(self.by_address)
        return held


def slowdown_wait_seconds(*, username: str, address: str) -> int:
    """Seconds a try at `username` from `address` must still wait (0: none), for an account
    guessed from many addresses. An address it signed in from before is never slowed."""
    if not username:
        return 0
    guessed = GuessedAccount.objects.filter(username=username).first()
    if guessed is None or guessed.next_try_at <= timezone.now():
        return 0
    if AccessLog.objects.filter(username=username, ip_address=address).exists():
        return 0
    return max(1, math.ceil((guessed.next_try_at - timezone.now()).total_seconds()))


def slowdown_note_failure(*, username: str) -> GuessedAccount | None:
    """After a password failure: once the account has failed from as many addresses as the
    failure limit, it is guessed from many; from then on each further failure doubles the
    wait for the next try from an address it never signed in from (at most the lock time)."""
    if not username:
        return None
    attempts = _recent().filter(username=username)
    summary = attempts.aggregate(
        failures=Sum("failures_since_start"), addresses=Count("ip_address", distinct=True)
    )
    failures, addresses = int(summary["failures"] or 0), int(summary["addresses"] or 0)
    if addresses < settings.AXES_FAILURE_LIMIT:  # one guesser (and its owner's typos): locks
        return None
    further = failures - settings.AXES_FAILURE_LIMIT
    cap = settings.AXES_COOLOFF_TIME.total_seconds()
    wait = min(cap, settings.ONSITE_LOGIN_SLOWDOWN_SECONDS * 2 ** min(further, 32))
    now = timezone.now()
    guessed, created = GuessedAccount.objects.get_or_create(
        username=username,
        defaults={"first_seen_at": now, "last_failure_at": now, "next_try_at": now},
    )
    if not created and guessed.last_failure_at < _window_start():
        guessed.first_seen_at = now  # an earlier wave, long over: this is a new one
    guessed.last_failure_at = now
    guessed.failures = failures
    guessed.addresses = addresses
    guessed.wait_seconds = math.ceil(wait)
    guessed.next_try_at = now + timedelta(seconds=wait)
    guessed.save()
    log.warning(
        "account %r guessed from %d addresses: %d failures in %d minutes; a try from an "
        "address it never signed in from now waits %d s",
        username, addresses, failures, int(cap // 60), guessed.wait_seconds,
    )  # fmt: skip
    return guessed


class ThrottleHandler(AxesDatabaseHandler):
    """AXES_HANDLER: axes records the attempts; the limits are the ones in the module doc."""

    def is_locked(self, request: Any, credentials: dict[str, Any] | None = None) -> bool:
        return login_lock_seconds_left(request=request, credentials=credentials) > 0

    def get_failures(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        """What axes compares with the limit after a failure: the limit itself while any lock
        holds (so it answers this very failure with the lock), else the pair's count."""
        counts = _Counts(get_client_username(request, credentials), _address(request))
        if counts.locks():
            return int(settings.AXES_FAILURE_LIMIT)
        return _failures(counts.pair)

    def user_login_failed(
        self, sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any
    ) -> None:
        refused = request is None or getattr(request, "axes_locked_out", False)
        super().user_login_failed(sender, credentials, request=request, **kwargs)
        if not refused:  # a try refused by a lock or a wait was never checked: no failure
            slowdown_note_failure(username=get_client_username(request, credentials) or "")


def _address(request: Any) -> str:
    return str(getattr(request, "axes_ip_address", None) or "")


def login_lock_seconds_left(*, request: HttpRequest, credentials: dict[str, Any] | None) -> int:
    """Seconds until this request may try again (0: now): the longest of its locks (each
    from its newest counted failure plus the lock time) and its account's slowdown."""
    username = get_client_username(request, credentials) or ""
    address = _address(request)
    cool_off: timedelta = get_cool_off(request) or timedelta(0)
    seconds = slowdown_wait_seconds(username=username, address=address)
    for attempts in _Counts(username, address).locks():
        newest = _newest(attempts)
        left = (newest + cool_off - timezone.now()).total_seconds() if newest else 0
        seconds = max(seconds, math.ceil(left), 1)
    return seconds


def login_locked_message(seconds: int) -> str:
    if seconds < 60:
        wait = f"{seconds} second{'' if seconds == 1 else 's'}"
    else:
        minutes = math.ceil(seconds / 60)
        wait = f"{minutes} minute{'' if minutes == 1 else 's'}"
    return (
        "Too many failed sign-ins for this account or from this address. "
        f"Try again in {wait}."
    )


def login_lockout_response(
    request: HttpRequest, credentials: dict[str, Any] | None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: 429 with "try again in N minutes", as the page asked for it."""
    seconds = max(1, login_lock_seconds_left(request=request, credentials=credentials))
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
