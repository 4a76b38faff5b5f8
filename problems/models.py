"""Problems and their graded versions.

A `Problem` holds what the candidate reads; a `ProblemVersion` holds what grading uses (tests,
driver, checker, limits). Changing tests creates a new version, so past submissions keep
pointing at the tests they were graded against.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from problems.jsonsafe import TaggedFloatDecoder, TaggedFloatEncoder


class Problem(models.Model):
    class Queue(models.TextChoices):
        CPU = "cpu"
        GPU = "gpu"

    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    difficulty = models.CharField(max_length=10, default="medium")
    queue = models.CharField(max_length=3, choices=Queue.choices, default=Queue.CPU)
    kind = models.CharField(max_length=20, default="implement")
    topics = models.JSONField(default=list, blank=True)
    hints = models.JSONField(default=list, blank=True)
    follow_ups = models.JSONField(default=list, blank=True)
    clarifications = models.JSONField(default=list, blank=True)
    rubric = models.JSONField(default=list, blank=True)
    wrong_solutions = models.JSONField(default=list, blank=True)
    statement_md = models.TextField()
    starter_code = models.TextField(blank=True)
    reference_code = models.TextField()
    published = models.BooleanField(default=False)
    live_version = models.ForeignKey(
        "ProblemVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.slug


class ProblemVersion(models.Model):
    class Validation(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        PASSED = "passed"
        FAILED = "failed"

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    tests_hash = models.CharField(max_length=32)
    driver = models.JSONField()  # {"kind": ..., "entry": ...}
    driver_code = models.TextField(blank=True)
    checker_code = models.TextField(blank=True)
    support_code = models.TextField(blank=True)
    compare = models.JSONField()  # {"mode": ..., "float_rel": ..., "float_abs": ...}
    limits = models.JSONField()
    public_tests = models.JSONField(
        default=list, encoder=TaggedFloatEncoder, decoder=TaggedFloatDecoder
    )
    hidden_tests = models.JSONField(
        default=list, encoder=TaggedFloatEncoder, decoder=TaggedFloatDecoder
    )
    validation = models.CharField(
        max_length=10, choices=Validation.choices, default=Validation.PENDING
    )
    validation_report = models.JSONField(default=dict, blank=True)
    # When the running validation was claimed: a claim older than the validation's own time
    # budget belongs to a worker that died, and may be taken over.
    validation_started_at = models.DateTimeField(null=True, blank=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["problem", "number"]
        constraints = [
            models.UniqueConstraint(fields=["problem", "number"], name="unique_version_number"),
        ]

    def __str__(self) -> str:
        return f"{self.problem.slug} v{self.number}"

    def tests_for(self, mode: str) -> list[dict[str, Any]]:
        """Public tests for a run; public then hidden for a submit."""
        public = [dict(t, hidden=False) for t in self.public_tests]
        if mode == "run":
            return public
        return public + [dict(t, hidden=True) for t in self.hidden_tests]


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

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"regrade #{self.pk} of {self.version} ({self.status})"


class RegradeItem(models.Model):
    """One submission in a regrade preview: what it got then, what it would get now."""

    regrade = models.ForeignKey(Regrade, on_delete=models.CASCADE, related_name="items")
    submission = models.ForeignKey(
        "grading.Submission", on_delete=models.CASCADE, related_name="+"
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
        ordering = ["regrade", "submission"]
        constraints = [
            models.UniqueConstraint(
                fields=["regrade", "submission"], name="unique_regrade_submission"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.submission_id}: {self.old_verdict} -> {self.new_verdict}"
