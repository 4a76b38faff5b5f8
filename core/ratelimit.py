"""Rate limits of state-changing requests: one rule per scope, read from a setting.

Each scope (`submissions`, `sessions`, `questions`, `notes`, `scorecards`, ...) has its own
setting `ONSITE_RATE_<SCOPE>` ("<count>/<sec|min|hour|day>"), collected in
`settings.ONSITE_RATES`. Plain Django views count through their edge (core.endpoints for JSON,
core.edges for HTML form posts), which calls `rate_limit_check`; DRF views use
`ScopeRateThrottle`. Both count in Django's cache with a fixed window per user (or address),
so the limit holds across processes when the cache is shared (Redis). An anonymous client is
counted by its address as `core.clientaddr.client_address` resolves it behind the proxy.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from rest_framework.throttling import BaseThrottle

from core.clientaddr import client_address
from core.errors import ApplicationError

log = logging.getLogger(__name__)

_PERIOD_SECONDS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600,
                   "d": 86400, "day": 86400}


def rate_parse(rate: str) -> tuple[int, int]:
    """"120/min" → (120, 60)."""
    count, _, period = rate.partition("/")
    return int(count), _PERIOD_SECONDS[period.strip().lower()]


def _client_key(request: Any) -> str:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return f"addr:{client_address(request)}"


def _hit(scope: str, key: str) -> float | None:
    """Count one request; the seconds to wait when over the limit, else None."""
    rate = settings.ONSITE_RATES.get(scope)
    if not rate:
        return None
    allowed, period = rate_parse(rate)
    window = int(time.time() // period)
    bucket = f"rate:{scope}:{key}:{window}"
    try:
        # add() then incr(): atomic on Redis and on the local-memory cache alike.
        cache.add(bucket, 0, timeout=period + 1)
        try:
            count = cache.incr(bucket)
        except ValueError:  # expired between add and incr
            cache.set(bucket, 1, timeout=period + 1)
            count = 1
    except Exception:  # redis-py raises many types
        # Fail open: a cache outage must not turn every write into a 500; the database and
        # the broker still bound the work, and the outage is in the log.
        log.warning("rate limit %s: cache unreachable, request allowed", scope, exc_info=True)
        return None
    if count <= allowed:
        return None
    return (window + 1) * period - time.time()


class RateLimited(ApplicationError):
    """A request over its scope's limit (429); `retry_after`: whole seconds to wait."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("rate_limited", f"too many requests; retry in {retry_after} s")
        self.retry_after = retry_after


def rate_limit_check(*, request: Any, scope: str) -> None:
    """Count this request against `scope`; RateLimited (an ApplicationError, 429) when over."""
    wait = _hit(scope, _client_key(request))
    if wait is not None:
        raise RateLimited(int(wait) + 1)


class ScopeRateThrottle(BaseThrottle):
    """DRF throttle for a view's `throttle_scope`, with the rate from `settings.ONSITE_RATES`.

    Applied to unsafe methods only: reads are not state changes.
    """

    def allow_request(self, request: Any, view: Any) -> bool:
        scope = getattr(view, "throttle_scope", None)
        if not scope or request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        self.wait_seconds = _hit(scope, _client_key(request))
        return self.wait_seconds is None

    def wait(self) -> float | None:
        return getattr(self, "wait_seconds", None)
