"""Sessions, scorecards, questions and notes in the admin: for looking things up and fixing data.

Read-mostly: the session lifecycle belongs to interviews.services, so the admin never edits a
status, a deadline or a document. Secrets (a live session's invite token) are never shown.
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from interviews.models import (
    CriterionScore,
    InterviewSession,
    Note,
    Question,
    ScheduleChange,
    Scorecard,
)


class QuestionInline(admin.TabularInline):
    model = Question
    extra = 0
    can_delete = False
    fields = ["asked_at", "asked_by", "text", "answer_source", "answer"]
    readonly_fields = ["asked_at", "asked_by", "text", "answer_source", "answer"]


class NoteInline(admin.TabularInline):
    model = Note
    extra = 0
    can_delete = False
    fields = ["created_at", "author", "kind", "text"]
    readonly_fields = ["created_at", "author", "kind", "text"]


class ScheduleChangeInline(admin.TabularInline):
    """The schedule's history (invited, rescheduled, resent, cancelled): changed on the
    session's schedule page (/sessions/<id>/schedule/), only read here."""

    model = ScheduleChange
    extra = 0
    can_delete = False
    fields = ["at", "action", "sequence", "scheduled_for", "duration", "by", "sent_at", "error"]
    readonly_fields = ["at", "action", "sequence", "scheduled_for", "duration", "by", "sent_at",
                       "error"]


@admin.register(InterviewSession)
class InterviewSessionAdmin(admin.ModelAdmin):
    list_display = ["id", "problem", "kind", "status_now", "candidate", "interviewer",
                    "created_at", "deadline", "finish_reason"]
    list_filter = ["kind", "status", "finish_reason"]
    search_fields = ["problem__slug", "candidate__username", "interviewer__username"]
    list_select_related = ["problem", "candidate", "interviewer"]
    # The invite token is a bearer secret: left out of every admin page.
    exclude = ["invite_token"]
    readonly_fields = ["problem", "kind", "status", "candidate", "interviewer", "duration",
                       "created_at", "started_at", "deadline", "finished_at", "finish_reason",
                       "final_submission", "calendar_sequence", "cancelled_at"]
    inlines = [QuestionInline, NoteInline, ScheduleChangeInline]

    @admin.display(description="status")
    def status_now(self, session: InterviewSession) -> str:
        return session.status_now()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # started or scheduled from the session pages; its people are read-only


class CriterionScoreInline(admin.TabularInline):
    model = CriterionScore
    extra = 0
    fields = ["criterion", "level", "comment"]


@admin.register(Scorecard)
class ScorecardAdmin(admin.ModelAdmin):
    list_display = ["id", "session", "interviewer", "recommendation", "submitted_at",
                    "updated_at"]
    list_filter = ["recommendation"]
    search_fields = ["interviewer__username", "session__problem__slug"]
    list_select_related = ["session__problem", "interviewer"]
    readonly_fields = ["session", "interviewer", "created_at", "updated_at"]
    inlines = [CriterionScoreInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made by the platform during a session; the form cannot set its session


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["id", "session", "asked_by", "asked_at", "answer_source", "matched_key"]
    list_filter = ["answer_source", "matched_key"]
    search_fields = ["text", "answer"]
    list_select_related = ["session__problem", "asked_by"]
    readonly_fields = ["session", "asked_by", "asked_at", "matched_index", "matched_key",
                       "similarity"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made by the platform during a session; the form cannot set its session


@admin.register(Note)
class NoteAdmin(admin.ModelAdmin):
    list_display = ["id", "session", "author", "kind", "created_at"]
    list_filter = ["kind"]
    search_fields = ["text"]
    list_select_related = ["session__problem", "author"]
    readonly_fields = ["session", "author", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made by the platform during a session; the form cannot set its session
