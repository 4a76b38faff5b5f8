"""Submissions and their per-test results."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from core import verdicts
from grading.lanes import Lane
from problems.models import Problem, ProblemVersion


class Submission(models.Model):
    class Mode(models.TextChoices):
        RUN = "run"
        SUBMIT = "submit"
        CUSTOM = "custom"  # the candidate's own input (grading/scratch.py)
        SCRIPT = "script"  # the whole file run as a script, for print-debugging

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        RETRYING = "retrying"  # the grader is unavailable; the candidate is never charged
        DONE = "done"
        FAILED = "failed"  # gave up after the retry budget: shown as a platform fault (IE)

    # The vocabulary of core.verdicts (the functional API, so the list is written once).
    Verdict = models.TextChoices("Verdict", verdicts.CHOICES)  # type: ignore[call-overload]

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions"
    )
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="submissions")
    version = models.ForeignKey(
        ProblemVersion, on_delete=models.PROTECT, related_name="submissions"
    )
    mode = models.CharField(max_length=6, choices=Mode.choices)
    # An author's try-out of one version (a draft, perhaps) from the studio's candidate view:
    # graded against that version, never counted in the problem's stats or regraded.
    trial = models.BooleanField(default=False)
    code = models.TextField()
    # A custom run's input (JSON, in the problem's test form); null for every other mode.
    custom_input = models.JSONField(null=True, blank=True)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    message = models.CharField(max_length=200, blank=True)
    verdict = models.CharField(max_length=3, choices=Verdict.choices, blank=True)
    passed = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    score = models.FloatField(default=0.0)
    by_tag = models.JSONField(default=dict, blank=True)
    by_group = models.JSONField(default=dict, blank=True)
    worst_by_tag = models.JSONField(default=dict, blank=True)  # {"performance": "TLE"}
    worst_by_group = models.JSONField(default=dict, blank=True)  # {"edge cases": "WA"}
    # Results by rule (grading.judge.rules_line): {"step results": [broken in, judged in]}, and
    # the rule each group's count is about ({"correctness": "tokens"}); empty for problems
    # whose checker reports no rules.
    by_rule = models.JSONField(default=dict, blank=True)
    group_rules = models.JSONField(default=dict, blank=True)
    # How urgent its grading is (grading/lanes.py): which queue it waits in.
    lane = models.CharField(
        max_length=12, choices=[(lane.value, lane.value) for lane in Lane], default=Lane.INTERACTIVE
    )
    attempts = models.PositiveIntegerField(default=0)
    # Who holds the grading right now: a claim token plus a lease, so a redelivered task can
    # take over from a worker that died, and a slow worker cannot overwrite the new result.
    claim_token = models.UUIDField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    # The client's Idempotency-Key header (IETF draft "The Idempotency-Key HTTP Header
    # Field"), unique per user, and a hash of the request it came with: the same key again
    # with the same request is this submission, with another request a refusal.
    idempotency_key = models.CharField(max_length=255, blank=True, default="")
    request_hash = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="unique_idempotency_key_per_user",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.problem.slug} {self.mode} {self.status} {self.verdict}"

    @staticmethod
    def new_token() -> uuid.UUID:
        return uuid.uuid4()


class TestResult(models.Model):
    __test__ = False  # not a pytest class

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="results")
    index = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    hidden = models.BooleanField(default=False)
    tag = models.CharField(max_length=20, default="correctness")
    group = models.CharField(max_length=60, blank=True)
    # Blank (core.verdicts.NOT_RUN) for a test not run after a time limit in its group.
    verdict = models.CharField(max_length=3, choices=Submission.Verdict.choices, blank=True)
    time_ms = models.FloatField(default=0.0)  # wall time
    cpu_ms = models.FloatField(default=0.0)  # CPU time of all its processes: what TLE is on
    detail = models.JSONField(default=dict, blank=True)  # input/expected/output/stdout/error

    class Meta:
        ordering = ["submission", "index"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "index"], name="unique_result_index"),
        ]

    def __str__(self) -> str:
        return f"{self.submission_id}[{self.index}] {self.verdict}"


class CodePrint(models.Model):
    """A submission's fingerprints for copied-code detection (grading/copies.py), a background
    job: computed after a Submit or a session's final submission, then compared with the
    stored fingerprints of the same problem through `CodePrintHash`, never pair by pair."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        RETRYING = "retrying"
        DONE = "done"
        FAILED = "failed"

    submission = models.OneToOneField(
        Submission, on_delete=models.CASCADE, related_name="codeprint"
    )
    # The index is per problem (a submission's own problem, whatever its version).
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    # Sorted distinct fingerprints (signed 64-bit, big-endian, 8 bytes each), the starter's
    # and the reference's taken out: what a later submission is scored against.
    hashes = models.BinaryField(default=b"", blank=True)
    # The closest other submission (another person's, or a known solution) and the share of
    # this one's fingerprints found in it; a flag only for those who judge, never a verdict.
    match = models.ForeignKey(
        Submission, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    match_known = models.CharField(max_length=200, blank=True, default="")
    match_score = models.FloatField(default=0.0)
    attempts = models.PositiveIntegerField(default=0)
    claim_token = models.UUIDField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"codeprint of #{self.submission_id} {self.status} {self.match_score:.2f}"


class CodePrintHash(models.Model):
    """The inverted index: one row per (problem, fingerprint, submission that has it)."""

    # No index of its own: the lookup index below starts with it.
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="+", db_index=False)
    value = models.BigIntegerField()
    codeprint = models.ForeignKey(CodePrint, on_delete=models.CASCADE, related_name="index_rows")

    class Meta:
        # Covering: a lookup reads the posting list from the index alone.
        indexes = [
            models.Index(fields=["problem", "value", "codeprint"], name="codeprint_hash_lookup")
        ]

    def __str__(self) -> str:
        return f"{self.problem_id}:{self.value} -> {self.codeprint_id}"
