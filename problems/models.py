"""Problems and their graded versions.

A `Problem` holds what the candidate reads; a `ProblemVersion` holds what grading uses (tests,
driver, checker, limits). Changing tests creates a new version, so past submissions keep
pointing at the tests they were graded against.
"""

from __future__ import annotations

from typing import Any

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
    # Custom-input runs may show the reference solution's answer (problem.toml's
    # custom_reference; on by default, as for every practice problem).
    custom_reference = models.BooleanField(default=True)
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
    # When the running validation was claimed (shown in its report).
    validation_started_at = models.DateTimeField(null=True, blank=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    # The validation job's bookkeeping (grading.jobs: claim, lease, attempts, hand-out time).
    attempts = models.PositiveIntegerField(default=0)
    claim_token = models.UUIDField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
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
