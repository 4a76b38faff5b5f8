"""Who may change a problem in the studio: the one place that rule is written."""

from __future__ import annotations

from typing import Any

from core.roles import is_admin
from problems.models import Problem


def problem_can_edit(*, user: Any, problem: Problem) -> bool:
    """Owners and co-authors edit a problem, admins edit any; every other author reads it."""
    if is_admin(user):
        return True
    if not user.is_authenticated:
        return False
    return problem.owner_id == user.pk or problem.coauthors.filter(pk=user.pk).exists()
