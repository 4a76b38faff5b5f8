"""No lost work: every studio save names the state it was based on, and a save based on an
older state than the newest is merged with what was saved since, or shows where both changed.

A save is an *edit*: a function from the package the author's page showed to the package they
want. `edit_apply` checks the base the form carried (`Revision.token`, a hidden field) against
the problem's head. When they differ, the other save (a co-author's, or the same author's in
another tab) is not overwritten: the edit is replayed on the base and merged three-way with
the head (studio.services.merges: text line by line, tables row by row, records field by
field). A clean merge is stored (the page says whose changes it merged with). Where both
changed the same place, the save raises `EditConflict` with those hunks, both sides each, and
the diff from the base to the head; the page keeps the author's values in the form and asks
for a choice per hunk. Posting the form again with `onto` = the head it was shown applies the
choices ("Reapply my change on top": mine for each), every other change of both kept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from problems.models import Problem, ProblemVersion
from problems.package import Package
from problems.services import problem_to_package
from studio.services.diffs import FileDiff, packages_diff
from studio.services.errors import ProblemActionError
from studio.services.merges import MINE, Choice, Hunk, packages_merge, packages_merge3
from studio.services.revisions import Revision, revision_head, revision_state

Edit = Callable[[Package], Package]


class EditConflict(ProblemActionError):
    """A save based on an older state than the head: refused, nothing written (409)."""

    def __init__(
        self,
        *,
        base: Revision | None,
        head: ProblemVersion,
        head_revision: Revision,
        changes: list[FileDiff],
        hunks: tuple[Hunk, ...] = (),
    ) -> None:
        who = head.created_by.username if head.created_by else "a package load"
        since = f"you loaded {base.label}" if base else "this page was loaded"
        overlap = (
            f" You and {who} changed the same place{'s' if len(hunks) > 1 else ''} "
            f"({len(hunks)}): choose for each below."
            if hunks else ""
        )
        super().__init__(
            "conflict",
            f"{head_revision.label} was saved by {who} after {since}: your change was not "
            f"saved, so it overwrites nothing.{overlap} Your values are still in the form "
            "below.",
        )
        self.who = who
        # The places both changed differently, each with both sides (studio.services.merges).
        self.hunks = hunks
        self.base = base
        self.head = head
        self.head_revision = head_revision
        self.changes = changes
        # The diff runs from the base the author saw to the head; when that state was not kept
        # (a form posted without one), from the change they asked for to the head.
        self.base_known = base is not None


# ---------------------------------------------------------------- applying an edit


def edit_apply(
    *,
    problem: Problem,
    user: User | None,
    edit: Edit,
    based_on: str | None,
    onto: str | None = None,
    choices: Mapping[str, Choice] | None = None,
    store: Callable[[Package], tuple[ProblemVersion, bool]],
) -> tuple[ProblemVersion, bool]:
    """Apply `edit` to the state `based_on` names and store the result with `store`.

    `based_on` None (a service caller, the REST tokens' API): the head, unchecked. A base older
    than the head is merged three-way onto it (studio.services.merges): when no place was
    changed by both, the merge is stored; when some was, `EditConflict` carries those places
    (hunks) with both sides, and nothing is stored, unless `onto` names the current head (the
    author saw them): then each hunk takes its choice from `choices`, mine where none.
    A base whose state was not kept cannot be merged: refused unless reapplied `onto` the head.
    """
    with transaction.atomic():
        found = revision_head(problem)
        if found is None:
            raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
        head, head_revision = found
        head_package = problem_to_package(problem=problem, version=head)
        base = head_revision if based_on is None else Revision.parse(based_on)
        reapplying = Revision.parse(onto) == head_revision
        if base == head_revision:
            package = edit(head_package)
        else:
            state = revision_state(problem, base) if base is not None else None
            base_package = (
                problem_to_package(problem=problem, version=state) if state is not None else None
            )
            if base_package is None:
                mine = edit(head_package)
                if not reapplying:
                    raise EditConflict(base=None, head=head, head_revision=head_revision,
                                       changes=packages_diff(mine, head_package))
                package = mine
            else:
                mine = edit(base_package)
                merged = packages_merge3(
                    base_package, mine, head_package,
                    choices=choices if reapplying else None,
                    default=MINE if reapplying else None,
                )
                if merged.unresolved:
                    raise EditConflict(
                        base=base, head=head, head_revision=head_revision,
                        changes=packages_diff(base_package, head_package), hunks=merged.hunks,
                    )
                package = merged.package
        try:
            return store(package)
        except IntegrityError as exc:
            # Two saves raced for the same version number; the unique constraint kept one.
            raise ProblemActionError(
                "conflict", "another edit was saved at the same moment; reload and try again"
            ) from exc


__all__ = ["Choice", "EditConflict", "Hunk", "edit_apply", "packages_merge"]
