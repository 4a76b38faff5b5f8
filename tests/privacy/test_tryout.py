"""A draft never reaches a candidate or another non-author (issue 28, point 2): the studio's
candidate view of a version, its hints and a run posted against it are a 404 for everyone but
the problem's owner, its co-authors and admins (core.visibility's DRAFT_PROBLEM row)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from core import visibility
from grading.models import Submission
from problems.models import Problem, ProblemVersion
from tests.factories import client_for, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db

MARKER = "MARK-TRYOUT-DRAFT-7731"
HINT = "MARK-TRYOUT-HINT-7732"


@pytest.fixture
def people() -> dict[str, User | None]:
    owner = user_with_role("owner", "author")
    coauthor = user_with_role("coauthor", "author")
    problem = tiny_problem(published=False)
    Problem.objects.filter(pk=problem.pk).update(owner=owner)
    problem.coauthors.add(coauthor)
    ProblemVersion.objects.filter(problem=problem).update(statement_md=MARKER, hints=[HINT])
    return {
        "owner": owner,
        "coauthor": coauthor,
        "admin": user_with_role("root", admin=True),
        "other_author": user_with_role("other_author", "author"),
        "interviewer": user_with_role("interviewer", "interviewer"),
        "candidate": user_with_role("candidate", "candidate"),
        "anonymous": None,
    }


MAY_TRY = {"owner", "coauthor", "admin"}


@pytest.mark.parametrize(
    "name", ["owner", "coauthor", "admin", "other_author", "interviewer", "candidate", "anonymous"]
)
def test_only_the_authors_and_admins_open_a_draft_as_a_candidate(
    people: dict[str, User | None], name: str
) -> None:
    client = client_for(people[name])
    page = client.get("/studio/add-one/v1/try/")
    hint = client.get("/studio/add-one/v1/try/hints/1/")
    run = client.post(
        "/api/submissions",
        {"problem": "add-one", "code": "x = 1", "mode": "run", "version": 1},
        content_type="application/json",
    )
    if name in MAY_TRY:
        assert page.status_code == hint.status_code == 200
        assert MARKER in page.content.decode() and HINT in hint.content.decode()
        assert run.status_code == 201
        return
    if name == "anonymous":
        assert page.status_code == hint.status_code == 302  # to the login page
        assert run.status_code in (401, 403)
    else:
        assert page.status_code == hint.status_code == run.status_code == 404
    for response in (page, hint, run):
        assert MARKER not in response.content.decode()
        assert HINT not in response.content.decode()
    assert not Submission.objects.exists()


def test_the_rule_is_the_draft_problem_row() -> None:
    viewer = visibility.Viewer
    assert visibility.may_see(visibility.DRAFT_PROBLEM, viewer.ADMIN)
    assert visibility.may_see(visibility.DRAFT_PROBLEM, viewer.AUTHOR, own=True)
    for other in (viewer.AUTHOR, viewer.OTHER, viewer.UNASSIGNED, viewer.CANDIDATE):
        assert not visibility.may_see(visibility.DRAFT_PROBLEM, other)


def test_a_candidate_cannot_reach_the_live_version_through_a_version_number() -> None:
    """Even a published problem's live version: `version` is the authors' try-out, nobody
    else's (so a candidate's run can never be a trial, out of the stats)."""
    tiny_problem(published=True)
    candidate = user_with_role("cand", "candidate")
    response = client_for(candidate).post(
        "/api/submissions",
        {"problem": "add-one", "code": "x", "mode": "run", "version": 1},
        content_type="application/json",
    )
    assert response.status_code == 404 and not Submission.objects.exists()
