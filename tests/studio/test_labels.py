"""The studio's labels say what is so (issue 36.10): a version reads "live" only when
candidates get it; the live version of an unpublished problem (a new problem's draft v1) reads
"current, unpublished", never "live"."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

from problems.models import Problem, ProblemVersion
from studio.selectors import live_label
from tests.factories import client_for, tiny_problem, user_with_role


@pytest.fixture
def writer(db: None) -> User:
    return user_with_role("writer", "author")


def _labels(html: str) -> list[str]:
    return re.findall(r'<span class="state [^"]*" data-live-label>([^<]*)</span>', html)


def _problem(writer: User, *, published: bool, validation: str) -> Problem:
    problem = tiny_problem(published=published)
    problem.owner = writer
    problem.save()
    ProblemVersion.objects.filter(problem=problem).update(validation=validation)
    problem.refresh_from_db()
    return problem


def test_a_new_problems_draft_is_never_called_live(writer: User) -> None:
    problem = _problem(writer, published=False, validation="draft")
    client = client_for(writer)
    version_page = client.get("/studio/add-one/v1/").content.decode()
    problem_page = client.get("/studio/add-one/").content.decode()
    assert _labels(version_page) == ["current, unpublished"]
    assert _labels(problem_page) == ["current, unpublished"]
    for html in (version_page, problem_page, client.get("/studio/").content.decode()):
        assert "state-live" not in html and "version-chip live" not in html
    assert problem.live_version is not None
    assert live_label(problem, problem.live_version) == "current, unpublished"


def test_a_published_problems_live_version_reads_live(writer: User) -> None:
    problem = _problem(writer, published=True, validation="passed")
    client = client_for(writer)
    assert _labels(client.get("/studio/add-one/v1/").content.decode()) == ["live"]
    assert "version-chip live" in client.get("/studio/").content.decode()
    assert problem.live_version is not None
    draft = ProblemVersion.objects.get(pk=problem.live_version.pk)
    draft.pk, draft.number, draft.validation = None, 2, "draft"
    draft.save()
    assert live_label(problem, draft) == ""  # a newer draft is not live either
    assert _labels(client.get("/studio/add-one/v2/").content.decode()) == []
