"""Template context every page needs: which sections the user's roles open, and the server
limits the page's scripts check before sending (read from settings, never a second copy)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from core.editorprefs import editor_prefs_get
from core.roles import is_author, is_interviewer


def roles(request: HttpRequest) -> dict[str, Any]:
    user = request.user
    return {"user_is_author": is_author(user), "user_is_interviewer": is_interviewer(user)}


def limits(request: HttpRequest) -> dict[str, Any]:
    return {"max_code_bytes": settings.ONSITE_MAX_CODE_BYTES}


def editor_prefs(request: HttpRequest) -> dict[str, Any]:
    """The user's stored editor settings, read only by a page that renders the desk (a callable:
    the template calls it when it uses it)."""
    return {"editor_prefs": lambda: editor_prefs_get(request.user)}
