"""Finding and tracking problems: search, filters, solved status, the practice history."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from grading.models import Submission
from problems.models import Problem
from tests.factories import tiny_problem, user_with_role

pytestmark = pytest.mark.django_db


def _problem(slug: str, title: str, **fields: object) -> Problem:
    problem = tiny_problem(slug)
    for name, value in {"title": title, **fields}.items():
        setattr(problem, name, value)
    problem.save()
    return problem


@pytest.fixture
def bank() -> dict[str, Problem]:
    return {
        "lru": _problem("lru-cache", "LRU cache", difficulty="easy", topics=["caching"]),
        "batch": _problem(
            "continuous-batching",
            "Continuous batching engine",
            difficulty="hard",
            queue="gpu",
            topics=["LLM serving", "scheduling"],
        ),
        "bucket": _problem(
            "token-bucket", "Token bucket", difficulty="medium", topics=["rate limiting"]
        ),
    }


def slugs(client: Client, **params: str) -> list[str]:
    html = client.get("/", params).content.decode()
    return re.findall(r'class="problem-row" data-slug="([^"]+)"', html)


def test_search_matches_title_slug_and_topics(client: Client, bank: dict[str, Problem]) -> None:
    assert slugs(client, q="batching") == ["continuous-batching"]
    assert slugs(client, q="RATE") == ["token-bucket"]  # a topic, any case
    assert slugs(client, q="lru cache") == ["lru-cache"]
    assert "No problem matches" in client.get("/", {"q": "zzz"}).content.decode()


def test_filters_by_topic_difficulty_and_queue(client: Client, bank: dict[str, Problem]) -> None:
    assert slugs(client, topic="scheduling") == ["continuous-batching"]
    assert slugs(client, difficulty="easy") == ["lru-cache"]
    assert slugs(client, queue="gpu") == ["continuous-batching"]
    assert slugs(client, difficulty="hard", queue="cpu") == []
    # Unknown values filter nothing rather than erroring.
    assert len(slugs(client, difficulty="impossible", queue="tpu")) == 3


def test_status_is_per_user_solved_attempted_or_new(
    client: Client, bank: dict[str, Problem]
) -> None:
    cara, other = user_with_role("cara"), user_with_role("other")
    for problem, mode, verdict, user in [
        (bank["lru"], "submit", "AC", cara),
        (bank["bucket"], "run", "WA", cara),
        (bank["batch"], "submit", "AC", other),
        (bank["batch"], "custom", "AC", cara),  # a scratch run is not an attempt
    ]:
        Submission.objects.create(
            user=user,
            problem=problem,
            version=problem.live_version,
            mode=mode,
            code="x = 1\n",
            verdict=verdict,
            status="done",
        )
    client.force_login(cara)
    html = client.get("/").content.decode()
    rows = dict(re.findall(r'data-slug="([^"]+)" data-status="([^"]+)"', html))
    assert rows == {
        "lru-cache": "solved",
        "token-bucket": "attempted",
        "continuous-batching": "new",
    }
    assert "Solved <strong>1</strong> of 3" in html
    assert slugs(client, status="attempted") == ["token-bucket"]


def test_history_lists_own_runs_and_submits_with_verdicts_and_code(
    client: Client, bank: dict[str, Problem], django_user_model: type[User]
) -> None:
    cara = user_with_role("cara")
    problem = bank["bucket"]
    for mode, verdict, code in [("run", "WA", "print('mine')\n"), ("script", "AC", "scratch\n")]:
        Submission.objects.create(
            user=cara, problem=problem, version=problem.live_version, mode=mode,
            code=code, verdict=verdict, status="done", passed=1, total=2,
        )  # fmt: skip
    Submission.objects.create(
        user=user_with_role("other"), problem=problem, version=problem.live_version,
        mode="submit", code="print('theirs')\n", verdict="AC", status="done",
    )  # fmt: skip
    client.force_login(cara)
    html = client.get("/submissions/").content.decode()
    assert html.count('class="history-item"') == 1
    assert 'data-verdict="WA"' in html and "1/2 passed" in html
    assert "print(&#x27;mine&#x27;)" in html and "theirs" not in html and "scratch" not in html


def test_history_needs_a_login(client: Client) -> None:
    response = client.get("/submissions/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
