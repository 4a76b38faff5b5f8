from django.contrib import admin

from problems.models import Problem, ProblemVersion


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = ["slug", "title", "difficulty", "queue", "published", "live_version"]
    list_filter = ["difficulty", "queue", "published"]
    search_fields = ["slug", "title"]


@admin.register(ProblemVersion)
class ProblemVersionAdmin(admin.ModelAdmin):
    list_display = ["problem", "number", "tests_hash", "validation", "created_at"]
    list_filter = ["validation"]
