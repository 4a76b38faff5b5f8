"""Fixtures the studio's tests share: an author, signed in or not, and an unpublished problem
they own; two authors (alice, then bob) for the tests of concurrent saves."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from problems.models import Problem
from tests.factories import client_for, tiny_problem, user_with_role


@pytest.fixture
def writer() -> User:
    return user_with_role("writer", "author")


@pytest.fixture
def alice() -> User:
    return user_with_role("alice", "author")


@pytest.fixture
def bob(alice: User) -> User:
    return user_with_role("bob", "author")


@pytest.fixture
def author(writer: User) -> Client:
    """A client signed in as the writer."""
    return client_for(writer)


@pytest.fixture
def problem(writer: User) -> Problem:
    problem = tiny_problem(published=False)
    problem.owner = writer
    problem.save()
    return problem
