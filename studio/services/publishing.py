"""Going live and publishing: the rules that decide what candidates get."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from problems.models import Problem, ProblemVersion
from studio.models import LimitConfirmation
from studio.services.errors import ProblemActionError
from studio.services.validations import version_validation_state

# ---------------------------------------------------------------- going live


def version_make_live(
    *, version: ProblemVersion, user: User | None = None, confirm_low_limit: bool = False
) -> Problem:
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
        if problem.published:  # going live on a published problem publishes this version
            _low_limit_confirmed(version, user=user, confirmed=confirm_low_limit)
        content = version.content()
        Problem.objects.filter(pk=problem.pk).update(
            live_version=version, updated_at=timezone.now(), **content
        )
        problem.live_version = version
        for name, value in content.items():
            setattr(problem, name, value)
    return problem


def limit_below_suggestion(version: ProblemVersion | None) -> tuple[float, float] | None:
    """(limit, suggested) in seconds when `version`'s per-test limit (the smaller of wall and
    CPU) is below the one its validation calibrated; None otherwise."""
    if version is None:
        return None
    timing = (version.validation_report or {}).get("timing") or {}
    suggested = timing.get("suggested_limit_seconds")
    limits = version.limits or {}
    wall = limits.get("test_wall_seconds")
    limit = min(float(wall), float(limits.get("test_cpu_seconds", wall))) if wall else None
    if suggested is None or limit is None or limit >= float(suggested):
        return None
    return limit, float(suggested)


def _low_limit_confirmed(version: ProblemVersion, *, user: User | None, confirmed: bool) -> None:
    """Refuse to offer `version` with a limit below its suggestion unless confirmed, and record
    the confirmation (who, when, which limit)."""
    low = limit_below_suggestion(version)
    if low is None:
        return
    if not confirmed:
        raise ProblemActionError(
            "low_limit",
            f"v{version.number}'s limit ({low[0]:g} s) is below the suggested {low[1]:g} s: "
            "tick the confirmation to publish with it anyway",
        )
    LimitConfirmation.objects.create(
        version=version, confirmed_by=user, limit_seconds=low[0], suggested_seconds=low[1]
    )


def problem_publish(
    *, problem: Problem, user: User | None = None, confirm_low_limit: bool = False
) -> Problem:
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
        # A limit below the calibrated suggestion is the author's call, made explicitly and
        # recorded (who, when, which limit): a warning alone was too easy to click past.
        _low_limit_confirmed(live, user=user, confirmed=confirm_low_limit)
        problem.published = True
        problem.archived_at = None
        problem.save(update_fields=["published", "archived_at", "updated_at"])
    return problem


def problem_unpublish(*, problem: Problem) -> Problem:
    """Hide the problem from candidates (sessions already using it keep their copy)."""
    Problem.objects.filter(pk=problem.pk).update(published=False, updated_at=timezone.now())
    problem.published = False
    return problem


def problem_archive(*, problem: Problem) -> Problem:
    """Hide a problem from candidates for good (issue 28.7): unpublished and marked archived,
    every version, submission and session kept. Publishing it again brings it back."""
    now = timezone.now()
    Problem.objects.filter(pk=problem.pk).update(published=False, archived_at=now, updated_at=now)
    problem.published, problem.archived_at = False, now
    return problem


def problem_delete(*, problem: Problem) -> None:
    """Delete a draft problem with everything it has (issue 28.7). Only a problem that was
    never offered: not published, never archived, with no submission and no session; a
    problem with a history is archived instead, so that history stays."""
    with transaction.atomic():
        problem = Problem.objects.select_for_update().get(pk=problem.pk)
        if problem.published or problem.archived_at is not None:
            raise ProblemActionError(
                "has_history", f"{problem.slug} has been published: archive it instead"
            )
        if problem.submissions.exists() or problem.sessions.exists():
            raise ProblemActionError(
                "has_history",
                f"{problem.slug} has submissions or sessions: archive it instead, to keep them",
            )
        Problem.objects.filter(pk=problem.pk).update(live_version=None)
        problem.delete()
