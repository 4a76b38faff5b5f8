"""The candidate pages, through Django's test client."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from problems.models import Problem, ProblemVersion

pytestmark = pytest.mark.django_db

STATEMENT = """# Rate limiter

Implement `take(now)`.

```python
def take(self, now):
    ...
```

<script>alert("statement")</script>
"""


def problem_make(**fields: Any) -> Problem:
    defaults: dict[str, Any] = {
        "slug": "token-bucket",
        "title": "Token-bucket rate limiter",
        "difficulty": "easy",
        "queue": "cpu",
        "kind": "implement",
        "topics": ["rate limiting", "time"],
        "hints": ["Refill *lazily*, on each call.", "Clamp at `capacity`."],
        "statement_md": STATEMENT,
        "starter_code": "class TokenBucket:\n    pass  # </script><b>\n",
        "reference_code": "",
        "published": True,
    }
    return Problem.objects.create(**(defaults | fields))


@pytest.fixture
def candidate_client(client: Client, django_user_model: type[User]) -> Client:
    user = django_user_model.objects.create_user(username="cand", password="pw-123456")
    client.force_login(user)
    return client


def test_list_shows_published_problems_by_title_with_difficulty_and_topics(client: Client) -> None:
    problem_make(slug="b-prob", title="Beta")
    problem_make(slug="a-prob", title="Alpha", difficulty="hard", topics=["caching"])
    problem_make(slug="draft", title="Draft problem", published=False)

    html = client.get("/").content.decode()

    assert html.index("Alpha") < html.index("Beta")
    assert 'href="/problems/a-prob/"' in html
    assert "difficulty-hard" in html
    assert "caching" in html
    assert "Draft problem" not in html


def test_problem_page_redirects_anonymous_users_to_login(client: Client) -> None:
    problem_make()

    response = client.get("/problems/token-bucket/")

    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/problems/token-bucket/"


def test_problem_page_renders_sanitised_statement_editor_and_controls(
    candidate_client: Client,
) -> None:
    problem_make()

    html = candidate_client.get("/problems/token-bucket/").content.decode()

    assert "<h1>Rate limiter</h1>" in html
    assert '<span class="k">def</span>' in html
    assert 'alert("statement")' not in html
    for element_id in ("editor", "run-button", "submit-button", "results", "result-tests"):
        assert f'id="{element_id}"' in html
    assert 'data-slug="token-bucket"' in html
    assert "frontend/bundle.js" in html


def test_starter_code_is_embedded_as_json_that_cannot_close_its_script(
    candidate_client: Client,
) -> None:
    problem_make()

    html = candidate_client.get("/problems/token-bucket/").content.decode()

    match = re.search(
        r'<script id="starter-code" type="application/json">(.*?)</script>', html, re.S
    )
    assert match is not None
    assert json.loads(match.group(1)) == "class TokenBucket:\n    pass  # </script><b>\n"


def test_hints_are_not_in_the_page_until_revealed_one_at_a_time(candidate_client: Client) -> None:
    problem_make()

    page = candidate_client.get("/problems/token-bucket/").content.decode()
    first = candidate_client.get("/problems/token-bucket/hints/1/").content.decode()
    second = candidate_client.get("/problems/token-bucket/hints/2/").content.decode()

    assert "lazily" not in page
    assert "Show hint 1 of 2" in page
    assert "<em>lazily</em>" in first
    assert 'hx-get="/problems/token-bucket/hints/2/"' in first
    assert "<code>capacity</code>" in second
    assert "hx-get" not in second
    assert candidate_client.get("/problems/token-bucket/hints/3/").status_code == 404
    assert candidate_client.get("/problems/token-bucket/hints/0/").status_code == 404


def test_unpublished_problem_is_404_for_candidates_and_a_preview_for_staff(
    candidate_client: Client, django_user_model: type[User]
) -> None:
    problem_make(published=False)
    staff = Client()
    staff.force_login(django_user_model.objects.create_user("staff", is_staff=True))

    assert candidate_client.get("/problems/token-bucket/").status_code == 404
    assert candidate_client.get("/problems/token-bucket/hints/1/").status_code == 404
    preview = staff.get("/problems/token-bucket/")
    assert preview.status_code == 200
    assert "staff preview" in preview.content.decode()


def test_header_shows_the_user_and_a_post_logout_form(candidate_client: Client) -> None:
    html = candidate_client.get("/").content.decode()

    assert "cand" in html
    assert re.search(r'<form class="logout-form" method="post" action="/accounts/logout/">', html)
    assert "csrfmiddlewaretoken" in html


def test_login_page_renders_and_logs_in_to_the_problem_list(
    client: Client, django_user_model: type[User]
) -> None:
    django_user_model.objects.create_user(username="cand", password="pw-123456")

    page = client.get("/accounts/login/")
    response = client.post(
        "/accounts/login/", {"username": "cand", "password": "pw-123456", "next": "/"}
    )

    assert page.status_code == 200
    assert 'name="username"' in page.content.decode()
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_logout_is_a_post_that_returns_to_the_list(candidate_client: Client) -> None:
    response = candidate_client.post("/accounts/logout/", {"next": "/"})

    assert response.status_code == 302
    assert candidate_client.get("/problems/token-bucket/").status_code == 302


def test_problem_page_shows_the_cpu_limit_and_the_wall_backstop_derived_from_it(
    candidate_client: Client,
) -> None:
    problem = problem_make()
    assert "time-limits" not in candidate_client.get("/problems/token-bucket/").content.decode()
    problem.live_version = ProblemVersion.objects.create(
        problem=problem,
        number=1,
        tests_hash="x",
        driver={"kind": "ops", "entry": "TokenBucket"},
        compare={"mode": "exact"},
        limits={"test_wall_seconds": 1.5, "test_cpu_seconds": 1.5},
    )
    problem.save()
    html = candidate_client.get("/problems/token-bucket/").content.decode()
    assert "1.5 s of CPU time" in html
    assert "after 6.5 s of wall-clock time" in html  # 3 x 1.5 + 2: a backstop, not the limit
    assert 'data-cpu-limit-seconds="1.5"' in html  # what each result row shows CPU time against
