"""What every studio save posts besides its values: the state its page showed (`base`) and,
when the author resolves a conflicting save, the head they resolve it onto (`onto`) with a
choice per place both changed (`resolve:<hunk>`, `resolve-text:<hunk>`); how a conflict is
shown (studio.services.conflicts), and how a merged save is told."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

from django.contrib import messages
from django.http import HttpRequest

from problems.models import Problem
from studio.services.conflicts import EditConflict
from studio.services.merges import CHOICES, Choice
from studio.services.revisions import Revision, revision_head

# A refused save's answer: the request was fine, the state it was based on is not current.
CONFLICT_STATUS = 409


class Based(TypedDict):
    based_on: str | None
    onto: str | None
    choices: Mapping[str, Choice]


def based(request: HttpRequest) -> Based:
    """The `based_on`, `onto` and per-hunk `choices` a save passes to its service. A form
    without a base (a client of its own) is not checked; the studio's pages always send one."""
    base = request.POST.get("base")
    onto = request.POST.get("onto")
    choices = {
        key.removeprefix("resolve:"): Choice(
            pick, request.POST.get("resolve-text:" + key.removeprefix("resolve:"), "")
        )
        for key, pick in request.POST.items()
        if key.startswith("resolve:") and pick in CHOICES
    }
    return Based(based_on=base, onto=onto or None, choices=choices)


def merging_with(request: HttpRequest, problem: Problem) -> str:
    """Before a save: when the form's base is not the head, what a merged save is told
    ("" when the form is current, or posted no base)."""
    posted = request.POST.get("base")
    found = revision_head(problem)
    if posted is None or found is None or Revision.parse(posted) == found[1]:
        return ""
    head, revision = found
    who = head.created_by.username if head.created_by else "a package load"
    if request.user.is_authenticated and head.created_by_id == request.user.pk:
        return f"Merged with what you saved in another tab ({revision.label}): both are kept."
    return f"Merged with {who}'s changes ({revision.label}): both are kept."


def merged_tell(request: HttpRequest, note: str) -> None:
    """After a save that merged: say so beside the saved message."""
    if note:
        messages.info(request, note)


@dataclass(frozen=True)
class ConflictShown:
    """A refused save, as the problem page shows it beside the form it came from."""

    form: str  # the form's id: statement, tests, test-form, parts, wrong, test-table, limits
    error: EditConflict
    base: str  # the base the refused form posted: kept, so a reapply merges from it
    # For a row's button (delete, duplicate), which has no form to keep: where to reapply.
    action: str = ""

    @classmethod
    def of(cls, request: HttpRequest, form: str, error: EditConflict) -> ConflictShown:
        return cls(form=form, error=error, base=request.POST.get("base", ""),
                   action=request.path if form in ROW_FORMS else "")


# Buttons with no values of their own to keep: their conflict has its own form to resolve in.
ROW_FORMS = ("test-table", "wrong-table", "known-table", "rebuild")
