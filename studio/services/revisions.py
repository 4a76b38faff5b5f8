"""Revisions of a draft version: consecutive saves by one author collapse into one version.

Every studio save used to be a version (36 in half an hour, all listed). Now a save by the
author of the newest version, within `ONSITE_STUDIO_COLLAPSE_SECONDS` of that version's last
save, rewrites it in place, as long as nothing points at it yet: it is still a draft (never
sent for validation, never live), and no submission or regrade was made against it. The
state it replaces is kept as a `VersionRevision`, so a tab still open on it can save later and
be told exactly what changed since (studio.services.conflicts). A save by another author
always starts a new version.

`(number, revision)` names one saved state: the version's number and how many times it was
rewritten; every studio form carries it as its base (`token`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from problems.models import Problem, ProblemVersion
from studio.models import VersionRevision

# The fields a rewrite replaces: everything version_fields gives (graded behaviour, content).
_STATE_EXCLUDED = frozenset({
    "id", "problem", "number", "validation", "validation_report", "validation_started_at",
    "validated_at", "attempts", "claim_token", "lease_until", "enqueued_at", "created_by",
    "change_note", "created_at",
})


@dataclass(frozen=True)
class Revision:
    """One saved state of a problem: version `number`, rewritten `revision` times."""

    number: int
    revision: int

    @property
    def token(self) -> str:
        return f"{self.number}.{self.revision}"

    @property
    def label(self) -> str:
        if self.revision == 0:
            return f"v{self.number}"
        return f"v{self.number} (save {self.revision + 1})"

    @classmethod
    def parse(cls, text: str | None) -> Revision | None:
        """`"5.2"` → Revision(5, 2); None for anything else (a form posted by hand)."""
        number, dot, revision = str(text or "").strip().partition(".")
        if not (number.isdigit() and dot and revision.isdigit()) or len(text or "") > 24:
            return None
        return cls(int(number), int(revision))


def version_revision(version: ProblemVersion) -> Revision:
    return Revision(version.number, version.revisions.count())


def revision_head(problem: Problem) -> tuple[ProblemVersion, Revision] | None:
    """The newest version and the state it is in: what a save must be based on."""
    head = problem.versions.order_by("-number").first()
    if head is None:
        return None
    return head, version_revision(head)


def revision_fields(version: ProblemVersion) -> dict[str, Any]:
    """The version's state as version_fields gives it (what a rewrite replaces)."""
    return {
        f.name: getattr(version, f.name)
        for f in ProblemVersion._meta.concrete_fields
        if f.name not in _STATE_EXCLUDED
    }


def revision_state(problem: Problem, revision: Revision) -> ProblemVersion | None:
    """The version as it was in `revision` (an unsaved copy for an earlier state), or None
    when no such state was kept."""
    version = problem.versions.filter(number=revision.number).first()
    if version is None:
        return None
    current = version.revisions.count()
    if revision.revision == current:
        return version
    kept = version.revisions.filter(revision=revision.revision).first()
    if kept is None:
        return None
    return ProblemVersion(
        problem=problem, number=version.number, created_by=version.created_by, **kept.fields
    )


def _last_saved_at(version: ProblemVersion) -> datetime:
    last = version.revisions.order_by("-revision").values_list("superseded_at", flat=True).first()
    return last or version.created_at


def version_collapsible(*, problem: Problem, version: ProblemVersion, user: User | None) -> bool:
    """Whether a save by `user` may rewrite `version` instead of adding one after it."""
    window = settings.ONSITE_STUDIO_COLLAPSE_SECONDS
    if window <= 0 or user is None or version.created_by_id != user.pk or version.number == 1:
        return False
    if version.validation != ProblemVersion.Validation.DRAFT:
        return False  # sent for validation, validated or loaded: a state someone relies on
    if problem.live_version_id == version.pk:
        return False  # a published version is never rewritten
    if version.submissions.exists() or version.regrades.exists():
        return False  # graded against it: it must stay what they were graded on
    return timezone.now() - _last_saved_at(version) <= timedelta(seconds=window)


def version_rewrite(*, version: ProblemVersion, fields: dict[str, Any], note: str) -> None:
    """Keep the version's current state as a revision, then write `fields` over it."""
    VersionRevision.objects.create(
        version=version,
        revision=version.revisions.count(),
        fields=revision_fields(version),
        saved_at=_last_saved_at(version),
    )
    for name, value in fields.items():
        setattr(version, name, value)
    version.change_note = note
    version.save()
