"""Login throttling that stops guessing without locking people out (issue 35.3): a guessing run
is refused, its target still signs in from elsewhere, a shared address is not locked, an account
guessed from many addresses is slowed, never locked; API tokens count apart. Always with the
real client address behind the proxy (nginx on loopback, the client in X-Forwarded-For)."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessFailureLog
from django.conf import settings as django_settings
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from core.models import GuessedAccount
from core.tokens import token_create
from tests.factories import user_with_role

pytestmark = pytest.mark.django_db

PROXY = "127.0.0.1"


@pytest.fixture(autouse=True)
def _behind_nginx(settings) -> None:  # type: ignore[no-untyped-def]
    # The production shape: nginx on the host, the client in X-Forwarded-For.
    settings.ONSITE_TRUSTED_PROXIES = [PROXY]
    settings.AXES_FAILURE_LIMIT = 5
    settings.ONSITE_LOGIN_ADDRESS_FAILURE_LIMIT = 100
    settings.ONSITE_LOGIN_SLOWDOWN_SECONDS = 2.0


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
    refusals = [
        m for m in (r.getMessage() for r in caplog.records) if "sign-in refused, locked" in m
    ]
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
    attacker = visitor("203.0.113.68")
    assert guess_until_refused(attacker, "/accounts/login/", "cand") < 10
    assert log_in(attacker, "/accounts/login/", "cand", "pw-cand") == 429
    call_command("axes_reset_username", "cand")
    assert log_in(attacker, "/accounts/login/", "cand", "pw-cand") == 302


def test_a_run_of_100_guesses_from_one_address_is_refused_before_the_tenth_try() -> None:
    user_with_role("kim", "candidate")
    attacker = visitor("203.0.113.80")
    statuses = [log_in(attacker, "/accounts/login/", "kim", f"guess-{n}") for n in range(100)]
    first_refusal = statuses.index(429)
    assert first_refusal < 9  # the 10th try (index 9) is already refused
    assert statuses[:first_refusal] == [200] * first_refusal
    assert set(statuses[first_refusal:]) == {429}  # none of the rest is even checked
    # Refusals are not failures: the lock runs from the 5th failure, and nothing else counted
    assert AccessAttempt.objects.get(username="kim").failures_since_start == first_refusal + 1


def test_failures_from_one_address_never_lock_the_account_for_its_user_elsewhere(  # type: ignore[no-untyped-def]
    caplog,
) -> None:
    user_with_role("lee", "interviewer")
    attacker = visitor("203.0.113.81")
    for n in range(100):
        log_in(attacker, "/accounts/login/", "lee", f"guess-{n}")
    assert log_in(attacker, "/accounts/login/", "lee", "pw-lee") == 429
    # The interviewer at another address, minutes before the interview: typo, then right
    owner = visitor("198.51.100.20")
    assert log_in(owner, "/accounts/login/", "lee", "typo") == 200
    with caplog.at_level(logging.WARNING):
        assert log_in(owner, "/accounts/login/", "lee", "pw-lee") == 302
    # One address is not "many": the account is not even slowed
    assert not GuessedAccount.objects.filter(username="lee").exists()
    assert not [r for r in caplog.records if "guessed from" in r.getMessage()]


def test_an_address_shared_by_30_people_who_each_mistype_twice_is_not_locked() -> None:
    # Given a classroom behind one NAT address
    classroom = visitor("203.0.113.90")
    names = [f"student{n}" for n in range(30)]
    for name in names:
        user_with_role(name, "candidate")
    # When each of the 30 mistypes twice and then types the right password
    for name in names:
        assert log_in(classroom, "/accounts/login/", name, "typo-1") == 200
        assert log_in(classroom, "/accounts/login/", name, "typo-2") == 200
        signed_in = visitor("203.0.113.90")
        assert log_in(signed_in, "/accounts/login/", name, f"pw-{name}") == 302, name
    # Then nobody was locked; the address limit is well above that (a setting) ...
    statuses = [log_in(classroom, "/accounts/login/", f"sprayed{n}", "wrong") for n in range(45)]
    assert statuses[:39] == [200] * 39  # 60 + 39 = 99 failures
    assert statuses[39] == 429 and set(statuses[40:]) == {429}  # the 100th locks the address
    assert log_in(classroom, "/accounts/login/", "student0", "pw-student0") == 429
    # ... and a neighbour behind the same nginx, or a forged X-Forwarded-For, is its own count
    assert log_in(visitor("203.0.113.91"), "/accounts/login/", "student0", "pw-student0") == 302
    forged = Client(REMOTE_ADDR="203.0.113.90", HTTP_X_FORWARDED_FOR="192.0.2.1")
    assert log_in(forged, "/accounts/login/", "student0", "pw-student0") == 429


def pass_the_wait(username: str) -> None:
    """As if the account's current wait had passed (no sleeping in tests)."""
    GuessedAccount.objects.filter(username=username).update(
        next_try_at=timezone.now() - timedelta(seconds=1)
    )


def test_an_account_guessed_from_many_addresses_is_slowed_never_locked(caplog) -> None:  # type: ignore[no-untyped-def]
    user_with_role("ivy", "candidate")
    home = visitor("198.51.100.30")
    assert log_in(home, "/accounts/login/", "ivy", "pw-ivy") == 302  # she has signed in from home
    # Five guesses, each from its own address: every one is checked (no address is locked)
    with caplog.at_level(logging.WARNING):
        for n in range(5):
            assert log_in(visitor(f"203.0.113.{100 + n}"), "/accounts/login/", "ivy", "x") == 200
    guessed = GuessedAccount.objects.get(username="ivy")
    assert (guessed.failures, guessed.addresses, guessed.wait_seconds) == (5, 5, 2)
    warnings = [r.getMessage() for r in caplog.records if "guessed from" in r.getMessage()]
    assert warnings and "'ivy'" in warnings[-1] and "5 addresses" in warnings[-1]

    # A try from a new address during the wait is refused with how long to wait, not checked
    early = visitor("203.0.113.120").post(
        "/accounts/login/", {"username": "ivy", "password": "guess"}
    )
    assert early.status_code == 429
    assert 0 < int(early["Retry-After"]) <= 2 and "Try again in" in early.content.decode()
    assert GuessedAccount.objects.get(username="ivy").failures == 5
    # while the owner at her own address signs in as usual
    assert log_in(visitor("198.51.100.30"), "/accounts/login/", "ivy", "pw-ivy") == 302

    # Each further failure waits longer
    waits = []
    for n in range(4):
        pass_the_wait("ivy")
        assert log_in(visitor(f"203.0.113.{130 + n}"), "/accounts/login/", "ivy", "y") == 200
        waits.append(GuessedAccount.objects.get(username="ivy").wait_seconds)
    assert waits == [4, 8, 16, 32]
    late = visitor("203.0.113.140").post("/accounts/login/", {"username": "ivy", "password": "z"},
                                         HTTP_ACCEPT="application/json")  # fmt: skip
    assert late.status_code == 429 and 16 < int(late["Retry-After"]) <= 32
    assert late.json()["code"] == "rate_limited" and "seconds" in late.json()["detail"]

    # Never locked: after the wait, her right password from a new address (a hotel) works
    pass_the_wait("ivy")
    assert log_in(visitor("192.0.2.50"), "/accounts/login/", "ivy", "pw-ivy") == 302

    # Listed in the admin; deleting it lifts the slowdown
    root = Client()
    root.force_login(user_with_role("root", admin=True))
    listing = root.get("/admin/core/guessedaccount/")
    assert listing.status_code == 200 and "ivy" in listing.content.decode()
    guessed = GuessedAccount.objects.get(username="ivy")
    assert root.get(f"/admin/core/guessedaccount/{guessed.pk}/change/").status_code == 200
    log_in(visitor("203.0.113.150"), "/accounts/login/", "ivy", "w")  # a wait again
    assert log_in(visitor("192.0.2.51"), "/accounts/login/", "ivy", "pw-ivy") == 429
    done = root.post(f"/admin/core/guessedaccount/{guessed.pk}/delete/", {"post": "yes"})
    assert done.status_code == 302
    assert log_in(visitor("192.0.2.51"), "/accounts/login/", "ivy", "pw-ivy") == 302


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


def test_api_tokens_keep_their_own_count_per_address() -> None:
    _, secret = token_create(user=user_with_role("bot", "candidate"), name="script")
    user_with_role("pat", "candidate")
    office = visitor("203.0.113.74")

    def call(token: str) -> int:
        return office.get("/api/submissions", HTTP_AUTHORIZATION=f"Token {token}").status_code

    # Four wrong tokens and four mistyped passwords (of four people) from one address
    assert [call(f"onsite_guess{n}") for n in range(4)] == [401] * 4
    for n in range(4):
        assert log_in(office, "/accounts/login/", f"nobody{n}", "wrong") == 200
    # Neither count reached its limit: the token works, and so does a password
    assert call(secret) == 200
    assert log_in(visitor("203.0.113.74"), "/accounts/login/", "pat", "pw-pat") == 302
    # The fifth wrong token locks tokens from the address; passwords there still work
    assert call("onsite_guess5") == 429
    assert call(secret) == 429
    assert log_in(visitor("203.0.113.74"), "/accounts/login/", "pat", "pw-pat") == 302


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
