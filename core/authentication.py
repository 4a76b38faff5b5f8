"""DRF authentication by a hashed API token: `Authorization: Token <secret>` (or Bearer)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from core.tokens import token_authenticate

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
        user = token_authenticate(secret)
        if user is None:
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
