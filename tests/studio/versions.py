"""Studio test helpers: mark a version validated without running the sandbox; the newest
version."""

from __future__ import annotations

from typing import Any

from problems.models import Problem, ProblemVersion
from studio import validation
from studio.services.validations import version_solutions


def mark_validated(version: ProblemVersion, report: dict[str, Any] | None = None) -> None:
    current = validation.solutions_hash(version_solutions(version))
    ProblemVersion.objects.filter(pk=version.pk).update(
        validation="passed", validation_report=(report or {}) | {"solutions_hash": current}
    )


def head(problem: Problem) -> ProblemVersion:
    """The problem's newest version."""
    version = problem.versions.order_by("-number").first()
    assert version is not None
    return version
