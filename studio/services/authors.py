"""Who edits a problem besides its owner: co-authors, added and removed."""

from __future__ import annotations

from django.contrib.auth.models import User

from core.roles import is_author
from problems.models import Problem
from studio.services.errors import ProblemActionError


def problem_coauthor_add(*, problem: Problem, username: str) -> User:
    """Let another author edit `problem` (the owner or an admin asks; the view checks)."""
    user = User.objects.filter(username=username).first()
    if user is None or not is_author(user):
        raise ProblemActionError("unknown_author", f"no author called {username!r}")
    problem.coauthors.add(user)
    return user


def problem_coauthor_remove(*, problem: Problem, user_id: int) -> None:
    problem.coauthors.remove(user_id)
