"""The client's address behind (and without) the trusted proxies, and who reads /metrics."""

from __future__ import annotations

import pytest
from django.http import HttpRequest
from django.test import RequestFactory

from core.clientaddr import client_address, client_is_local, request_forwarded

PROXY = "127.0.0.1"


def request(peer: str, **headers: str) -> HttpRequest:
    return RequestFactory().get("/", headers=None, REMOTE_ADDR=peer, **headers)  # type: ignore[arg-type]


def test_without_trusted_proxies_the_peer_is_the_client_whatever_the_headers_say(  # type: ignore[no-untyped-def]
    settings,
) -> None:
    settings.ONSITE_TRUSTED_PROXIES = []
    spoofed = request("203.0.113.7", HTTP_X_FORWARDED_FOR="127.0.0.1", HTTP_X_REAL_IP="10.0.0.1")
    assert client_address(spoofed) == "203.0.113.7"
    assert not request_forwarded(spoofed)


def test_a_spoofed_forwarded_for_from_an_untrusted_client_is_ignored(settings) -> None:  # type: ignore[no-untyped-def]
    settings.ONSITE_TRUSTED_PROXIES = [PROXY, "10.1.0.0/16"]
    spoofed = request("198.51.100.9", HTTP_X_FORWARDED_FOR="127.0.0.1, 10.1.2.3")
    assert client_address(spoofed) == "198.51.100.9"
    assert not client_is_local(spoofed)


def test_from_a_trusted_proxy_the_right_most_untrusted_hop_is_the_client(settings) -> None:  # type: ignore[no-untyped-def]
    # Given two trusted proxies in a row (a load balancer 10.1.x, then nginx on loopback)
    settings.ONSITE_TRUSTED_PROXIES = [PROXY, "10.1.0.0/16"]
    # When the client wrote its own X-Forwarded-For in front of what the proxies appended
    forwarded = request(PROXY, HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7, 10.1.2.3")
    # Then the hop the first trusted proxy saw is the client, not the client's own claim
    assert client_address(forwarded) == "203.0.113.7"
    assert request_forwarded(forwarded)


def test_x_real_ip_is_the_fallback_and_ports_and_mapped_addresses_are_read(settings) -> None:  # type: ignore[no-untyped-def]
    settings.ONSITE_TRUSTED_PROXIES = ["::1", PROXY]
    assert client_address(request(PROXY, HTTP_X_REAL_IP="203.0.113.8")) == "203.0.113.8"
    assert client_address(request("::1", HTTP_X_FORWARDED_FOR="[2001:db8::5]:443")) == "2001:db8::5"
    assert client_address(request("::ffff:127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9:5000")) == (
        "203.0.113.9"
    )


@pytest.mark.parametrize("header", ["not-an-address", "", " , ", "999.1.1.1", "\x00"])
def test_garbage_from_a_trusted_proxy_ends_at_the_proxy(settings, header: str) -> None:  # type: ignore[no-untyped-def]
    settings.ONSITE_TRUSTED_PROXIES = [PROXY]
    assert client_address(request(PROXY, HTTP_X_FORWARDED_FOR=header)) == PROXY


def test_all_hops_trusted_gives_the_left_most_and_no_peer_gives_nothing(settings) -> None:  # type: ignore[no-untyped-def]
    settings.ONSITE_TRUSTED_PROXIES = ["10.0.0.0/8"]
    assert client_address(request("10.0.0.1", HTTP_X_FORWARDED_FOR="10.9.9.9, 10.0.0.2")) == (
        "10.9.9.9"
    )
    assert client_address(request("")) == ""


def test_a_request_through_the_proxy_is_never_local(settings) -> None:  # type: ignore[no-untyped-def]
    settings.ONSITE_TRUSTED_PROXIES = [PROXY]
    # A scraper on the host talking to the web process itself is local ...
    assert client_is_local(request(PROXY))
    # ... the same host through nginx is not: nginx serves the outside world, and its own
    # loopback address is all the web process sees of a client there.
    assert not client_is_local(request(PROXY, HTTP_X_FORWARDED_FOR="127.0.0.1"))
    assert not client_is_local(request(PROXY, HTTP_X_FORWARDED_FOR="203.0.113.7"))


@pytest.mark.parametrize("trusted", [[], [PROXY]], ids=["undeclared", "declared"])
@pytest.mark.parametrize(
    "header",
    [
        {"HTTP_X_FORWARDED_FOR": "127.0.0.1"},
        {"HTTP_X_REAL_IP": "127.0.0.1"},
        {"HTTP_FORWARDED": "for=127.0.0.1"},
    ],
)
def test_a_loopback_peer_carrying_any_forwarding_header_is_never_local(  # type: ignore[no-untyped-def]
    settings, trusted: list[str], header: dict[str, str]
) -> None:
    # An undeclared nginx on the host: the peer is loopback, the headers say someone else sent it
    settings.ONSITE_TRUSTED_PROXIES = trusted
    assert not client_is_local(request(PROXY, **header))
    assert client_is_local(request(PROXY))
