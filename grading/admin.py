from django.contrib import admin

from grading.models import Submission, TestResult


class TestResultInline(admin.TabularInline):
    model = TestResult
    extra = 0
    readonly_fields = ["index", "name", "hidden", "tag", "verdict", "time_ms"]
    exclude = ["detail"]


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "user",
        "problem",
        "mode",
        "status",
        "verdict",
        "passed",
        "total",
        "created_at",
    ]
    list_filter = ["status", "verdict", "mode"]
    inlines = [TestResultInline]
