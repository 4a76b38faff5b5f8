"""Login throttling: guessing passwords (page, admin) or API tokens locks; locks expire, lift."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessFailureLog
from django.conf import settings as django_settings
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from core.tokens import token_create
from tests.factories import user_with_role

pytestmark = pytest.mark.django_db

PROXY = "127.0.0.1"


@pytest.fixture(autouse=True)
def _behind_nginx(settings) -> None:  # type: ignore[no-untyped-def]
    # The production shape: nginx on the host, the client in X-Forwarded-For.
    settings.ONSITE_TRUSTED_PROXIES = [PROXY]
    settings.AXES_FAILURE_LIMIT = 5


def visitor(address: str) -> Client:
    return Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=address)


def log_in(client: Client, path: str, username: str, password: str) -> int:
    return client.post(path, {"username": username, "password": password, "next": "/"}).status_code


def guess_until_refused(client: Client, path: str, username: str) -> int:
    """Wrong passwords until the answer is no longer the form again; how many were sent."""
    for attempt in range(1, 20):
        status = log_in(client, path, username, f"guess-{attempt}")
        if status != 200:
            assert status == 429
            return attempt
    raise AssertionError("20 wrong passwords and never refused")


def expire_locks() -> None:
    """As if the lock time had passed (no sleeping in tests)."""
    past = timezone.now() - django_settings.AXES_COOLOFF_TIME - timedelta(seconds=1)
    AccessAttempt.objects.update(attempt_time=past)


def test_guessing_passwords_on_the_login_page_is_refused_before_the_tenth(caplog) -> None:  # type: ignore[no-untyped-def]
    user_with_role("admin", admin=True)
    attacker = visitor("203.0.113.66")
    with caplog.at_level(logging.INFO):
        refused_at = guess_until_refused(attacker, "/accounts/login/", "admin")
    assert refused_at < 10

    # While locked, the right password is refused too, with when to come back.
    with caplog.at_level(logging.INFO):
        locked = attacker.post("/accounts/login/", {"username": "admin", "password": "pw-admin"})
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Try again in 15 minutes." in page and 'name="password"' in page
    assert 0 < int(locked["Retry-After"]) <= 15 * 60
    assert "_auth_user_id" not in attacker.session

    # The attempts are logged: each failure with the account and the address, and kept.
    failures = [r.getMessage() for r in caplog.records if "login failure by" in r.getMessage()]
    assert len(failures) == refused_at
    assert "203.0.113.66" in failures[-1] and '"admin"' in failures[-1]
    assert AccessFailureLog.objects.filter(username="admin", ip_address="203.0.113.66").count() == (
        refused_at
    )
    # ... and so is each refusal while the lock holds, the right password's included.
    refusals = [m for m in (r.getMessage() for r in caplog.records)
                if "sign-in refused, locked" in m]
    assert len(refusals) >= 2 and all("203.0.113.66" in r and "'admin'" in r for r in refusals)

    # The lock expires by itself.
    expire_locks()
    assert log_in(attacker, "/accounts/login/", "admin", "pw-admin") == 302


def test_the_admin_login_locks_and_an_admin_lifts_the_lock() -> None:
    user_with_role("admin", admin=True)
    attacker = visitor("203.0.113.67")
    assert guess_until_refused(attacker, "/admin/login/", "admin") < 10
    assert log_in(attacker, "/admin/login/", "admin", "pw-admin") == 429

    # An admin (already signed in elsewhere) lifts it with the admin's delete action.
    root = Client()
    root.force_login(user_with_role("root", admin=True))
    listing = root.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200 and "203.0.113.67" in listing.content.decode()
    ids = [str(pk) for pk in AccessAttempt.objects.values_list("pk", flat=True)]
    done = root.post(
        "/admin/axes/accessattempt/",
        {"action": "delete_selected", "_selected_action": ids, "post": "yes"},
    )
    assert done.status_code == 302
    assert log_in(attacker, "/admin/login/", "admin", "pw-admin") == 302


def test_a_management_command_lifts_an_accounts_lock() -> None:
    user_with_role("cand", "candidate")
    assert guess_until_refused(visitor("203.0.113.68"), "/accounts/login/", "cand") < 10
    # Locked for everyone now, also from another address: the account itself is locked.
    assert log_in(visitor("198.51.100.1"), "/accounts/login/", "cand", "pw-cand") == 429
    call_command("axes_reset_username", "cand")
    assert log_in(visitor("198.51.100.1"), "/accounts/login/", "cand", "pw-cand") == 302


def test_an_address_guessing_many_accounts_is_locked_and_its_neighbours_are_not() -> None:
    for name in ("ann", "bob", "cat", "dan", "eve", "fay"):
        user_with_role(name, "candidate")
    attacker = visitor("203.0.113.69")
    statuses = [log_in(attacker, "/accounts/login/", name, "wrong") for name in
                ("ann", "bob", "cat", "dan", "eve")]  # fmt: skip
    assert statuses[-1] == 429 and statuses[:-1] == [200] * 4
    assert log_in(attacker, "/accounts/login/", "fay", "pw-fay") == 429
    # Through the same nginx, another visitor is not in the attacker's count ...
    assert log_in(visitor("203.0.113.70"), "/accounts/login/", "fay", "pw-fay") == 302
    # ... and a forged X-Forwarded-For from outside does not escape it.
    forged = Client(REMOTE_ADDR="203.0.113.69", HTTP_X_FORWARDED_FOR="192.0.2.1")
    assert log_in(forged, "/accounts/login/", "fay", "pw-fay") == 429


def test_guessing_api_tokens_locks_the_address_even_for_the_right_token() -> None:
    _, secret = token_create(user=user_with_role("api", "candidate"), name="script")
    attacker = visitor("203.0.113.71")

    def call(client: Client, token: str) -> int:
        return client.get("/api/submissions", HTTP_AUTHORIZATION=f"Token {token}").status_code

    statuses = [call(attacker, f"onsite_guess{n}") for n in range(6)]
    assert statuses[:4] == [401] * 4 and statuses[4] == 429
    locked = attacker.get("/api/submissions", HTTP_AUTHORIZATION=f"Token {secret}")
    assert locked.status_code == 429
    body = locked.json()
    assert body["code"] == "rate_limited" and "Try again in 15 minutes" in body["detail"]
    assert int(locked["Retry-After"]) > 0
    # Wrong tokens from elsewhere share no account: another client is unaffected.
    assert call(visitor("203.0.113.72"), secret) == 200
    call_command("axes_reset_ip", "203.0.113.71")
    assert call(attacker, secret) == 200


def test_a_locked_json_client_of_the_login_page_gets_json() -> None:
    user_with_role("jay", "candidate")
    client = visitor("203.0.113.73")
    for n in range(5):
        log_in(client, "/accounts/login/", "jay", f"x{n}")
    locked = client.post("/accounts/login/", {"username": "jay", "password": "pw-jay"},
                         HTTP_ACCEPT="application/json")  # fmt: skip
    assert locked.status_code == 429
    assert locked.json()["code"] == "rate_limited"
    assert "Try again in 15 minutes." in locked.json()["detail"]
