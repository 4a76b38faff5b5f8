"""Reads for the candidate pages."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from problems.models import Problem


def problem_list_published() -> QuerySet[Problem]:
    """Published problems, by title, with only the columns the list page shows."""
    return (
        Problem.objects.offered()
        .order_by("title")
        .only("slug", "title", "difficulty", "topics", "kind", "queue")
    )


def problem_get_visible(*, slug: str, user: AbstractBaseUser | AnonymousUser) -> Problem:
    """The problem a user may open, or 404.

    Unpublished problems exist only for staff to preview: to anyone else they are a 404, not a
    403, so a draft's slug does not leak.
    """
    problems = Problem.objects.all()
    if not getattr(user, "is_staff", False):
        problems = problems.offered()
    return get_object_or_404(problems, slug=slug)
