"""API tokens, stored hashed.

DRF's authtoken keeps the key itself in the database (and its admin shows it); here only a
SHA-256 of the secret is stored, with a short prefix to tell tokens apart. The secret is shown
once, when it is made. SHA-256 without a salt is enough: the secret is 256 random bits, so there
is nothing to guess or to look up in a table.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=80)
    # The secret's first characters, shown in lists so a user can tell which token is which.
    prefix = models.CharField(max_length=12)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class EditorPreferences(models.Model):
    """A person's editor settings (core/editorprefs.py), so they follow them to any browser."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="editor_preferences"
    )
    prefs = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"editor settings of user {self.user_id}"


class GuessedAccount(models.Model):
    """An account whose password is being guessed from many addresses (core/loginlock.py):
    slowed, never locked. Listed in the admin; deleting it lifts the slowdown."""

    username = models.CharField(max_length=150, unique=True)
    first_seen_at = models.DateTimeField()
    last_failure_at = models.DateTimeField()
    # Within the lock time, as of the last failure: failures of the account from all
    # addresses, and how many addresses they came from.
    failures = models.PositiveIntegerField(default=0)
    addresses = models.PositiveIntegerField(default=0)
    wait_seconds = models.PositiveIntegerField(default=0)
    # Before this, a try from an address the account never signed in from is refused.
    next_try_at = models.DateTimeField()

    class Meta:
        ordering = ["-last_failure_at", "-pk"]

    def __str__(self) -> str:
        return self.username
