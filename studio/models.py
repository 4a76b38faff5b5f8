"""Regrade previews: past submissions graded again against a new version before it goes live.

These tables were created by `problems` and keep their names (`problems_regrade`,
`problems_regradeitem`) so an existing database keeps every row; see migrations/0001.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from grading.models import Submission
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
