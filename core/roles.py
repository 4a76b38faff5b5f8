"""Roles are Django groups; this module is the one place that knows their names."""

from __future__ import annotations

from typing import Any

CANDIDATE = "candidate"
INTERVIEWER = "interviewer"
AUTHOR = "author"
ROLES = (CANDIDATE, INTERVIEWER, AUTHOR)


def _in_group(user: Any, name: str) -> bool:
    return bool(user.is_authenticated and user.groups.filter(name=name).exists())


def is_admin(user: Any) -> bool:
    return bool(user.is_authenticated and (user.is_superuser or user.is_staff))


def is_interviewer(user: Any) -> bool:
    return is_admin(user) or _in_group(user, INTERVIEWER)


def is_author(user: Any) -> bool:
    return is_admin(user) or _in_group(user, AUTHOR)

