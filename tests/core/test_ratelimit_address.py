"""Rate limits count an anonymous client by its address behind the proxy, not the proxy's."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory

from core.errors import ApplicationError
from core.ratelimit import rate_limit_check


def anonymous(peer: str, forwarded: str = ""):  # type: ignore[no-untyped-def]
    request = RequestFactory().post("/", REMOTE_ADDR=peer, HTTP_X_FORWARDED_FOR=forwarded)
    request.user = AnonymousUser()
    return request


def test_two_clients_behind_the_proxy_have_their_own_buckets(settings) -> None:  # type: ignore[no-untyped-def]
    settings.ONSITE_TRUSTED_PROXIES = ["127.0.0.1"]
    probe = f"probe-{uuid.uuid4().hex}"  # a bucket of its own in the shared test Redis
    settings.ONSITE_RATES = {probe: "2/hour"}
    for _ in range(2):
        rate_limit_check(request=anonymous("127.0.0.1", "203.0.113.1"), scope=probe)
    with pytest.raises(ApplicationError):
        rate_limit_check(request=anonymous("127.0.0.1", "203.0.113.1"), scope=probe)
    # Another visitor through the same nginx is not in the first one's bucket.
    rate_limit_check(request=anonymous("127.0.0.1", "203.0.113.2"), scope=probe)
    # A client faking the header from outside is counted by its own address.
    rate_limit_check(request=anonymous("198.51.100.4", "203.0.113.1"), scope=probe)
