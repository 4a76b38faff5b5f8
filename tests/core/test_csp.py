"""Every response carries the Content-Security-Policy (core/csp.py), whatever the route."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver

from core.csp import HEADER, REPORT_ONLY_HEADER, STYLE_ATTRIBUTE_VALUES, _source_hash
from tests.factories import client_for, tiny_problem, user_with_role

# A value for each kind of path parameter, so that every route resolves.
_PARAMETER = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>")
_UUID = "00000000-0000-0000-0000-000000000000"
_SAMPLE = {"int": "1", "slug": "add-one", "str": "x", "uuid": _UUID, "path": "x"}


def _routes(resolver: URLResolver, prefix: str = "") -> Iterator[str]:
    for entry in resolver.url_patterns:
        pattern = str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _routes(entry, prefix + pattern)
        elif isinstance(entry, URLPattern):
            yield prefix + pattern


def _path(route: str) -> str | None:
    """A concrete path for a route (None for a regex one: the admin's catch-alls)."""
    if route.startswith("^") or "(?P" in route:
        return None
    filled = _PARAMETER.sub(lambda m: _SAMPLE.get(m["converter"] or "str", "x"), route)
    return "/" + filled.lstrip("^").rstrip("$")


ALL_PATHS = sorted({p for route in _routes(get_resolver()) if (p := _path(route)) is not None})


def _directives(header: str) -> dict[str, str]:
    parts = (part.strip().split(" ", 1) for part in header.split(";"))
    return {part[0]: part[1] if len(part) > 1 else "" for part in parts}


def test_the_route_walk_reaches_the_pages_the_admin_and_the_api() -> None:
    assert "/admin/" in ALL_PATHS and "/accounts/login/" in ALL_PATHS
    assert any(p.startswith("/api/") for p in ALL_PATHS)
    assert any(p.startswith("/sessions/") for p in ALL_PATHS)
    assert any(p.startswith("/studio/") for p in ALL_PATHS)


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "admin"])
def test_every_route_answers_with_the_policy(who: str) -> None:
    tiny_problem()
    user = user_with_role("root", admin=True) if who == "admin" else None
    client = client_for(user)
    client.raise_request_exception = False  # a 500 page carries the policy too
    missing = []
    for path in ALL_PATHS:
        response = client.get(path)
        if HEADER not in response:
            missing.append(f"{path} ({response.status_code})")
        response.close()
    assert missing == []


@pytest.mark.django_db
def test_error_pages_and_static_files_carry_the_policy() -> None:
    client = Client()
    for path in ["/no/such/page/", "/api/no-such-endpoint", "/static/frontend/site.css"]:
        response = client.get(path)
        assert HEADER in response, path
        response.close()


@pytest.mark.django_db
def test_the_policy_runs_only_the_sites_own_scripts_and_styles() -> None:
    response = Client().get("/accounts/login/", HTTP_HOST="localhost")
    policy = _directives(response[HEADER])
    assert policy["script-src"] == "'self'"  # no 'unsafe-inline', no nonce, no eval
    assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
    assert policy["base-uri"] == "'self'" and policy["form-action"] == "'self'"
    assert policy["connect-src"] == "'self' ws://localhost wss://localhost"
    assert policy["img-src"] == "'self' data:"
    assert "unsafe-inline" not in response[HEADER]
    # The nonce that <style> elements need is this response's, and the page hands it over.
    nonce = re.search(r"'nonce-([^']+)'", policy["style-src-elem"])
    assert nonce is not None
    assert f'<meta name="csp-nonce" content="{nonce[1]}">' in response.content.decode()
    # Style attributes: only the exact values the bundles set.
    assert policy["style-src-attr"].split() == [
        "'unsafe-hashes'",
        *(_source_hash(value) for value in STYLE_ATTRIBUTE_VALUES),
    ]


@pytest.mark.django_db
def test_each_response_has_its_own_nonce() -> None:
    client = Client()
    first, second = client.get("/accounts/login/"), client.get("/accounts/login/")
    assert first[HEADER] != second[HEADER]


@pytest.mark.django_db
@override_settings(ONSITE_CSP_REPORT_ONLY=True, ONSITE_CSP_IMG_SRC=["https://img.example.com"])
def test_report_only_and_extra_image_sources_come_from_settings() -> None:
    response = Client().get("/accounts/login/")
    assert HEADER not in response
    assert _directives(response[REPORT_ONLY_HEADER])["img-src"] == (
        "'self' data: https://img.example.com"
    )
