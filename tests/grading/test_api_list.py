"""GET /api/submissions: the caller's own submissions, newest first, a page at a time."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from grading.models import Submission
from tests.factories import tiny_problem, user_with_role

pytestmark = pytest.mark.django_db


def _make(user: object, problem: object, count: int, mode: str = "run") -> list[Submission]:
    version = problem.live_version  # type: ignore[attr-defined]
    return [
        Submission.objects.create(
            user=user, problem=problem, version=version, mode=mode, code=f"# {i}\n"
        )
        for i in range(count)
    ]


def test_lists_only_the_callers_own_submissions_newest_first_in_pages() -> None:
    problem = tiny_problem()
    cara, other = user_with_role("cara"), user_with_role("other", admin=True)
    mine = _make(cara, problem, 5)
    _make(other, problem, 3)
    client = APIClient()
    client.force_login(cara)

    first = client.get("/api/submissions", {"page_size": 2}).json()
    assert (first["count"], first["pages"], first["page"]) == (5, 3, 1)
    assert [row["id"] for row in first["results"]] == [mine[4].pk, mine[3].pk]
    assert first["previous"] is None and "page=2" in first["next"]
    assert first["results"][0]["code"] == "# 4\n"

    last = client.get("/api/submissions", {"page_size": 2, "page": 3}).json()
    assert [row["id"] for row in last["results"]] == [mine[0].pk] and last["next"] is None


def test_staff_also_see_only_their_own_here() -> None:
    problem = tiny_problem()
    _make(user_with_role("cara"), problem, 2)
    admin = user_with_role("root", admin=True)
    client = APIClient()
    client.force_login(admin)
    assert client.get("/api/submissions").json()["count"] == 0


def test_filters_by_problem_and_mode() -> None:
    one, two = tiny_problem("one"), tiny_problem("two")
    cara = user_with_role("cara")
    _make(cara, one, 2)
    _make(cara, two, 1, mode="submit")
    client = APIClient()
    client.force_login(cara)
    assert client.get("/api/submissions", {"problem": "two"}).json()["count"] == 1
    assert client.get("/api/submissions", {"mode": "run"}).json()["count"] == 2


@pytest.mark.parametrize(
    ("params", "status", "message"),
    [
        ({"page": "x"}, 400, "page"),
        ({"page": 0}, 400, "page"),
        ({"page_size": 1000}, 400, "page_size"),
        ({"mode": "fly"}, 400, "mode"),
        ({"page": 9}, 404, "no page 9"),
    ],
)
def test_bad_paging_gets_a_clear_error(
    params: dict[str, object], status: int, message: str
) -> None:
    problem = tiny_problem()
    cara = user_with_role("cara")
    _make(cara, problem, 1)
    client = APIClient()
    client.force_login(cara)
    response = client.get("/api/submissions", params)
    assert response.status_code == status
    assert message in response.json()["detail"]


def test_anonymous_callers_are_refused() -> None:
    assert APIClient().get("/api/submissions").status_code in (401, 403)
