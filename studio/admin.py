from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from problems.models import CONTENT_FIELDS, Problem, ProblemVersion
from studio.models import LimitConfirmation, Regrade, RegradeItem
from studio.services.validations import version_validation_request, version_validation_state


def _queue_validations(
    modeladmin: admin.ModelAdmin, request: HttpRequest, versions: list[ProblemVersion]
) -> None:
    queued = [v for v in versions if version_validation_request(version=v)]
    busy = len(versions) - len(queued)
    modeladmin.message_user(
        request,
        f"Queued validation of {len(queued)} version(s)"
        + (f"; {busy} already running" if busy else "")
        + ". Reports appear on each version.",
        messages.INFO,
    )


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = [
        "slug",
        "title",
        "difficulty",
        "queue",
        "published",
        "owner",
        "live_version_number",
        "live_validation",
        "version_count",
        "updated_at",
    ]
    list_filter = ["difficulty", "queue", "published", "kind"]
    search_fields = ["slug", "title", "owner__username"]
    list_select_related = ["live_version", "owner"]
    actions = ["validate_live_version"]
    autocomplete_fields = ["owner"]
    filter_horizontal = ["coauthors"]
    # Publishing and going live have rules (a validated live version): the studio applies them.
    # The content is the live version's copy; it changes in the studio, through a draft version.
    readonly_fields = ["published", "live_version", *CONTENT_FIELDS]

    @admin.display(description="live")
    def live_version_number(self, problem: Problem) -> str:
        return f"v{problem.live_version.number}" if problem.live_version else "-"

    @admin.display(description="live validation")
    def live_validation(self, problem: Problem) -> str:
        live = problem.live_version
        return version_validation_state(live) if live else "-"

    @admin.display(description="versions")
    def version_count(self, problem: Problem) -> int:
        return problem.versions.count()

    @admin.action(description="Validate the live version")
    def validate_live_version(self, request: HttpRequest, queryset: QuerySet[Problem]) -> None:
        versions = [p.live_version for p in queryset.select_related("live_version")]
        _queue_validations(self, request, [v for v in versions if v is not None])


@admin.register(ProblemVersion)
class ProblemVersionAdmin(admin.ModelAdmin):
    list_display = [
        "problem",
        "number",
        "is_live",
        "validation",
        "validated_at",
        "test_counts",
        "wall_limit",
        "tests_hash",
        "created_at",
    ]
    list_filter = ["validation", "problem__queue"]
    search_fields = ["problem__slug"]
    list_select_related = ["problem"]
    actions = ["validate"]

    # A version is made by the package reader (studio edits, loadproblems, an import), which
    # computes its tests hash and checks its tests; the admin only shows it, so a made-up hash
    # or a malformed test can never be typed in here.
    def get_readonly_fields(
        self, request: HttpRequest, obj: ProblemVersion | None = None
    ) -> list[str]:
        return [f.name for f in ProblemVersion._meta.concrete_fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(boolean=True, description="live")
    def is_live(self, version: ProblemVersion) -> bool:
        return version.problem.live_version_id == version.pk

    @admin.display(description="tests (public + hidden)")
    def test_counts(self, version: ProblemVersion) -> str:
        return f"{len(version.public_tests)} + {len(version.hidden_tests)}"

    @admin.display(description="wall limit (s)")
    def wall_limit(self, version: ProblemVersion) -> float:
        return float(version.limits.get("test_wall_seconds", 0))

    @admin.action(description="Validate (reference, starter, known-wrong, timings)")
    def validate(self, request: HttpRequest, queryset: QuerySet[ProblemVersion]) -> None:
        _queue_validations(self, request, list(queryset.select_related("problem")))


class RegradeItemInline(admin.TabularInline):
    model = RegradeItem
    extra = 0
    can_delete = False
    readonly_fields = [
        "submission",
        "old_version_number",
        "old_verdict",
        "new_verdict",
        "old_passed",
        "new_passed",
        "changed",
        "message",
    ]
    exclude = ["old_total", "new_total"]


@admin.register(Regrade)
class RegradeAdmin(admin.ModelAdmin):
    list_display = ["id", "version", "status", "done", "total", "changed", "created_at"]
    list_filter = ["status"]
    list_select_related = ["version__problem"]
    readonly_fields = ["version", "requested_by", "status", "total", "done", "changed", "message"]
    inlines = [RegradeItemInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a regrade is requested from a version's page (its version is fixed)


@admin.register(LimitConfirmation)
class LimitConfirmationAdmin(admin.ModelAdmin):
    """Who published a version with a limit below its suggestion, and when (a record: read
    only)."""

    list_display = ("version", "limit_seconds", "suggested_seconds", "confirmed_by", "confirmed_at")
    readonly_fields = list_display

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
