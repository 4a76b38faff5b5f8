"""Authoring a problem in the studio without touching files: create one, edit any part of its
package, import and export it as a `.zip`. Every edit goes through `package_read`, the checks a
package folder on disk gets, so the studio can never store a package the bank would refuse."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from problems.archive import MAX_ZIP_BYTES, package_unzip, package_zip
from problems.models import Problem, ProblemVersion
from problems.package import (
    Grading,
    Limits,
    Package,
    TestCase,
    package_read,
    package_write,
)
from problems.services import problem_fields, problem_load, problem_to_package
from studio.permissions import problem_can_edit
from studio.services import ProblemActionError, version_store

MAX_UPLOAD_BYTES = MAX_ZIP_BYTES

# ---------------------------------------------------------------- new problems and package parts

# The package's parts a studio edit may replace, and where each is stored.
PROBLEM_PARTS = frozenset({
    "title", "difficulty", "queue", "kind", "topics", "hints", "follow_ups", "statement_md",
    "starter_code", "reference_code", "wrong", "clarifications", "rubric",
})
VERSION_PARTS = frozenset({"driver_code", "checker_code", "support_code", "grading", "limits"})


def _package_checked(package: Package) -> Package:
    """`package` as package_read sees it once written out: every rule a folder must pass."""
    with tempfile.TemporaryDirectory(prefix="onsite-edit-") as scratch:
        return package_read(package_write(package, scratch))


def problem_create(
    *,
    user: User,
    slug: str,
    title: str,
    difficulty: str = "medium",
    queue: str = "cpu",
    kind: str = "implement",
    topics: tuple[str, ...] = (),
    entry: str = "solve",
) -> Problem:
    """A new problem owned by `user`, unpublished, with a draft v1 to build on.

    It starts as a one-function problem (`entry`) whose reference passes its one sample test,
    so it is a valid package from the first save; the author then edits every part.
    """
    if Problem.objects.filter(slug=slug).exists():
        raise ProblemActionError("slug_taken", f"a problem called {slug!r} exists already")
    package = _package_checked(Package(
        slug=slug,
        title=title,
        difficulty=difficulty,
        queue=queue,
        kind=kind,
        topics=tuple(topics),
        hints=(),
        follow_ups=(),
        statement_md=f"# {title}\n\nDescribe the task here.\n",
        starter_code=f"def {entry}(x):\n    raise NotImplementedError\n",
        reference_code=f"def {entry}(x):\n    return x\n",
        limits=Limits(),
        grading=Grading(driver="function", entry=entry, compare="exact"),
        public_tests=(TestCase("sample", {"args": [1]}, 1, "correctness", False),),
        hidden_tests=(),
        wrong=(),
        clarifications=(),
        rubric=(),
    ))
    with transaction.atomic():
        try:
            problem, _ = problem_load(package=package, publish=False)
        except IntegrityError as exc:
            raise ProblemActionError("slug_taken", f"a problem called {slug!r} exists") from exc
        Problem.objects.filter(pk=problem.pk).update(owner=user)
        ProblemVersion.objects.filter(problem=problem).update(
            validation=ProblemVersion.Validation.DRAFT,
            created_by=user,
            change_note="created in the studio",
        )
    problem.refresh_from_db()
    return problem


def problem_parts_update(
    *, problem: Problem, user: User | None, parts: Mapping[str, Any]
) -> tuple[Problem, ProblemVersion | None]:
    """Replace some of the package's parts; all of them pass package_read or none is saved.

    What candidates read (statement, starter, hints...) is stored on the problem; a change to
    graded behaviour (driver, checker, support module, grading settings, limits) makes a new
    draft version. A change to the reference, starter or a wrong solution makes every report
    stale, so the problem cannot be published again before it is validated again. Returns the
    problem and the new version (None when graded behaviour did not change).
    """
    unknown = set(parts) - PROBLEM_PARTS - VERSION_PARTS
    if unknown:
        raise ProblemActionError("bad_part", f"not a package part: {', '.join(sorted(unknown))}")
    base = problem.versions.order_by("-number").first()
    if base is None:
        raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
    package = _package_checked(replace(problem_to_package(problem=problem, version=base), **parts))
    new: ProblemVersion | None = None
    with transaction.atomic():
        if set(parts) & PROBLEM_PARTS:
            Problem.objects.filter(pk=problem.pk).update(
                **problem_fields(package), updated_at=timezone.now()
            )
        if set(parts) & VERSION_PARTS:
            try:
                version, created = version_store(problem=problem, package=package, user=user)
            except IntegrityError as exc:
                raise ProblemActionError(
                    "conflict", "another edit was saved at the same moment; reload and try again"
                ) from exc
            new = version if created else None
    problem.refresh_from_db()
    return problem, new


# ---------------------------------------------------------------- packages in and out


def problem_import_zip(*, data: bytes, user: User) -> tuple[Problem, ProblemVersion, bool]:
    """Load an uploaded package `.zip`: a new problem owned by `user`, or a new version of one
    `user` may edit. Returns the problem, the version holding the package, and whether the
    problem is new.

    Importing onto a published problem is refused: the package's statement, starter and hints
    would reach candidates at once; unpublish it first (or import under a new slug). The new
    version waits for validation (the sweeper queues it), and never goes live by itself unless
    it is the problem's first.
    """
    package = package_unzip(data)  # PackageError names the file and the field
    existing = Problem.objects.filter(slug=package.slug).first()
    if existing is not None:
        if not problem_can_edit(user=user, problem=existing):
            raise ProblemActionError(
                "forbidden", f"{package.slug} exists and you are not one of its authors"
            )
        if existing.published:
            raise ProblemActionError(
                "published",
                f"{package.slug} is published: unpublish it first, or import under a new slug",
            )
    with transaction.atomic():
        problem, created = problem_load(package=package, publish=False)
        version = problem.versions.order_by("-number").first()
        assert version is not None  # problem_load always leaves one
        if created:
            ProblemVersion.objects.filter(pk=version.pk).update(
                created_by=user, change_note="imported from a .zip"
            )
        if existing is None:
            Problem.objects.filter(pk=problem.pk).update(owner=user)
            problem.owner = user
    return problem, version, existing is None


def problem_export_zip(*, problem: Problem, version: ProblemVersion | None = None) -> bytes:
    """The problem (at `version`, default the live one) as a package `.zip`."""
    return package_zip(problem_to_package(problem=problem, version=version))
