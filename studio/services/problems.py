"""Authoring a problem in the studio without touching files: create one and edit any part of
its package. Every edit goes through `package_read`, the checks a package folder on disk gets,
so the studio can never store a package the bank would refuse; every edit is a draft version."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from problems import kinds
from problems.models import Problem, ProblemVersion
from problems.package import (
    KnownSolution,
    Package,
    WrongSolution,
    package_read,
    package_write,
)
from problems.services import problem_load
from studio.services.conflicts import Choice, edit_apply
from studio.services.errors import ProblemActionError
from studio.services.versions import version_store

# ---------------------------------------------------------------- new problems and package parts

# The package's parts a studio edit may replace. Every one of them makes a draft version,
# except the queue, which is the problem's own (it decides where each version is graded).
PARTS = frozenset({
    "title", "difficulty", "queue", "kind", "topics", "hints", "follow_ups", "statement_md",
    "starter_code", "reference_code", "wrong", "clarifications", "rubric", "driver_code",
    "checker_code", "support_code", "grading", "limits", "reference_board", "known",
})

KIND_CHANGE = ("a problem cannot change to or from a design problem: a design problem has no "
               "tests or code, a coding problem no board. Create a new problem instead")


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
    package = _package_checked(kinds.kind_of(kind).part().new_package(
        slug=slug, title=title, difficulty=difficulty, queue=queue, kind=kind,
        topics=tuple(topics), entry=entry,
    ))
    return _created(user=user, slug=slug, package=package)


def _created(*, user: User, slug: str, package: Package) -> Problem:
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
    *,
    problem: Problem,
    user: User | None,
    parts: Mapping[str, Any] | None = None,
    edit: Callable[[Package], Package] | None = None,
    based_on: str | None = None,
    onto: str | None = None,
    choices: Mapping[str, Choice] | None = None,
) -> tuple[Problem, ProblemVersion | None]:
    """Replace some of the package's parts (or apply `edit`) as a new draft version; all of
    them pass package_read or none is saved.

    The draft starts from the version the author's page showed (`based_on`; default the
    newest), refused when that is no longer the newest unless reapplied `onto` it
    (studio.services.conflicts), and reaches candidates only once it is validated and made
    live (services.version_make_live copies its content onto the problem). Returns the
    problem and the new version (None when nothing changed).
    """
    parts = dict(parts or {})
    unknown = set(parts) - PARTS
    if unknown:
        raise ProblemActionError("bad_part", f"not a package part: {', '.join(sorted(unknown))}")

    def change(package: Package) -> Package:
        if "kind" in parts and (kinds.kind_of(parts["kind"]).package_part
                                != package.kind_spec.package_part):
            raise ProblemActionError("kind_change", KIND_CHANGE)
        package = replace(package, **parts)
        return edit(package) if edit is not None else package

    def store(package: Package) -> tuple[ProblemVersion, bool]:
        package = _package_checked(package)
        if package.queue != problem.queue:
            Problem.objects.filter(pk=problem.pk).update(
                queue=package.queue, updated_at=timezone.now()
            )
            problem.queue = package.queue
        return version_store(problem=problem, package=package, user=user)

    version, created = edit_apply(
        problem=problem, user=user, edit=change, based_on=based_on, onto=onto, choices=choices,
        store=store
    )
    problem.refresh_from_db()
    return problem, version if created else None


def wrong_solution_put(
    *,
    problem: Problem,
    user: User | None,
    wrong: WrongSolution,
    based_on: str | None = None,
    onto: str | None = None,
    choices: Mapping[str, Choice] | None = None,
) -> tuple[Problem, ProblemVersion | None]:
    """Add a known-wrong solution to the newest version's, or replace the one of that file
    name, as a new draft. A replacement that declares no groups or words keeps the ones the
    replaced entry declared (the studio's form edits code, verdict and why; a package sets all)."""

    def edit(package: Package) -> Package:
        old = next((w for w in package.wrong if w.file == wrong.file), None)
        new = wrong
        if old is not None and not (wrong.groups or wrong.says):
            new = replace(wrong, groups=old.groups, says=old.says)
        if old is None:
            return replace(package, wrong=(*package.wrong, new))
        return replace(package, wrong=tuple(new if w.file == wrong.file else w
                                            for w in package.wrong))

    return problem_parts_update(
        problem=problem, user=user, edit=edit, based_on=based_on, onto=onto, choices=choices
    )


def _row_delete(
    *,
    part: str,
    noun: str,
    problem: Problem,
    user: User | None,
    index: int,
    based_on: str | None,
    onto: str | None,
    choices: Mapping[str, Choice] | None,
) -> tuple[Problem, ProblemVersion | None]:
    """Drop the `index`-th row of a package part that is a list of files (`wrong`, `known`) of
    the version the page showed, as a new draft; `no_<part>` when there is no such row."""

    def edit(package: Package) -> Package:
        rows = getattr(package, part)
        if not 0 <= index < len(rows):
            raise ProblemActionError(f"no_{part}", f"there is no {noun} #{index}")
        return replace(package, **{part: rows[:index] + rows[index + 1:]})

    return problem_parts_update(
        problem=problem, user=user, edit=edit, based_on=based_on, onto=onto, choices=choices
    )


def wrong_solution_delete(
    *,
    problem: Problem,
    user: User | None,
    index: int,
    based_on: str | None = None,
    onto: str | None = None,
    choices: Mapping[str, Choice] | None = None,
) -> tuple[Problem, ProblemVersion | None]:
    """Drop the `index`-th wrong solution of the version the page showed, as a new draft."""
    return _row_delete(part="wrong", noun="wrong solution", problem=problem, user=user,
                       index=index, based_on=based_on, onto=onto, choices=choices)


def known_solution_put(
    *,
    problem: Problem,
    user: User | None,
    known: KnownSolution,
    based_on: str | None = None,
    onto: str | None = None,
    choices: Mapping[str, Choice] | None = None,
) -> tuple[Problem, ProblemVersion | None]:
    """Add a known solution (a leaked one, say: grading/copies.py flags Submits that match it),
    or replace the one of that file name, as a new draft."""

    def edit(package: Package) -> Package:
        kept = tuple(k for k in package.known if k.file != known.file)
        if len(kept) == len(package.known):
            return replace(package, known=(*package.known, known))
        return replace(
            package, known=tuple(known if k.file == known.file else k for k in package.known)
        )

    return problem_parts_update(
        problem=problem, user=user, edit=edit, based_on=based_on, onto=onto, choices=choices
    )


def known_solution_delete(
    *,
    problem: Problem,
    user: User | None,
    index: int,
    based_on: str | None = None,
    onto: str | None = None,
    choices: Mapping[str, Choice] | None = None,
) -> tuple[Problem, ProblemVersion | None]:
    """Drop the `index`-th known solution of the version the page showed, as a new draft."""
    return _row_delete(part="known", noun="known solution", problem=problem, user=user,
                       index=index, based_on=based_on, onto=onto, choices=choices)
