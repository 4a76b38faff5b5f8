"""Fixtures the studio's tests share: an author and an unpublished problem they own."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from problems.models import Problem
from tests.factories import tiny_problem, user_with_role


@pytest.fixture
def writer() -> User:
    return user_with_role("writer", "author")


@pytest.fixture
def problem(writer: User) -> Problem:
    problem = tiny_problem(published=False)
    problem.owner = writer
    problem.save()
    return problem
