"""Versions: every edit stores a new draft version of the whole package (graded behaviour
and content), with who saved it and what it changed."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from problems.models import Problem, ProblemVersion
from problems.package import (
    MAX_SOURCE_BYTES,
    Package,
    package_read,
    package_write,
)
from problems.services import version_fields, version_matches
from studio.services.conflicts import Choice, edit_apply
from studio.services.errors import ProblemActionError
from studio.services.revisions import version_collapsible, version_rewrite


def problem_statement_update(
    *,
    problem: Problem,
    statement_md: str,
    user: User | None = None,
    based_on: str | None = None,
    onto: str | None = None,
    choices: Mapping[str, Choice] | None = None,
) -> tuple[ProblemVersion, bool]:
    """Save a new statement as a draft version (candidates keep reading the live one's).

    `based_on` / `onto`: the state the author's page showed and the head they reapply onto
    (studio.services.conflicts). Returns the version holding that statement and whether it is
    new.
    """
    if len(statement_md.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise ProblemActionError(
            "too_large", f"the statement is larger than {MAX_SOURCE_BYTES} bytes"
        )
    # Browsers post a textarea with CRLF line ends; a package file reads back with LF ones, so
    # the next edit (which goes through package_read) would note a statement change otherwise.
    statement_md = statement_md.replace("\r\n", "\n")
    return edit_apply(
        problem=problem,
        user=user,
        edit=lambda package: replace(package, statement_md=statement_md),
        based_on=based_on,
        onto=onto,
        choices=choices,
        store=lambda package: version_store(problem=problem, package=package, user=user),
    )


def _newest(problem: Problem) -> ProblemVersion:
    """The version an edit starts from: the newest, draft or not."""
    base = problem.versions.order_by("-number").first()
    if base is None:
        raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
    return base


def tests_replaced(
    package: Package,
    *,
    public_json: str | None = None,
    hidden_json: str | None = None,
    limits: Mapping[str, Any] | None = None,
) -> Package:
    """`package` with new test lists (JSON text) and/or limits, read back as a folder on disk
    (so a malformed list raises PackageError naming the file and field)."""
    if limits:
        package = replace(package, limits=replace(package.limits, **dict(limits)))
    with tempfile.TemporaryDirectory(prefix="onsite-edit-") as scratch:
        folder = package_write(package, scratch)
        for name, text in (("public.json", public_json), ("hidden.json", hidden_json)):
            if text is not None:
                (folder / "tests" / name).write_text(text, encoding="utf-8")
        return package_read(folder)


def _tests_edit(
    public_json: str | None, hidden_json: str | None, limits: Mapping[str, Any] | None
) -> Callable[[Package], Package]:
    """The edit that replaces the test lists and/or limits."""
    return lambda package: tests_replaced(
        package, public_json=public_json, hidden_json=hidden_json, limits=limits
    )


def package_checked(package: Package) -> Package:
    """`package` as package_read sees it once written out: every rule a folder must pass."""
    with tempfile.TemporaryDirectory(prefix="onsite-edit-") as scratch:
        return package_read(package_write(package, scratch))


def version_create(
    *,
    problem: Problem,
    base: ProblemVersion | None = None,
    public_json: str | None = None,
    hidden_json: str | None = None,
    limits: Mapping[str, Any] | None = None,
    user: User | None = None,
    based_on: str | None = None,
    onto: str | None = None,
    choices: Mapping[str, Choice] | None = None,
    check: Callable[[Package], None] | None = None,
) -> tuple[ProblemVersion, bool]:
    """A new version from `base` (default: the newest) with new tests and/or limits.

    The edit goes through the very validation a package on disk goes through: the package is
    written to a scratch folder with the new files and read back with `package_read`, so a
    malformed edit raises `PackageError` naming the file and field, and nothing is written.
    Returns the version holding those tests and whether it is new (identical graded behaviour
    to the newest version creates nothing). The live version never changes here.

    An explicit older `base` is merged onto the newest version (its change replayed on top,
    studio.services.conflicts), so an edit made from an old version's page loses nothing
    saved since; `based_on` / `onto` are a form's base and reapply target.
    """
    if base is not None:
        head = _newest(problem)
        based_on = f"{base.number}.{base.revisions.count()}"
        if base.pk != head.pk:
            onto = f"{head.number}.{head.revisions.count()}"
    edit = _tests_edit(public_json, hidden_json, limits)

    def store(package: Package) -> tuple[ProblemVersion, bool]:
        checked = package_checked(package)
        if check is not None:  # a caller's rule beyond the package format (raises to refuse)
            check(checked)
        return version_store(problem=problem, package=checked, user=user)

    return edit_apply(
        problem=problem, user=user, edit=edit, based_on=based_on, onto=onto, choices=choices,
        store=store
    )


# What a change note names, by the version field that changed.
_NOTED_FIELDS = {
    "driver": "driver",
    "driver_code": "driver code",
    "checker_code": "checker",
    "support_code": "support module",
    "compare": "comparison",
    "title": "title",
    "difficulty": "difficulty",
    "kind": "kind",
    "topics": "topics",
    "statement_md": "statement",
    "starter_code": "starter",
    "reference_code": "reference",
    "wrong_solutions": "wrong solutions",
    "known_solutions": "known solutions",
    "hints": "hints",
    "follow_ups": "follow-ups",
    "clarifications": "clarifications",
    "rubric": "rubric",
    "custom_reference": "custom-input reference",
}


def version_change_note(base: ProblemVersion | None, fields: Mapping[str, Any]) -> str:
    """What a new version changes from `base`, in a line the studio's history shows."""
    if base is None:
        return "first version"
    notes: list[str] = []
    for kind in ("public", "hidden"):
        old, new = getattr(base, f"{kind}_tests"), fields[f"{kind}_tests"]
        if old != new:
            names_old = {t["name"] for t in old}
            names_new = {t["name"] for t in new}
            added, removed = len(names_new - names_old), len(names_old - names_new)
            edited = sum(
                1 for t in new if t["name"] in names_old and t not in old
            )
            parts = [f"+{added}" if added else "", f"-{removed}" if removed else "",
                     f"~{edited}" if edited else ""]
            notes.append(f"{kind} tests {' '.join(p for p in parts if p) or 'reordered'}")
    limit_changes = [
        f"{name} {base.limits.get(name)}→{value}"
        for name, value in fields["limits"].items()
        if base.limits.get(name) != value
    ]
    if limit_changes:
        notes.append("limits: " + ", ".join(limit_changes))
    notes += [
        label
        for name, label in _NOTED_FIELDS.items()
        if name in fields and getattr(base, name) != fields[name]
    ]
    return "; ".join(notes)[:500] or "no graded change"


@transaction.atomic
def version_store(
    *, problem: Problem, package: Package, user: User | None = None
) -> tuple[ProblemVersion, bool]:
    """Add a draft version holding `package` (graded behaviour and content) unless the newest
    already holds it. A save by the newest draft's own author shortly after their last one
    rewrites that draft instead (studio.services.revisions); it still counts as saved.

    Unlike problem_load, this touches only versions, never what candidates read: the new
    version is a draft until it is validated and made live (version_make_live).
    """
    latest = problem.versions.order_by("-number").first()
    fields = version_fields(package)
    if latest is not None and version_matches(latest, fields):
        return latest, False
    if latest is not None and version_collapsible(problem=problem, version=latest, user=user):
        # One author's consecutive saves: one draft version, its note naming all they changed.
        before = problem.versions.filter(number__lt=latest.number).order_by("-number").first()
        version_rewrite(version=latest, fields=fields, note=version_change_note(before, fields))
        return latest, True
    version = ProblemVersion.objects.create(
        problem=problem,
        number=latest.number + 1 if latest else 1,
        validation=ProblemVersion.Validation.DRAFT,
        created_by=user,
        change_note=version_change_note(latest, fields),
        **fields,
    )
    return version, True
