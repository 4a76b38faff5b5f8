"""Regrade previews: past submissions graded again against a new version before it goes live.

These tables were created by `problems` and keep their names (`problems_regrade`,
`problems_regradeitem`) so an existing database keeps every row; see migrations/0001.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from grading.models import Submission
from problems.jsonsafe import TaggedFloatDecoder, TaggedFloatEncoder
from problems.models import ProblemVersion


class Regrade(models.Model):
    """A preview: past submit-mode submissions of a problem graded again against `version`.

    Nothing about the submissions changes; each item records old verdict -> new verdict so the
    author can see what making `version` live would do before doing it.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    version = models.ForeignKey(ProblemVersion, on_delete=models.CASCADE, related_name="regrades")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    message = models.CharField(max_length=300, blank=True)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The job's bookkeeping (grading.jobs: claim, lease, attempts, hand-out time).
    attempts = models.PositiveIntegerField(default=0)
    claim_token = models.UUIDField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "problems_regrade"
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"regrade #{self.pk} of {self.version} ({self.status})"


class RegradeItem(models.Model):
    """One submission in a regrade preview: what it got then, what it would get now."""

    regrade = models.ForeignKey(Regrade, on_delete=models.CASCADE, related_name="items")
    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="+"
    )
    old_version_number = models.PositiveIntegerField()
    old_verdict = models.CharField(max_length=3, blank=True)
    old_passed = models.PositiveIntegerField(default=0)
    old_total = models.PositiveIntegerField(default=0)
    new_verdict = models.CharField(max_length=3)
    new_passed = models.PositiveIntegerField(default=0)
    new_total = models.PositiveIntegerField(default=0)
    changed = models.BooleanField(default=False)
    message = models.CharField(max_length=300, blank=True)

    class Meta:
        db_table = "problems_regradeitem"
        ordering = ["regrade", "submission"]
        constraints = [
            models.UniqueConstraint(
                fields=["regrade", "submission"], name="unique_regrade_submission"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.submission_id}: {self.old_verdict} -> {self.new_verdict}"


class VersionRevision(models.Model):
    """An earlier state of a draft version, kept when a later save rewrote the version in place.

    Consecutive saves by one author within `ONSITE_STUDIO_COLLAPSE_SECONDS` collapse into one
    draft version (studio.services.revisions), so the history stays readable. A tab still open
    on the older state may save later: its save names this state as its base, and the conflict
    check (studio.services.conflicts) needs the state to show what changed since and to merge.
    The version's current revision number is how many of these it has.
    """

    version = models.ForeignKey(
        ProblemVersion, on_delete=models.CASCADE, related_name="revisions"
    )
    revision = models.PositiveIntegerField()  # 0: the version as first saved
    # version_fields of that state (tests with NaN and ±inf, as the version stores them).
    fields = models.JSONField(encoder=TaggedFloatEncoder, decoder=TaggedFloatDecoder)
    saved_at = models.DateTimeField()  # when that state was saved
    superseded_at = models.DateTimeField(auto_now_add=True)  # when the next save replaced it

    class Meta:
        ordering = ["version", "revision"]
        constraints = [
            models.UniqueConstraint(
                fields=["version", "revision"], name="unique_version_revision"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.version} r{self.revision}"


class LimitConfirmation(models.Model):
    """An author's explicit yes to publishing a version whose time limit is below the one its
    validation suggested (issue 28.7): who, when, which limit, against which suggestion."""

    version = models.ForeignKey(
        ProblemVersion, on_delete=models.CASCADE, related_name="limit_confirmations"
    )
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    limit_seconds = models.FloatField()
    suggested_seconds = models.FloatField()
    confirmed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-confirmed_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.version}: {self.limit_seconds:g} s < {self.suggested_seconds:g} s"
