"""Reads for the candidate pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from grading.models import Submission
from grading.selectors import submissions_of
from problems.models import Problem

DIFFICULTIES = ("easy", "medium", "hard")
STATUSES = ("solved", "attempted", "new")


@dataclass(frozen=True)
class ProblemFilters:
    """What the problem list was asked for; blank values filter nothing."""

    query: str = ""
    topic: str = ""
    difficulty: str = ""
    queue: str = ""
    status: str = ""

    @classmethod
    def from_params(cls, params: Any) -> ProblemFilters:
        def pick(name: str, allowed: tuple[str, ...] | None = None) -> str:
            value = str(params.get(name, "")).strip()[:100]
            return value if allowed is None or value in allowed else ""

        return cls(
            query=pick("q"),
            topic=pick("topic"),
            difficulty=pick("difficulty", DIFFICULTIES),
            queue=pick("queue", tuple(Problem.Queue.values)),
            status=pick("status", STATUSES),
        )

    @property
    def active(self) -> bool:
        return any((self.query, self.topic, self.difficulty, self.queue, self.status))


def problem_list_published() -> QuerySet[Problem]:
    """Published problems, by title, with only the columns the list page shows."""
    return (
        Problem.objects.offered()
        .order_by("title")
        .only("slug", "title", "difficulty", "topics", "kind", "queue")
    )


def problem_topics_published() -> list[str]:
    """Every topic of a published problem, sorted case-insensitively, each once."""
    topics = {t for row in problem_list_published().values_list("topics", flat=True) for t in row}
    return sorted(topics, key=str.casefold)


def problem_status_by_slug(*, user: AbstractBaseUser | AnonymousUser) -> dict[str, str]:
    """ "solved" (an accepted Submit) or "attempted" (any Run or Submit) per problem slug."""
    if not user.is_authenticated:
        return {}
    rows = (
        submissions_of(user)
        # An author's try-out of a version (a draft, perhaps) is not a go at the problem.
        .filter(mode__in=(Submission.Mode.RUN, Submission.Mode.SUBMIT), trial=False)
        .values_list("problem__slug", "mode", "verdict")
    )
    status: dict[str, str] = {}
    for slug, mode, verdict in rows:
        if mode == Submission.Mode.SUBMIT and verdict == "AC":
            status[slug] = "solved"
        else:
            status.setdefault(slug, "attempted")
    return status


def problem_list_filtered(
    *, filters: ProblemFilters, status_by_slug: dict[str, str]
) -> list[Problem]:
    """The published problems that match `filters` (search over title, slug and topics)."""
    problems = problem_list_published()
    if filters.difficulty:
        problems = problems.filter(difficulty=filters.difficulty)
    if filters.queue:
        problems = problems.filter(queue=filters.queue)
    # The bank is small (tens of problems): search and topics are matched here, the same way
    # on every database (topics are a JSON list).
    found = list(problems)
    if filters.query:
        found = [p for p in found if _query_match(p, filters.query)]
    if filters.topic:
        found = [p for p in found if filters.topic in p.topics]
    if filters.status:
        found = [p for p in found if status_by_slug.get(p.slug, "new") == filters.status]
    return found


def _query_match(problem: Problem, query: str) -> bool:
    needle = query.casefold()
    haystack = [problem.title, problem.slug.replace("-", " "), *map(str, problem.topics)]
    return any(needle in text.casefold() for text in haystack)


def problem_get_visible(*, slug: str, user: AbstractBaseUser | AnonymousUser) -> Problem:
    """The problem a user may open, or 404.

    Unpublished problems exist only for staff to preview: to anyone else they are a 404, not a
    403, so a draft's slug does not leak.
    """
    problems = Problem.objects.all()
    if not getattr(user, "is_staff", False):
        problems = problems.offered()
    return get_object_or_404(problems, slug=slug)


def practice_history_list(
    *, user: AbstractBaseUser | AnonymousUser, problem_slug: str = ""
) -> QuerySet[Submission]:
    """The user's own Run and Submit submissions, newest first (scratch runs are left out)."""
    history = submissions_of(user, problem_slug=problem_slug).filter(
        mode__in=(Submission.Mode.RUN, Submission.Mode.SUBMIT)
    )
    return history
