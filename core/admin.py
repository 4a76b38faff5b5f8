"""API tokens in the admin: names, owners and dates; never a secret (only its hash is stored,
and the admin does not show even that)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from core.models import ApiToken, GuessedAccount


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["name", "user__username", "prefix"]
    list_select_related = ["user"]
    exclude = ["key_hash"]
    readonly_fields = ["user", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a token is made by its owner, who is the only one to see its secret

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"Revoked {count} token(s).")


@admin.register(GuessedAccount)
class GuessedAccountAdmin(admin.ModelAdmin):
    """Accounts guessed from many addresses (core/loginlock.py): slowed, never locked.
    Deleting one lifts its slowdown; the attempts themselves are under Axes."""

    FIELDS = ("username", "failures", "addresses", "wait_seconds", "next_try_at",
              "first_seen_at", "last_failure_at")  # fmt: skip
    list_display = FIELDS
    readonly_fields = FIELDS
    search_fields = ["username"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
