"""The client's address: the one function every per-address rule asks (rate limits, login
throttling, the /metrics rule).

A request that reaches Django from one of `settings.ONSITE_TRUSTED_PROXIES` (addresses or
CIDRs; nginx in the production shape) was forwarded: its client is in `X-Forwarded-For`, which
each proxy appends the address it was connected from to. Only the hops our proxies appended
can be believed; anything further left was written by the client itself. So the client is the
right-most hop that is not a trusted proxy; `X-Real-IP` (one address, set by the proxy) is the
fallback when there is no `X-Forwarded-For`. From any other peer both headers are ignored:
anyone can send them.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.utils.decorators import sync_and_async_middleware

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@lru_cache(maxsize=8)
def _networks(configured: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(item, strict=False) for item in configured)


def _parse(text: str) -> Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[::1]:443"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "203.0.113.7:51234"
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)  # "::ffff:10.0.0.1" is 10.0.0.1
    return mapped or address


def _trusted(address: Address) -> bool:
    return any(address in net for net in _networks(tuple(settings.ONSITE_TRUSTED_PROXIES)))


def _peer(request: Any) -> Address | None:
    return _parse(str(request.META.get("REMOTE_ADDR") or ""))


def _forwarded_hops(request: Any) -> list[str]:
    forwarded = str(request.META.get("HTTP_X_FORWARDED_FOR") or "")
    hops = [hop for hop in (h.strip() for h in forwarded.split(",")) if hop]
    if not hops:
        real_ip = str(request.META.get("HTTP_X_REAL_IP") or "").strip()
        hops = [real_ip] if real_ip else []
    return hops


def request_forwarded(request: Any) -> bool:
    """Whether a trusted proxy forwarded this request (it names a client of its own)."""
    peer = _peer(request)
    return peer is not None and _trusted(peer) and bool(_forwarded_hops(request))


def client_address(request: Any) -> str:
    """The client's IP address as text ("" when there is none, e.g. a bare test request).

    Walks X-Forwarded-For from the right only while each hop is a trusted proxy: the first
    hop that is not is the client. A hop that does not parse ends the walk at the proxy that
    reported it (a proxy we trust wrote garbage: its own peer is the best we know).
    """
    peer = _peer(request)
    if peer is None:
        return ""
    if not _trusted(peer):
        return str(peer)
    current = peer
    for hop in reversed(_forwarded_hops(request)):
        address = _parse(hop)
        if address is None:
            break
        current = address
        if not _trusted(address):
            break
    return str(current)


FORWARDING_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_X_REAL_IP", "HTTP_FORWARDED")


def carries_forwarding(request: Any) -> bool:
    """Whether the request names a client other than its peer, in any of the headers a
    proxy writes (`X-Forwarded-For`, `X-Real-IP`, RFC 7239 `Forwarded`), declared or not.

    A proxy nobody declared in ONSITE_TRUSTED_PROXIES still forwards: nginx on the same
    host makes every request's peer 127.0.0.1 whether or not the setting says so.
    """
    return any(str(request.META.get(header) or "").strip() for header in FORWARDING_HEADERS)


def client_is_local(request: Any) -> bool:
    """A loopback client that reached Django directly, not through a proxy.

    Through a proxy a request is never local, whether or not the proxy is declared: the
    proxy serves the outside world, and a client on the proxy's own host looks the same as
    the proxy itself. So a loopback peer that carries any forwarding header is not local.
    """
    peer = _peer(request)
    return (
        peer is not None
        and peer.is_loopback
        and not request_forwarded(request)
        and not carries_forwarding(request)
    )


PROXY_HEADERS = ("HTTP_X_FORWARDED_PROTO",)


def _drop_untrusted_proxy_headers(request: Any) -> None:
    peer = _peer(request)
    if peer is None or not _trusted(peer):
        for header in PROXY_HEADERS:
            request.META.pop(header, None)


@sync_and_async_middleware
def proxy_headers_middleware(get_response: Any) -> Any:
    """Drops the proxy's headers from a request that did not come from a trusted proxy.

    Django believes X-Forwarded-Proto (SECURE_PROXY_SSL_HEADER) from whoever sends it; only
    our proxy may say the client spoke HTTPS, so from anyone else the header goes, before
    SecurityMiddleware (redirects, secure cookies) reads it. (client_address already ignores
    X-Forwarded-For / X-Real-IP from them.) Sync and async alike: daphne needs no thread hop.
    """
    if iscoroutinefunction(get_response):

        async def middleware_async(request: Any) -> Any:
            _drop_untrusted_proxy_headers(request)
            return await get_response(request)

        return middleware_async

    def middleware(request: Any) -> Any:
        _drop_untrusted_proxy_headers(request)
        return get_response(request)

    return middleware
