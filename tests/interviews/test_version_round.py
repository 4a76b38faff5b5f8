"""An author's solo round on a draft (issue 38, 5): the author of a design problem takes a
version not yet live (the problem never published, or published with an older live version)
as a solo round from the version's studio page. The session keeps the version it was started
on and shows and reads that version's content (statement, board, hints, canned answers, the
report's rubric); only the problem's authors and admins may start one, anyone else is answered
as if the draft did not exist, and a candidate never reaches a draft."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User

from interviews import services
from interviews.models import InterviewSession
from interviews.services import SessionError
from problems.models import Problem, ProblemVersion
from tests.factories import client_for, design_problem, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db

DRAFT_STATEMENT = "Design a **ticket booking service** for a stadium: the draft's own words."
DRAFT_CLARIFICATION = {"question": "How many seats are there?", "answer": "Eighty thousand.",
                       "keywords": ["seats"]}


def draft_of(problem: Problem, *, published: bool) -> ProblemVersion:
    """Version 2 of `problem`, a draft: its own statement, hint and canned answer."""
    live = problem.live_version
    assert live is not None
    version = ProblemVersion.objects.get(pk=live.pk)
    version.pk = None
    version.number = 2
    version.statement_md = DRAFT_STATEMENT
    version.hints = ["Start from the seat map's hot rows."]
    version.clarifications = [DRAFT_CLARIFICATION]
    version.validation = ProblemVersion.Validation.DRAFT
    version.save()
    Problem.objects.filter(pk=problem.pk).update(published=published)
    return version


@pytest.fixture
def owner() -> User:
    return user_with_role("olga", "author")


def owned_design(owner: User, *, published: bool = False) -> tuple[Problem, ProblemVersion]:
    problem = design_problem("draft-round")
    problem.owner = owner
    problem.save()
    return problem, draft_of(problem, published=published)


@pytest.mark.parametrize("published", [False, True])
def test_the_author_takes_the_draft_as_a_solo_round_and_sees_the_drafts_content(
    owner: User, published: bool
) -> None:
    problem, draft = owned_design(owner, published=published)
    client = client_for(owner)
    response = client.post(f"/sessions/solo/{problem.slug}/v2/", {"minutes": "45"})
    assert response.status_code == 302, response.content.decode()[:2000]
    session = InterviewSession.objects.get()
    assert response["Location"] == f"/sessions/{session.pk}/"
    assert (session.kind, session.candidate, session.problem_version) == ("solo", owner, draft)
    assert session.status == "active" and session.candidate_opens_hints
    assert session.content == draft

    page = client.get(f"/sessions/{session.pk}/").content.decode()
    assert "ticket booking service" in page and "batch inference API</strong>" not in page
    assert 'id="session-board"' in page  # the draft's board config: a design desk
    assert 'id="version-round"' in page and "v2, not live" in page

    # Its hints and canned answers are the draft's.
    assert services.session_hint_reveal(session_id=session.pk, user=owner) == (
        1, "Start from the seat map's hot rows.")
    question = services.question_ask(session_id=session.pk, user=owner,
                                     text="How many seats are there in the stadium?")
    assert "Eighty thousand" in question.answer


def test_only_the_problems_authors_and_admins_start_one(owner: User) -> None:
    problem, _ = owned_design(owner)
    url = f"/sessions/solo/{problem.slug}/v2/"
    for stranger in (user_with_role("otto", "author"), user_with_role("cora", "candidate"),
                     user_with_role("ivy", "interviewer")):
        assert client_for(stranger).post(url, {"minutes": "45"}).status_code == 404
        with pytest.raises(SessionError) as refused:
            services.session_start_version_solo(author=stranger, problem_slug=problem.slug,
                                                number=2, duration=timedelta(minutes=45))
        assert refused.value.code == "unknown_problem"
    assert not InterviewSession.objects.exists()
    coauthor = user_with_role("cole", "author")
    problem.coauthors.add(coauthor)
    admin = user_with_role("root", admin=True)
    for allowed in (coauthor, admin):
        assert client_for(allowed).post(url, {"minutes": "30"}).status_code == 302
    assert set(InterviewSession.objects.values_list("candidate__username", flat=True)) == {
        "cole", "root"}
    # A GET starts nothing; an unknown version is answered as missing.
    assert client_for(owner).get(url).status_code == 405
    assert client_for(owner).post(f"/sessions/solo/{problem.slug}/v9/",
                                  {"minutes": "30"}).status_code == 404


def test_a_candidate_never_reaches_the_draft(owner: User) -> None:
    problem, _ = owned_design(owner)
    candidate = user_with_role("cora", "candidate")
    client = client_for(candidate)
    # Not in the solo form's list, refused by name, and the author's round is not theirs.
    assert problem.slug not in client.get("/sessions/").content.decode()
    response = client.post("/sessions/solo/", {"problem": problem.slug, "minutes": "45"})
    assert response.status_code == 302 and "error=" in response["Location"]
    session = services.session_start_version_solo(author=owner, problem_slug=problem.slug,
                                                  number=2, duration=timedelta(minutes=45))
    assert client.get(f"/sessions/{session.pk}/").status_code == 404
    assert DRAFT_STATEMENT not in client.get(f"/sessions/{session.pk}/").content.decode()


def test_a_code_problems_version_is_refused(owner: User) -> None:
    code = tiny_problem("draft-code", published=False)
    code.owner = owner
    code.save()
    response = client_for(owner).post(f"/sessions/solo/{code.slug}/v1/", {"minutes": "45"})
    assert response.status_code == 302 and "error=" in response["Location"]
    assert not InterviewSession.objects.exists()


def test_the_studio_version_page_offers_it_to_the_authors_only(owner: User) -> None:
    problem, _ = owned_design(owner)
    page = client_for(owner).get(f"/studio/{problem.slug}/v2/").content.decode()
    assert 'id="version-solo-button"' in page
    assert f'action="/sessions/solo/{problem.slug}/v2/"' in page
    other = client_for(user_with_role("otto", "author")).get(f"/studio/{problem.slug}/v2/")
    assert 'id="version-solo-button"' not in other.content.decode()
    code = tiny_problem("draft-code", published=False)
    code.owner = owner
    code.save()
    page = client_for(owner).get(f"/studio/{code.slug}/v1/").content.decode()
    assert 'id="version-solo-button"' not in page


def test_a_round_on_the_live_version_reads_the_problem(owner: User) -> None:
    """Every other session: no version kept, the problem's live content."""
    problem, _ = owned_design(owner, published=True)
    session = services.session_start_solo(candidate=owner, problem_slug=problem.slug,
                                          duration=timedelta(minutes=45))
    assert session.problem_version is None and session.content == problem
    assert DRAFT_STATEMENT not in client_for(owner).get(f"/sessions/{session.pk}/").content.decode()


def test_any_state_of_the_page_answers(owner: Any) -> None:
    problem, _ = owned_design(owner)
    client = client_for(owner)
    for minutes in ("", "abc", "-5", "1e20"):
        response = client.post(f"/sessions/solo/{problem.slug}/v2/", {"minutes": minutes})
        assert response.status_code == 302 and "error=" in response["Location"], minutes
    assert not InterviewSession.objects.exists()


def test_the_report_of_a_draft_round_is_never_shared(owner: User) -> None:
    problem, draft = owned_design(owner, published=True)
    session = services.session_start_version_solo(author=owner, problem_slug=problem.slug,
                                                  number=2, duration=timedelta(minutes=45))
    services.session_finish_by(session_id=session.pk, user=owner)
    session.refresh_from_db()
    assert session.on_a_draft
    client = client_for(owner)
    report = client.get(f"/sessions/{session.pk}/report/").content.decode()
    assert 'id="share-create"' not in report
    response = client.post(f"/sessions/{session.pk}/report/share")
    assert response.status_code in (302, 400), response.status_code
    assert not session.report_shares.exists()
    # Once that version is live on the published problem, it is a round like any other.
    Problem.objects.filter(pk=problem.pk).update(live_version=draft)
    session = InterviewSession.objects.get(pk=session.pk)
    assert not session.on_a_draft
    assert 'id="share-create"' in client.get(f"/sessions/{session.pk}/report/").content.decode()
