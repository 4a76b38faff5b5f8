"""Going live and publishing: the rules that decide what candidates get."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from problems.models import Problem, ProblemVersion
from studio.services.errors import ProblemActionError
from studio.services.validations import version_validation_state

# ---------------------------------------------------------------- going live


def version_make_live(*, version: ProblemVersion) -> Problem:
    """Switch the problem's live version to `version`; only a validated version may go live.

    The version's content (statement, starter, hints, rubric... CONTENT_FIELDS) is copied onto
    the problem in the same transaction: that copy is what candidates read, so a draft reaches
    them here and nowhere else. New submissions grade against it; past ones keep pointing at
    the version that graded them.
    """
    with transaction.atomic():
        version = (
            ProblemVersion.objects.select_for_update().select_related("problem").get(pk=version.pk)
        )
        state = version_validation_state(version)
        if state != ProblemVersion.Validation.PASSED:
            raise ProblemActionError(
                "not_validated", f"v{version.number} has not passed validation ({state})"
            )
        problem = version.problem
        content = version.content()
        Problem.objects.filter(pk=problem.pk).update(
            live_version=version, updated_at=timezone.now(), **content
        )
        problem.live_version = version
        for name, value in content.items():
            setattr(problem, name, value)
    return problem


def problem_publish(*, problem: Problem) -> Problem:
    """Show the problem to candidates; its live version must have passed validation, package
    checks included.

    (`loadproblems` publishes the bank directly and leaves it pending validation: the beat
    queues it, and a bank problem that fails is withdrawn by `Problem.objects.offered()`.)
    """
    with transaction.atomic():
        problem = Problem.objects.select_for_update().get(pk=problem.pk)
        live = problem.live_version
        if live is None:
            raise ProblemActionError("no_version", f"{problem.slug} has no live version")
        state = version_validation_state(live)
        if state != ProblemVersion.Validation.PASSED:
            raise ProblemActionError(
                "not_validated",
                f"the live version v{live.number} has not passed validation ({state})",
            )
        # The package checks (bank quality: enough tests, wrong solutions, hints, rubric...)
        # warn on a version, which may still go live for a fix; they block publishing.
        issues = (live.validation_report.get("lint") or {}).get("issues") or []
        if issues:
            raise ProblemActionError(
                "package_checks", f"the package checks of v{live.number} fail: {'; '.join(issues)}"
            )
        problem.published = True
        problem.save(update_fields=["published", "updated_at"])
    return problem


def problem_unpublish(*, problem: Problem) -> Problem:
    """Hide the problem from candidates (sessions already using it keep their copy)."""
    Problem.objects.filter(pk=problem.pk).update(published=False, updated_at=timezone.now())
    problem.published = False
    return problem
