"""Packages in and out: a problem imported from, or exported as, a `.zip` in the
`problems/bank/` folder format."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from grading.inputchecks import InputCheckError
from problems.archive import MAX_ZIP_BYTES, package_unzip, package_zip
from problems.models import Problem, ProblemVersion
from problems.services import problem_load, problem_to_package
from studio.permissions import problem_can_edit
from studio.services.errors import ProblemActionError
from studio.services.inputcheck import InputsMismatch, inputs_checked_in, package_inputs_check

MAX_UPLOAD_BYTES = MAX_ZIP_BYTES


# ---------------------------------------------------------------- packages in and out


def problem_import_zip(*, data: bytes, user: User) -> tuple[Problem, ProblemVersion, bool]:
    """Load an uploaded package `.zip`: a new problem owned by `user`, or a new version of one
    `user` may edit. Returns the problem, the version holding the package, and whether the
    problem is new.

    Importing onto a published problem is refused: the package's statement, starter and hints
    would reach candidates at once; unpublish it first (or import under a new slug). The new
    version waits for validation (the sweeper queues it), and never goes live by itself unless
    it is the problem's first or changes only the content (see problem_load).
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
    newest = existing.versions.order_by("-number").first() if existing is not None else None
    try:  # before anything is written: an upload is author code, its driver runs in the sandbox
        package_inputs_check(package, checked=inputs_checked_in(newest, package))
    except InputsMismatch as exc:
        raise ProblemActionError(
            "inputs", f"Refused, nothing imported: inputs that do not fit the driver: {exc}"
        ) from exc
    except InputCheckError as exc:
        raise ProblemActionError(exc.code, f"Refused, nothing imported: {exc.message}") from exc
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
