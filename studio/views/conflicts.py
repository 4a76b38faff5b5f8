"""What every studio save posts besides its values: the state its page showed (`base`) and,
when the author reapplies a refused change, the head they reapply it onto (`onto`); and how a
refused save is shown (studio.services.conflicts)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from django.http import HttpRequest

from studio.services.conflicts import EditConflict

# A refused save's answer: the request was fine, the state it was based on is not current.
CONFLICT_STATUS = 409


class Based(TypedDict):
    based_on: str | None
    onto: str | None


def based(request: HttpRequest) -> Based:
    """The `based_on` and `onto` a save passes to its service. A form without a base (a
    client of its own) is not checked; the studio's pages always send one."""
    base = request.POST.get("base")
    onto = request.POST.get("onto")
    return Based(based_on=base, onto=onto or None)


@dataclass(frozen=True)
class ConflictShown:
    """A refused save, as the problem page shows it beside the form it came from."""

    form: str  # the form's id: statement, tests, test-form, parts, wrong, test-table
    error: EditConflict
    base: str  # the base the refused form posted: kept, so a reapply merges from it
    # For a row's button (delete, duplicate), which has no form to keep: where to reapply.
    action: str = ""

    @classmethod
    def of(cls, request: HttpRequest, form: str, error: EditConflict) -> ConflictShown:
        return cls(form=form, error=error, base=request.POST.get("base", ""),
                   action=request.path if form in ("test-table", "wrong-table") else "")
