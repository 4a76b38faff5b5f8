"""Template context every page needs: which sections the user's roles open."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from core.roles import is_author, is_interviewer


def roles(request: HttpRequest) -> dict[str, Any]:
    user = request.user
    return {"user_is_author": is_author(user), "user_is_interviewer": is_interviewer(user)}
