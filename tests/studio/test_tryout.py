"""Try it as a candidate (issue 28, point 2): any version, a draft included, opens in the
candidate's page for its authors and admins under a banner naming it; a run or a submission
posted from there grades on that version in the real sandbox and leaves the live version, the
problem's stats and its regrades alone."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from frontend.selectors import problem_status_by_slug
from grading.models import Submission
from grading.services import submission_create, submission_grade
from problems.models import Problem
from studio.services.regrades import regrade_submissions
from studio.services.versions import problem_statement_update, version_create
from tests.factories import client_for, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db

DRAFT_STATEMENT = "# Add one, draft\n\nMARK-DRAFT-STATEMENT-5512"
# Right for the draft's tests (x + 2), wrong for the live version's (x + 1).
PLUS_TWO = "def solve(x):\n    return x + 2\n"


@pytest.fixture
def owner() -> User:
    return user_with_role("owner", "author")


@pytest.fixture
def problem(owner: User) -> Problem:
    """Published, live v1 (x + 1); draft v2 with a new statement and tests for x + 2."""
    problem = tiny_problem(published=True)
    Problem.objects.filter(pk=problem.pk).update(owner=owner)
    problem.refresh_from_db()
    problem_statement_update(problem=problem, statement_md=DRAFT_STATEMENT, user=owner)
    public = '[{"name": "p", "input": {"args": [1]}, "expected": 3, "tag": "correctness"}]'
    hidden = (
        '[{"name": "h", "input": {"args": [5]}, "expected": 7, "tag": "correctness"},'
        ' {"name": "h2", "input": {"args": [0]}, "expected": 2, "tag": "edge_cases"}]'
    )
    version_create(problem=problem, public_json=public, hidden_json=hidden, user=owner)
    problem.refresh_from_db()
    return problem


def test_the_author_opens_the_draft_in_the_candidate_page_under_a_banner(
    problem: Problem, owner: User
) -> None:
    page = client_for(owner).get("/studio/add-one/v3/try/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="draft-banner"' in html and "Draft v3" in html and "see v1" in html
    assert "MARK-DRAFT-STATEMENT-5512" in html
    assert 'data-version="3"' in html and 'id="run-button"' in html
    # the studio's "Candidate view" goes there
    studio = client_for(owner).get("/studio/add-one/").content.decode()
    assert 'href="/studio/add-one/v3/try/"' in studio


def test_the_live_version_is_tried_too_and_named_live(problem: Problem, owner: User) -> None:
    html = client_for(owner).get("/studio/add-one/v1/try/").content.decode()
    assert "Live v1" in html and "MARK-DRAFT-STATEMENT-5512" not in html


def test_an_unknown_version_or_hint_is_a_404(problem: Problem, owner: User) -> None:
    client = client_for(owner)
    assert client.get("/studio/add-one/v9/try/").status_code == 404
    assert client.get("/studio/nope/v1/try/").status_code == 404
    assert client.get("/studio/add-one/v3/try/hints/7/").status_code == 404


@pytest.mark.docker
def test_a_submission_to_the_draft_grades_on_it_and_leaves_the_live_version_alone(
    problem: Problem, owner: User
) -> None:
    candidate = user_with_role("cand", "candidate")
    live_before = list(problem.live_version.submissions.values_list("pk", flat=True))
    # when the author submits x + 2 to draft v3, through the API the page posts to
    response = client_for(owner).post(
        "/api/submissions",
        {"problem": "add-one", "code": PLUS_TWO, "mode": "submit", "version": 3},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    trial = Submission.objects.get(pk=response.json()["id"])
    submission_grade(submission_id=trial.pk)
    trial.refresh_from_db()
    # then it graded on v3's tests in the sandbox, and is marked a try-out
    assert trial.version.number == 3 and trial.trial
    assert (trial.verdict, trial.passed, trial.total) == ("AC", 3, 3)
    # and the live version is untouched: still v1, nobody's results gained it
    problem.refresh_from_db()
    assert problem.live_version.number == 1
    assert list(problem.live_version.submissions.values_list("pk", flat=True)) == live_before
    # the same code against the live version is WA, as a candidate's would be
    live = submission_create(user=candidate, problem_slug="add-one", code=PLUS_TWO, mode="submit")
    submission_grade(submission_id=live.pk)
    live.refresh_from_db()
    assert live.verdict == "WA" and live.version.number == 1 and not live.trial
    # a try-out is nobody's go at the problem: not in the stats, never regraded
    assert problem_status_by_slug(user=owner) == {}
    assert trial not in regrade_submissions(problem.versions.get(number=3))
    assert trial not in regrade_submissions(problem.live_version)
    # and its results read back on the API, for its author
    detail = client_for(owner).get(f"/api/submissions/{trial.pk}").json()
    assert detail["verdict"] == "AC"


@pytest.mark.docker
def test_a_run_on_the_draft_grades_its_public_tests(problem: Problem, owner: User) -> None:
    run = submission_create(
        user=owner, problem_slug="add-one", code=PLUS_TWO, mode="run", version_number=3
    )
    submission_grade(submission_id=run.pk)
    run.refresh_from_db()
    assert (run.verdict, run.total, run.trial) == ("AC", 1, True)
