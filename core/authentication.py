"""DRF authentication by a hashed API token: `Authorization: Token <secret>` (or Bearer)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from core.loginlock import (
    axes_request,
    login_locked_message,
    token_login_check,
    token_login_failed,
)
from core.tokens import PREFIX_CHARS, token_authenticate

KEYWORDS = ("token", "bearer")


class HashedTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, None] | None:
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].decode("latin-1").lower() not in KEYWORDS:
            return None  # not ours: let the next class (the session) try
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("the header is `Token <secret>`")
        try:
            secret = parts[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed("the token is not ASCII") from exc
        # Guessing tokens counts like guessing passwords, per client address (core.loginlock):
        # while the address is locked even a right token is refused.
        probe = axes_request(request._request)
        wait = token_login_check(request=probe)
        if wait is not None:
            raise exceptions.Throttled(wait=wait, detail=login_locked_message(wait))
        user = token_authenticate(secret)
        if user is None:
            wait = token_login_failed(request=probe, token_prefix=secret[:PREFIX_CHARS])
            if wait is not None:
                raise exceptions.Throttled(wait=wait, detail=login_locked_message(wait))
            raise exceptions.AuthenticationFailed("unknown or revoked token")
        return user, None

    def authenticate_header(self, request: Request) -> str:
        return "Token"


class HashedTokenScheme(OpenApiAuthenticationExtension):
    """How /api/docs describes the token header."""

    target_class = "core.authentication.HashedTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <secret>`; make one at /accounts/tokens/",
        }
