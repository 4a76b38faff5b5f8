"""API tokens: make one (the secret is returned once), revoke one, authenticate a secret."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.errors import ApplicationError
from core.models import ApiToken

# A recognisable start, so a leaked token is easy to scan for (not a secret itself).
TOKEN_MARK = "onsite_"  # noqa: S105
PREFIX_CHARS = 12  # what lists show: "onsite_" and five random characters
MAX_TOKENS_PER_USER = 20
# last_used_at is written at most this often, so a busy client is not a write per request.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenError(ApplicationError):
    """A token request the rules refuse (bad_name, too_many, not_found)."""


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def token_create(*, user: Any, name: str) -> tuple[ApiToken, str]:
    """A new named token for `user`, and its secret: shown now, never stored, never again."""
    name = name.strip()
    if not name or len(name) > 80:
        raise TokenError("bad_name", "a token needs a name of 1 to 80 characters")
    with transaction.atomic():
        live = ApiToken.objects.select_for_update().filter(user=user, revoked_at__isnull=True)
        if live.count() >= MAX_TOKENS_PER_USER:
            raise TokenError(
                "too_many", f"at most {MAX_TOKENS_PER_USER} tokens; revoke one first"
            )
        secret = TOKEN_MARK + secrets.token_urlsafe(32)
        token = ApiToken.objects.create(
            user=user, name=name, prefix=secret[:PREFIX_CHARS], key_hash=_hash(secret)
        )
    return token, secret


def token_revoke(*, user: Any, token_id: int) -> ApiToken:
    """Revoke one of `user`'s tokens; it stops working at once. Revoking twice is harmless."""
    token = ApiToken.objects.filter(pk=token_id, user=user).first()
    if token is None:
        raise TokenError("not_found", "no such token")
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    token.refresh_from_db()
    return token


def token_authenticate(secret: str) -> Any | None:
    """The active user a live token belongs to, or None."""
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=_hash(secret), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def tokens_of(user: Any) -> list[ApiToken]:
    return list(ApiToken.objects.filter(user=user))
