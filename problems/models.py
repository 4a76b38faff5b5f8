"""Problems and their versions.

A `ProblemVersion` is one whole state of a package: what grading uses (tests, driver, checker,
limits) and what the candidate reads (statement, starter, hints, rubric...). Every studio edit
makes a new draft version, so past submissions keep pointing at the tests they were graded
against and an edit reaches nobody until its version is validated and made live.

A `Problem` holds the published snapshot: its content fields are a copy of its live version's
(`CONTENT_FIELDS`, copied by `studio`'s `version_make_live`), and the candidate's pages,
interviews and the API read them from there.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

from core import visibility
from problems import kinds
from problems.jsonsafe import TaggedFloatDecoder, TaggedFloatEncoder
from problems.package import DESIGN, KINDS, MAX_SLUG_CHARS, MAX_TITLE_CHARS

# What a version carries for the candidate and the author besides its graded behaviour; the
# problem holds a copy of its live version's. (The queue stays on the problem alone: it decides
# where every version of it is graded.)
CONTENT_FIELDS = (
    "title",
    "difficulty",
    "kind",
    "topics",
    "hints",
    "follow_ups",
    "clarifications",
    "rubric",
    "wrong_solutions",
    "statement_md",
    "starter_code",
    "reference_code",
    "reference_board",
    "custom_reference",
)


class ProblemQuerySet(models.QuerySet["Problem"]):
    def offered(self) -> ProblemQuerySet:
        """What candidates may see, start and submit to: the one definition of it.

        Published, with a live version whose validation has not failed. A version still pending
        is offered (the bank is loaded published and validated in the background, so a fresh
        `make run` lists it at once); one the validator failed is withdrawn until fixed.
        """
        # (Publishing needs a live version, so a published problem has one; the paths that
        # grade still check it, as a problem published by hand in a test may not.)
        return self.filter(published=True).exclude(
            live_version__validation=ProblemVersion.Validation.FAILED
        )

    def visible_to(self, user: Any) -> ProblemQuerySet:
        """What `user` may see listed, in a filter or a picker (`core.visibility`'s
        DRAFT_PROBLEM row): the offered problems and the user's own drafts; admins all."""
        if visibility.may_see(visibility.DRAFT_PROBLEM, visibility.base_viewer(user)):
            return self
        if not getattr(user, "is_authenticated", False):
            return self.offered()
        own = Q(owner=user) | Q(coauthors=user)
        return self.filter(Q(pk__in=self.offered().values("pk")) | own).distinct()


# What a problem asks for (problems.package defines them, Django-free): code that passes tests
# ("implement"), a fix to given code ("debug"), or a system design drawn on the shared board,
# scored by its rubric alone ("design").
__all__ = ["CONTENT_FIELDS", "DESIGN", "KINDS", "Problem", "ProblemVersion"]


class Problem(models.Model):
    class Queue(models.TextChoices):
        CPU = "cpu"
        GPU = "gpu"

    slug = models.SlugField(max_length=MAX_SLUG_CHARS, unique=True)
    title = models.CharField(max_length=MAX_TITLE_CHARS)
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
    # A design problem's reference board (kind "design"): the Excalidraw elements the
    # interviewer is shown beside the reference text, which is reference_code (Markdown).
    reference_board = models.JSONField(default=list, blank=True)
    published = models.BooleanField(default=False)
    # Archived by its authors (issue 28.7): hidden from candidates like an unpublished problem,
    # its versions, submissions and sessions kept; publishing again clears it.
    archived_at = models.DateTimeField(null=True, blank=True)
    # Who may edit it in the studio besides admins (bank problems have no owner: admins only).
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="owned_problems",
    )
    coauthors = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="coauthored_problems"
    )
    # Custom-input runs may show the reference solution's answer (problem.toml's
    # custom_reference; on by default, as for every practice problem).
    custom_reference = models.BooleanField(default=True)
    live_version = models.ForeignKey(
        "ProblemVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ProblemQuerySet.as_manager()

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.slug

    @property
    def kind_spec(self) -> kinds.Kind:
        """Its kind as problems.kinds declares it: ask it, never compare the name."""
        return kinds.kind_of(self.kind)

    def is_authored_by(self, user: Any) -> bool:
        """Whether `user` is its owner or a co-author (the `own` of core.visibility's
        DRAFT_PROBLEM row: one of the people it is a draft of)."""
        if not getattr(user, "is_authenticated", False):
            return False
        return self.owner_id == user.pk or self.coauthors.filter(pk=user.pk).exists()


class ProblemVersion(models.Model):
    class Validation(models.TextChoices):
        # An edit saved in the studio, not yet sent for validation (the sweeper leaves it be).
        DRAFT = "draft"
        # Waiting for a worker: asked for in the studio, or loaded from a package.
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
    # The content (CONTENT_FIELDS): what the problem shows once this version is live.
    title = models.CharField(max_length=MAX_TITLE_CHARS, blank=True)
    difficulty = models.CharField(max_length=10, default="medium")
    kind = models.CharField(max_length=20, default="implement")
    topics = models.JSONField(default=list, blank=True)
    hints = models.JSONField(default=list, blank=True)
    follow_ups = models.JSONField(default=list, blank=True)
    clarifications = models.JSONField(default=list, blank=True)
    rubric = models.JSONField(default=list, blank=True)
    wrong_solutions = models.JSONField(default=list, blank=True)
    statement_md = models.TextField(blank=True)
    starter_code = models.TextField(blank=True)
    reference_code = models.TextField(blank=True)
    reference_board = models.JSONField(default=list, blank=True)
    custom_reference = models.BooleanField(default=True)
    # Known solutions (the package's known/*.py, [{"file", "code"}]): a Submit that matches
    # one is flagged for those who judge (grading/copies.py). Graded behaviour, not content:
    # the candidate never sees them.
    known_solutions = models.JSONField(default=list, blank=True)
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
    # The history: who saved this version and what it changed from the one before.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    change_note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["problem", "number"]
        constraints = [
            models.UniqueConstraint(fields=["problem", "number"], name="unique_version_number"),
        ]

    def __str__(self) -> str:
        return f"{self.problem.slug} v{self.number}"

    @property
    def kind_spec(self) -> kinds.Kind:
        """Its kind as problems.kinds declares it: ask it, never compare the name."""
        return kinds.kind_of(self.kind)

    def content(self) -> dict[str, Any]:
        """This version's CONTENT_FIELDS, as the problem stores them once it is live."""
        return {name: getattr(self, name) for name in CONTENT_FIELDS}

    def tests_for(self, mode: str) -> list[dict[str, Any]]:
        """Public tests for a run; public then hidden for a submit."""
        public = [dict(t, hidden=False) for t in self.public_tests]
        if mode == "run":
            return public
        return public + [dict(t, hidden=True) for t in self.hidden_tests]
