"""The candidate's problem page is built in one place (grading/problempage.py): the practice
page, a design problem's page, an author's try-out of a version and a session's desk all take
the statement, the limits and the custom-input example from it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from grading import problempage
from interviews import services
from problems.models import Problem
from tests.factories import client_for, design_problem, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db

MARK = "MARK-ONE-BUILDER-7731"


def test_every_page_that_sets_a_problem_takes_it_from_the_one_builder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[dict[str, Any]] = []
    real = problempage.problem_page

    def marked(**facts: Any) -> dict[str, Any]:
        built.append(facts)
        return {**real(**facts), "statement_html": f"<p>{MARK} {facts['kind']}</p>"}

    monkeypatch.setattr(problempage, "problem_page", marked)
    author = user_with_role("owner", "author")
    coding = tiny_problem()
    Problem.objects.filter(pk=coding.pk).update(owner=author)
    design = design_problem()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=coding.slug, duration=timedelta(minutes=10))
    pages = {
        "practice": client_for(candidate).get(f"/problems/{coding.slug}/"),
        "design": client_for(candidate).get(f"/problems/{design.slug}/"),
        "try-out": client_for(author).get(f"/studio/{coding.slug}/v1/try/"),
        "session": client_for(candidate).get(f"/sessions/{session.pk}/"),
    }
    for name, response in pages.items():
        assert response.status_code == 200, name
        assert MARK in response.content.decode(), name
    assert [facts["kind"] for facts in built] == ["implement", "design", "implement",
                                                  "implement"]


def test_the_code_desk_facts_are_a_coding_kinds_alone() -> None:
    coding, design = tiny_problem(), design_problem()
    page = problempage.problem_page_of(coding)
    assert page["time_limits"] is not None and page["custom_example"] == {"args": [0]}
    assert page["hint_count"] == len(coding.hints)
    shown = problempage.problem_page_of(design)
    assert (shown["time_limits"], shown["custom_example"], shown["custom_reference"]) == (
        None, None, False)
    assert "batch inference API" in str(shown["statement_html"])
