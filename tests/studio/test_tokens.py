"""API tokens, self-service: made with a name, shown once, stored hashed, revoked; the admin
never shows a secret; the API takes `Token <secret>`."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.test import Client

from core.models import ApiToken
from core.tokens import MAX_TOKENS_PER_USER, token_create
from tests.factories import ADD_ONE, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db


def signed_in(username: str, role: str | None = "candidate", **kwargs: bool) -> Client:
    client = Client()
    client.force_login(user_with_role(username, role, **kwargs))
    return client


def submit(secret: str) -> int:
    return (
        Client()
        .post(
            "/api/submissions",
            {"problem": "add-one", "code": ADD_ONE, "mode": "run"},
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Token {secret}",
        )
        .status_code
    )


def test_a_token_is_shown_once_stored_hashed_works_and_stops_when_revoked() -> None:
    tiny_problem()
    client = signed_in("cand")
    # when the candidate makes a token
    made = client.post("/accounts/tokens/", {"name": "grading script"})
    assert made.status_code == 302 and made["Location"] == "/accounts/tokens/"
    page = client.get(made["Location"]).content.decode()
    secret = re.search(r'<code id="token-secret">([^<]+)</code>', page)
    assert secret is not None
    secret_text = secret.group(1)
    # then only its hash is stored, and the list never shows it again
    token = ApiToken.objects.get()
    assert (
        token.name == "grading script"
        and token.key_hash == hashlib.sha256(secret_text.encode()).hexdigest()
    )
    assert secret_text not in str(list(ApiToken.objects.values()))
    # a reload neither shows the secret again nor makes another token
    listing = client.get("/accounts/tokens/").content.decode()
    assert "grading script" in listing and secret_text not in listing
    assert 'id="token-secret"' not in listing and ApiToken.objects.count() == 1
    assert f"{token.prefix}…" in listing
    # and it authenticates the API, recording when it was used
    assert submit(secret_text) == 201
    token.refresh_from_db()
    assert token.last_used_at is not None
    # when it is revoked it stops working at once
    client.post(f"/accounts/tokens/{token.pk}/revoke/")
    assert submit(secret_text) == 401
    assert "revoked" in client.get("/accounts/tokens/").content.decode()


def test_bad_tokens_and_bad_requests_get_clear_errors() -> None:
    tiny_problem()
    assert submit("onsite_made-up") == 401
    client = signed_in("cand")
    response = client.post("/accounts/tokens/", {"name": "  "})
    assert response.status_code == 400 and "needs a name" in response.content.decode()
    other = signed_in("other")
    token, _ = token_create(user=user_with_role("owner"), name="mine")
    response = other.post(f"/accounts/tokens/{token.pk}/revoke/", follow=True)
    assert "no such token" in response.content.decode()
    token.refresh_from_db()
    assert token.revoked_at is None
    assert Client().get("/accounts/tokens/").status_code == 302  # signed out: log in first


def test_a_user_has_at_most_a_few_live_tokens() -> None:
    user = user_with_role("busy")
    for i in range(MAX_TOKENS_PER_USER):
        token_create(user=user, name=f"t{i}")
    client = Client()
    client.force_login(user)
    response = client.post("/accounts/tokens/", {"name": "one more"})
    assert response.status_code == 400 and "revoke one first" in response.content.decode()


def test_the_admin_lists_tokens_without_any_secret() -> None:
    token, secret = token_create(user=user_with_role("cand"), name="ci")
    admin = signed_in("root", None, admin=True)
    for path in ("/admin/core/apitoken/", f"/admin/core/apitoken/{token.pk}/change/"):
        html = admin.get(path).content.decode()
        assert "ci" in html, path
        assert secret not in html and token.key_hash not in html, path
    assert admin.get("/admin/core/apitoken/add/").status_code == 403
    assert admin.get("/admin/authtoken/").status_code == 404  # DRF's plaintext tokens are gone
