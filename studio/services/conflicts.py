"""No lost work: every studio save names the state it was based on, and a save based on an
older state than the newest is refused with what changed since, or merged when asked.

A save is an *edit*: a function from the package the author's page showed to the package they
want. `edit_apply` checks the base the form carried (`Revision.token`, a hidden field) against
the problem's head. When they differ, the other save (a co-author's, or the same author's in
another tab) is not overwritten: the save raises `EditConflict`, carrying the diff from the
base to the head, and the page keeps the author's values in the form with a "Reapply my change
on top" button. Reapplying posts the same form again with `onto` = the head it was shown; the
edit is then replayed on the base and merged three-way onto the head (`packages_merge`): what
the author changed wins, what only the other save changed is kept, so both changes land.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import fields, replace
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from problems.models import Problem, ProblemVersion
from problems.package import Package
from problems.services import problem_to_package
from studio.services.diffs import FileDiff, packages_diff
from studio.services.errors import ProblemActionError
from studio.services.revisions import Revision, revision_head, revision_state

Edit = Callable[[Package], Package]
T = TypeVar("T")


class EditConflict(ProblemActionError):
    """A save based on an older state than the head: refused, nothing written (409)."""

    def __init__(
        self,
        *,
        base: Revision | None,
        head: ProblemVersion,
        head_revision: Revision,
        changes: list[FileDiff],
    ) -> None:
        who = head.created_by.username if head.created_by else "a package load"
        since = f"you loaded {base.label}" if base else "this page was loaded"
        super().__init__(
            "conflict",
            f"{head_revision.label} was saved by {who} after {since}: your change was not "
            "saved, so it overwrites nothing. Your values are still in the form below.",
        )
        self.base = base
        self.head = head
        self.head_revision = head_revision
        self.changes = changes
        # The diff runs from the base the author saw to the head; when that state was not kept
        # (a form posted without one), from the change they asked for to the head.
        self.base_known = base is not None


# ---------------------------------------------------------------- the three-way merge


def _merged(base: T, mine: T, head: T) -> T:
    """A value both sides may have changed: mine where I changed it, else the head's."""
    return head if mine == base else mine


def _merged_keyed(
    base: Sequence[T], mine: Sequence[T], head: Sequence[T], key: Callable[[T], Hashable]
) -> tuple[T, ...]:
    """A list of named items (tests, wrong solutions...): the head's list, with the items I
    removed taken out, the ones I changed replaced, and the ones I added placed after the item
    they follow in my list (at the end when past the base's length, or that item is gone)."""
    before = {key(item): item for item in base}
    kept = {key(item) for item in mine}
    result = [item for item in head if not (key(item) in before and key(item) not in kept)]

    def where(name: Hashable) -> int | None:
        return next((i for i, other in enumerate(result) if key(other) == name), None)

    for position, item in enumerate(mine):
        name = key(item)
        if before.get(name) == item:
            continue  # untouched by me: the head's (perhaps edited) copy stays
        at = where(name)
        if at is not None:
            result[at] = item
            continue
        previous = where(key(mine[position - 1])) if position else -1
        if previous is None or position >= len(base):
            result.append(item)  # added past the end of what I had: after their additions
        else:
            result.insert(previous + 1, item)
    return tuple(result)


def _merged_record(base: T, mine: T, head: T) -> T:
    """A small record (limits, grading settings): field by field."""
    changes = {
        f.name: getattr(mine, f.name)
        for f in fields(mine)  # type: ignore[arg-type]
        if getattr(mine, f.name) != getattr(base, f.name)
    }
    return replace(head, **changes)  # type: ignore[type-var]


_KEYS: dict[str, Callable[[Any], Hashable]] = {
    "public_tests": lambda t: t.name,
    "hidden_tests": lambda t: t.name,
    "wrong": lambda w: w.file,
    "clarifications": lambda c: c.question,
    "rubric": lambda r: r.criterion,
}


def packages_merge(base: Package, mine: Package, head: Package) -> Package:
    """`mine` (an edit of `base`) replayed onto `head`: every part I changed from `base` wins,
    every part only `head` changed is kept. Tests, wrong solutions, clarifications and rubric
    criteria merge item by item (by name), limits and grading settings field by field."""
    merged: dict[str, Any] = {}
    for f in fields(Package):
        b, m, h = getattr(base, f.name), getattr(mine, f.name), getattr(head, f.name)
        if f.name in _KEYS:
            merged[f.name] = _merged_keyed(b, m, h, _KEYS[f.name])
        elif f.name in ("limits", "grading"):
            merged[f.name] = _merged_record(b, m, h)
        else:
            merged[f.name] = _merged(b, m, h)
    return Package(**merged)


# ---------------------------------------------------------------- applying an edit


def edit_apply(
    *,
    problem: Problem,
    user: User | None,
    edit: Edit,
    based_on: str | None,
    onto: str | None = None,
    store: Callable[[Package], tuple[ProblemVersion, bool]],
) -> tuple[ProblemVersion, bool]:
    """Apply `edit` to the state `based_on` names and store the result with `store`.

    `based_on` None (a service caller, the REST tokens' API): the head, unchecked. A base older
    than the head raises `EditConflict`, unless `onto` names the current head: then the edit is
    merged onto it (the author saw that head's changes and chose to reapply theirs).
    """
    with transaction.atomic():
        found = revision_head(problem)
        if found is None:
            raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
        head, head_revision = found
        head_package = problem_to_package(problem=problem, version=head)
        base = head_revision if based_on is None else Revision.parse(based_on)
        if base == head_revision:
            package = edit(head_package)
        else:
            state = revision_state(problem, base) if base is not None else None
            base_package = (
                problem_to_package(problem=problem, version=state) if state is not None else None
            )
            mine = edit(base_package if base_package is not None else head_package)
            if Revision.parse(onto) != head_revision:
                changes = (
                    packages_diff(base_package, head_package)
                    if base_package is not None
                    else packages_diff(mine, head_package)
                )
                raise EditConflict(
                    base=base if base_package is not None else None,
                    head=head,
                    head_revision=head_revision,
                    changes=changes,
                )
            package = (
                packages_merge(base_package, mine, head_package)
                if base_package is not None
                else mine
            )
        try:
            return store(package)
        except IntegrityError as exc:
            # Two saves raced for the same version number; the unique constraint kept one.
            raise ProblemActionError(
                "conflict", "another edit was saved at the same moment; reload and try again"
            ) from exc
