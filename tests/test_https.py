"""ONSITE_HTTPS=1: `check --deploy` is clean with the production settings, and the switch does
what it says behind the proxy (redirect, HSTS, secure cookies, the scheme from the proxy only)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from tests.processes import ROOT

PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "config.settings",
    "DJANGO_DEBUG": "0",
    "DJANGO_ALLOWED_HOSTS": "onsite.example.com",
    "ONSITE_TRUSTED_PROXIES": "127.0.0.1,::1",
    "ONSITE_HTTPS": "1",
}


def deploy_check(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith(("DJANGO_", "ONSITE_"))}  # fmt: skip
    environment.update(
        PRODUCTION, DJANGO_SECRET_KEY=secrets.token_urlsafe(50), ONSITE_VAR_DIR=str(tmp_path)
    )
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.slow  # a manage.py process: seconds
def test_check_deploy_with_the_production_settings_prints_no_warning(tmp_path: Path) -> None:
    done = deploy_check(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout
    assert "WARNING" not in done.stderr


@pytest.mark.slow  # a manage.py process: seconds
def test_without_onsite_https_check_deploy_names_what_is_missing(tmp_path: Path) -> None:
    done = deploy_check(tmp_path, ONSITE_HTTPS="0")
    assert done.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in done.stderr


@pytest.mark.slow  # a manage.py process: seconds
def test_onsite_https_without_a_trusted_proxy_is_refused_at_start(tmp_path: Path) -> None:
    done = deploy_check(tmp_path, ONSITE_TRUSTED_PROXIES="")
    assert done.returncode != 0 and "ONSITE_HTTPS=1 needs ONSITE_TRUSTED_PROXIES" in done.stderr


@pytest.fixture
def https(settings):  # type: ignore[no-untyped-def]
    """What ONSITE_HTTPS=1 sets (config/settings.py), behind nginx on loopback."""
    settings.ONSITE_TRUSTED_PROXIES = ["127.0.0.1"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_SSL_REDIRECT = True
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    settings.SECURE_HSTS_SECONDS = 31536000
    return settings


@pytest.mark.django_db
def test_behind_the_proxy_https_is_served_with_hsts_and_secure_cookies(https) -> None:  # type: ignore[no-untyped-def]
    # Plain HTTP (the proxy says so, or nothing says otherwise) is redirected to HTTPS.
    plain = Client(REMOTE_ADDR="127.0.0.1").get("/accounts/login/", HTTP_X_FORWARDED_PROTO="http")
    assert plain.status_code == 301
    assert plain["Location"] == "https://testserver/accounts/login/"
    # Through the proxy over HTTPS: the page, HSTS, and a CSRF cookie only HTTPS carries.
    page = Client(REMOTE_ADDR="127.0.0.1").get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
    assert page.status_code == 200
    assert page["Strict-Transport-Security"].startswith("max-age=31536000")
    assert page.cookies["csrftoken"]["secure"] is True


@pytest.mark.django_db
def test_only_a_trusted_proxy_may_say_the_client_spoke_https(https) -> None:  # type: ignore[no-untyped-def]
    forged = Client(REMOTE_ADDR="203.0.113.7").get(
        "/accounts/login/", HTTP_X_FORWARDED_PROTO="https"
    )
    assert forged.status_code == 301 and forged["Location"].startswith("https://")


def test_the_proxy_headers_middleware_works_on_the_async_path_too(settings) -> None:  # type: ignore[no-untyped-def]
    # daphne runs the middleware chain async: no thread hop for this one.
    import asyncio

    from django.test import RequestFactory

    from core.clientaddr import proxy_headers_middleware

    settings.ONSITE_TRUSTED_PROXIES = ["127.0.0.1"]
    seen: list[str | None] = []

    async def view(request):  # type: ignore[no-untyped-def]
        seen.append(request.META.get("HTTP_X_FORWARDED_PROTO"))

    middleware = proxy_headers_middleware(view)
    assert asyncio.iscoroutinefunction(middleware)
    for peer in ("203.0.113.7", "127.0.0.1"):
        request = RequestFactory().get("/", REMOTE_ADDR=peer, HTTP_X_FORWARDED_PROTO="https")
        asyncio.run(middleware(request))
    assert seen == [None, "https"]
