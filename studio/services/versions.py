"""Versions: every edit stores a new draft version of the whole package (graded behaviour
and content), with who saved it and what it changed."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from problems.models import Problem, ProblemVersion
from problems.package import (
    MAX_SOURCE_BYTES,
    Package,
    package_read,
    package_write,
)
from problems.services import problem_to_package, version_fields, version_matches
from studio.services.errors import ProblemActionError


def problem_statement_update(
    *, problem: Problem, statement_md: str, user: User | None = None
) -> tuple[ProblemVersion, bool]:
    """Save a new statement as a draft version (candidates keep reading the live one's).

    Returns the version holding that statement and whether it is new.
    """
    if len(statement_md.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise ProblemActionError(
            "too_large", f"the statement is larger than {MAX_SOURCE_BYTES} bytes"
        )
    # Browsers post a textarea with CRLF line ends; a package file reads back with LF ones, so
    # the next edit (which goes through package_read) would note a statement change otherwise.
    statement_md = statement_md.replace("\r\n", "\n")
    base = _newest(problem)
    package = replace(problem_to_package(problem=problem, version=base), statement_md=statement_md)
    return version_store(problem=problem, package=package, user=user)


def _newest(problem: Problem) -> ProblemVersion:
    """The version an edit starts from: the newest, draft or not."""
    base = problem.versions.order_by("-number").first()
    if base is None:
        raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
    return base


def version_create(
    *,
    problem: Problem,
    base: ProblemVersion | None = None,
    public_json: str | None = None,
    hidden_json: str | None = None,
    limits: Mapping[str, Any] | None = None,
    user: User | None = None,
    check: Callable[[Package], None] | None = None,
) -> tuple[ProblemVersion, bool]:
    """A new version from `base` (default: the newest) with new tests and/or limits.

    The edit goes through the very validation a package on disk goes through: the package is
    written to a scratch folder with the new files and read back with `package_read`, so a
    malformed edit raises `PackageError` naming the file and field, and nothing is written.
    Returns the version holding those tests and whether it is new (identical graded behaviour
    to the newest version creates nothing). The live version never changes here.
    """
    base = base or _newest(problem)
    package = problem_to_package(problem=problem, version=base)
    if limits:
        package = replace(package, limits=replace(package.limits, **dict(limits)))
    with tempfile.TemporaryDirectory(prefix="onsite-edit-") as scratch:
        folder = package_write(package, scratch)
        for name, text in (("public.json", public_json), ("hidden.json", hidden_json)):
            if text is not None:
                (folder / "tests" / name).write_text(text, encoding="utf-8")
        edited = package_read(folder)
    if check is not None:  # a caller's rule beyond the package format (raises to refuse)
        check(edited)
    try:
        return version_store(problem=problem, package=edited, user=user)
    except IntegrityError as exc:
        # Two saves raced for the same version number; the unique constraint kept one.
        raise ProblemActionError(
            "conflict", "another edit was saved at the same moment; reload and try again"
        ) from exc


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
    already holds it.

    Unlike problem_load, this touches only versions, never what candidates read: the new
    version is a draft until it is validated and made live (version_make_live).
    """
    latest = problem.versions.order_by("-number").first()
    fields = version_fields(package)
    if latest is not None and version_matches(latest, fields):
        return latest, False
    version = ProblemVersion.objects.create(
        problem=problem,
        number=latest.number + 1 if latest else 1,
        validation=ProblemVersion.Validation.DRAFT,
        created_by=user,
        change_note=version_change_note(latest, fields),
        **fields,
    )
    return version, True
