"""Loops in the admin: read-only, for looking things up. Scheduling, the decision and its
audit belong to loops.services."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from loops.models import Loop, LoopDecisionChange, LoopRound


class LoopRoundInline(admin.TabularInline):
    model = LoopRound
    extra = 0
    can_delete = False
    fields = ("position", "label", "session", "break_after", "chased_at")
    readonly_fields = fields


class LoopDecisionChangeInline(admin.TabularInline):
    model = LoopDecisionChange
    extra = 0
    can_delete = False
    fields = ("at", "by", "decision", "reason", "closed")
    readonly_fields = fields


@admin.register(Loop)
class LoopAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "kind", "status", "candidate", "decision", "created_at"]
    list_filter = ["kind", "status", "decision"]
    search_fields = ["title", "candidate__username", "candidate_email"]
    inlines = [LoopRoundInline, LoopDecisionChangeInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
