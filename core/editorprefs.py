"""Editor settings that follow a person to any browser: the vocabulary, its defaults, the check
of what a page sends, and the stored copy (one row per user, `EditorPreferences`).

The page renders the stored settings into the desk (`editor_prefs` in every template's
context) and posts each change to `/accounts/editor-preferences`; the browser's localStorage
only covers a signed-out page or a save that has not reached the server yet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from core.errors import ApplicationError

FONT_SIZES = (12, 13, 14, 15, 16, 18, 20)
CHOICES: dict[str, tuple[Any, ...]] = {
    "wrap": (False, True),
    "fontSize": FONT_SIZES,
    "theme": ("light", "dark"),
    "keymap": ("default", "vim", "emacs"),
    "layout": ("auto", "beside", "below"),
}
DEFAULTS: dict[str, Any] = {"wrap": False, "fontSize": 14, "theme": "light",
                            "keymap": "default", "layout": "auto"}


def _allowed(name: str, value: Any) -> bool:
    # bool is an int in Python: a font size of True must not pass as 1, nor 1 as True.
    return any(type(value) is type(choice) and value == choice for choice in CHOICES[name])


def editor_prefs_clean(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The settings in `raw`, each checked against its choices. Raises ApplicationError
    (`bad_preferences`) naming the first unknown setting or value: nothing is half-saved."""
    unknown = sorted(set(raw) - set(CHOICES))
    if unknown:
        raise ApplicationError("bad_preferences", f"unknown editor setting {unknown[0]!r}")
    cleaned = {}
    for name, value in raw.items():
        if not _allowed(name, value):
            choices = ", ".join(str(c).lower() if isinstance(c, bool) else str(c)
                                for c in CHOICES[name])
            raise ApplicationError("bad_preferences", f"{name} must be one of {choices}")
        cleaned[name] = value
    return cleaned


def editor_prefs_get(user: AbstractBaseUser | AnonymousUser) -> dict[str, Any] | None:
    """The user's stored settings over the defaults; None for a signed-out page or a user who
    never changed one (the browser's own copy, if any, then stands)."""
    if not user.is_authenticated:
        return None
    from core.models import EditorPreferences

    row = EditorPreferences.objects.filter(user_id=user.pk).only("prefs").first()
    if row is None:
        return None
    stored = row.prefs if isinstance(row.prefs, dict) else {}
    # A row written before a setting's choices changed keeps only what is still allowed.
    return DEFAULTS | {k: v for k, v in stored.items() if k in CHOICES and _allowed(k, v)}


def editor_prefs_save(
    *, user: AbstractBaseUser | AnonymousUser, changes: Mapping[str, Any]
) -> dict[str, Any]:
    """Store `changes` (checked) over the signed-in user's settings; returns the whole set."""
    from core.models import EditorPreferences

    if not user.is_authenticated or user.pk is None:
        raise ApplicationError("forbidden", "sign in to keep editor settings")
    cleaned = editor_prefs_clean(changes)
    row, _ = EditorPreferences.objects.get_or_create(user_id=user.pk)
    current = editor_prefs_get(user) or dict(DEFAULTS)
    row.prefs = current | cleaned
    row.save(update_fields=["prefs", "updated_at"])
    return dict(row.prefs)
