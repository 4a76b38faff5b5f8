"""Ownership: owners and co-authors edit a problem, other authors read it, admins do anything;
each version records who saved it and what it changed, and the studio shows that history."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User

from problems.models import Problem, ProblemVersion
from studio.services.versions import version_change_note
from tests.factories import client_for, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db

EDITS = [
    ("/studio/add-one/statement/", {"statement_md": "changed"}),
    ("/studio/add-one/v1/validate/", {}),
    ("/studio/add-one/v1/live/", {}),
    ("/studio/add-one/v1/regrade/", {}),
    ("/studio/add-one/publish/", {}),
    ("/studio/add-one/unpublish/", {}),
    ("/studio/add-one/archive/", {}),
    ("/studio/add-one/delete/", {"confirm_slug": "add-one"}),
    ("/studio/add-one/coauthors/", {"username": "other"}),
]


@pytest.fixture
def owner() -> User:
    return user_with_role("owner", "author")


@pytest.fixture
def problem(owner: User) -> Problem:
    problem = tiny_problem(published=False)
    problem.owner = owner
    problem.save()
    return problem


def edit_form(problem: Problem, *, extra: int) -> dict[str, str]:
    version = problem.versions.get(number=1)
    hidden = version.hidden_tests + [
        {"name": f"more {i}", "input": {"args": [i]}, "expected": i + 1, "tag": "correctness"}
        for i in range(extra)
    ]
    return {
        "public_tests": json.dumps(version.public_tests),
        "hidden_tests": json.dumps(hidden),
        "test_wall_seconds": "2.0",
        "test_cpu_seconds": "2.0",
        "memory_mb": "256",
    }


@pytest.mark.parametrize(("path", "data"), EDITS)
def test_another_author_reads_but_cannot_edit(problem: Problem, path: str, data: dict) -> None:
    other = client_for(user_with_role("other", "author"))
    page = other.get("/studio/add-one/").content.decode()
    assert 'id="read-only"' in page and 'action="/studio/add-one/statement/"' not in page
    assert other.post(path, data).status_code == 403
    problem.refresh_from_db()
    assert problem.statement_md == "Return x + 1." and not problem.coauthors.exists()
    assert problem.versions.get(number=1).validation == "pending"
    assert problem.versions.count() == 1


def test_a_coauthor_edits_once_the_owner_adds_them(problem: Problem, owner: User) -> None:
    coauthor = user_with_role("other", "author")
    as_coauthor = client_for(coauthor)
    refused = as_coauthor.post("/studio/add-one/tests/", edit_form(problem, extra=1))
    assert refused.status_code == 403
    client_for(owner).post("/studio/add-one/coauthors/", {"username": "other"})
    assert list(problem.coauthors.all()) == [coauthor]
    response = as_coauthor.post("/studio/add-one/tests/", edit_form(problem, extra=1))
    assert response.status_code == 302
    assert problem.versions.get(number=2).created_by == coauthor


def test_only_authors_can_be_coauthors(problem: Problem, owner: User) -> None:
    user_with_role("cand", "candidate")
    response = client_for(owner).post(
        "/studio/add-one/coauthors/", {"username": "cand"}, follow=True
    )
    assert "no author called &#x27;cand&#x27;" in response.content.decode()
    assert not problem.coauthors.exists()


def test_an_admin_edits_any_problem(problem: Problem) -> None:
    admin = client_for(user_with_role("root", admin=True))
    assert admin.post("/studio/add-one/statement/", {"statement_md": "by root"}).status_code == 302
    v2 = problem.versions.get(number=2)
    assert v2.statement_md == "by root" and v2.created_by is not None
    assert (v2.created_by.username, v2.change_note) == ("root", "statement")


def test_the_history_shows_who_changed_what(problem: Problem, owner: User) -> None:
    client = client_for(owner)
    client.post("/studio/add-one/tests/", edit_form(problem, extra=2))
    v2 = problem.versions.get(number=2)
    assert v2.created_by == owner and v2.change_note == "hidden tests +2"
    page = client.get("/studio/add-one/").content.decode()
    assert "hidden tests +2" in page and ">owner</td>" in page
    assert "loaded from a package" in page  # v1 has no author


def test_a_change_note_names_tests_limits_and_code() -> None:
    problem = tiny_problem()
    base = ProblemVersion.objects.get(problem=problem)
    fields = {
        "public_tests": base.public_tests[:1],
        "hidden_tests": [dict(base.hidden_tests[0], expected=0), *base.hidden_tests[1:]],
        "limits": dict(base.limits, test_wall_seconds=3.0),
        "driver": base.driver,
        "driver_code": "",
        "checker_code": "def check(): ...",
        "support_code": "",
        "compare": base.compare,
    }
    assert version_change_note(base, fields) == (
        "public tests -1; hidden tests ~1; limits: test_wall_seconds 2.0→3.0; checker"
    )
    assert version_change_note(None, fields) == "first version"
