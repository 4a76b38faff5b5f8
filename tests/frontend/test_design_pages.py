"""A design problem on the candidate's pages (issue 29): a "Design" badge in the list; its
page has no code desk (no editor, Run or Submit) but starts a solo design round; the
reference design (text and board) never reaches the candidate's page."""

from __future__ import annotations

import pytest

from interviews.models import InterviewSession
from problems.models import Problem
from problems.package import package_read
from problems.services import BANK_DIR, problem_load
from tests.factories import client_for, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db

SLUG = "kv-cache-aware-router"


@pytest.fixture
def design() -> Problem:
    problem, _ = problem_load(package=package_read(BANK_DIR / SLUG))
    return problem


def test_the_list_marks_design_problems(design: Problem) -> None:
    tiny_problem()
    page = client_for(user_with_role("cand", "candidate")).get("/").content.decode()
    row = page.split(f'data-slug="{SLUG}"', 1)[1].split("</tr>", 1)[0]
    assert '<span class="kind-badge design"' in row and ">Design</span>" in row
    coding = page.split('data-slug="add-one"', 1)[1].split("</tr>", 1)[0]
    assert "kind-badge design" not in coding


def test_a_design_page_has_no_desk_and_starts_a_solo_design_round(design: Problem) -> None:
    candidate = user_with_role("cand", "candidate")
    client = client_for(candidate)
    page = client.get(f"/problems/{SLUG}/").content.decode()
    assert "Design a KV-cache-aware request router" in page and "256 servers" in page
    for absent in (
        'id="desk"',
        'id="editor"',
        'id="run-button"',
        ">Run<",
        ">Submit<",
        'id="starter-code"',
        'id="time-limits"',
    ):
        assert absent not in page, absent
    assert 'id="design-start"' in page and 'action="/sessions/solo/"' in page
    assert f'name="problem" value="{SLUG}"' in page
    assert "Show hint 1 of" in page  # hints open one at a time, as on a coding page
    # The interviewer's reference never reaches the candidate.
    assert design.reference_code.splitlines()[0] not in page
    assert "Reference design" not in page and "elementId" not in page
    response = client.post("/sessions/solo/", {"problem": SLUG, "minutes": "45"})
    session = InterviewSession.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/sessions/{session.pk}/"
    assert (session.problem_id, session.kind, session.candidate_id) == (
        design.pk,
        "solo",
        candidate.pk,
    )
    assert session.duration.total_seconds() == 45 * 60


def test_an_unpublished_design_page_offers_no_round(design: Problem) -> None:
    Problem.objects.filter(pk=design.pk).update(published=False)
    admin = client_for(user_with_role("root", admin=True))
    page = admin.get(f"/problems/{SLUG}/").content.decode()
    assert 'action="/sessions/solo/"' not in page and "rounds start once it is" in page
