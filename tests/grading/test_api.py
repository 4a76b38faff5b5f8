"""The REST API's edges: auth, validation, visibility of hidden-test details per role."""

from __future__ import annotations

import pytest
from django.test import Client

from core.tokens import token_create
from grading.models import Submission, TestResult
from tests.factories import ADD_ONE, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def candidate_client() -> Client:
    client = Client()
    client.force_login(user_with_role("cand", "candidate"))
    return client


def test_anonymous_requests_are_refused() -> None:
    tiny_problem()
    response = Client().post(
        "/api/submissions",
        {"problem": "add-one", "code": ADD_ONE, "mode": "run"},
        content_type="application/json",
    )
    assert response.status_code in (401, 403)


def test_create_returns_id_and_queued_status(candidate_client: Client) -> None:
    tiny_problem()
    response = candidate_client.post(
        "/api/submissions",
        {"problem": "add-one", "code": ADD_ONE, "mode": "run"},
        content_type="application/json",
    )
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "queued"
    assert Submission.objects.get(pk=body["id"]).code == ADD_ONE


def test_token_auth_works() -> None:
    tiny_problem()
    _, secret = token_create(user=user_with_role("api-user", "candidate"), name="script")
    response = Client().post(
        "/api/submissions",
        {"problem": "add-one", "code": ADD_ONE, "mode": "submit"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {secret}",
    )
    assert response.status_code == 201


def test_code_over_64_kb_is_a_clear_413_and_stores_nothing(candidate_client: Client) -> None:
    tiny_problem()
    code = "#" * (64 * 1024 + 1)
    response = candidate_client.post(
        "/api/submissions",
        {"problem": "add-one", "code": code, "mode": "run"},
        content_type="application/json",
    )
    # core.errors.ERROR_STATUS, the one code→HTTP map: too_large is a 413.
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"
    assert "limit is 65536 bytes" in response.json()["detail"]
    assert not Submission.objects.exists()


def test_unknown_or_unpublished_problem_is_404(candidate_client: Client) -> None:
    tiny_problem("draft", published=False)
    for slug in ("nope", "draft"):
        response = candidate_client.post(
            "/api/submissions",
            {"problem": slug, "code": ADD_ONE, "mode": "run"},
            content_type="application/json",
        )
        assert response.status_code == 404


def test_bad_mode_is_400(candidate_client: Client) -> None:
    tiny_problem()
    response = candidate_client.post(
        "/api/submissions",
        {"problem": "add-one", "code": ADD_ONE, "mode": "debug"},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["detail"].startswith("mode")


def _graded_submission(owner_name: str) -> Submission:
    problem = tiny_problem()
    owner = user_with_role(owner_name, "candidate")
    submission = Submission.objects.create(
        user=owner,
        problem=problem,
        version=problem.live_version,
        mode="submit",
        code=ADD_ONE,
        status="done",
        verdict="WA",
        passed=1,
        total=2,
        by_tag={"correctness": [1, 2]},
    )
    TestResult.objects.create(
        submission=submission,
        index=0,
        name="public 0",
        verdict="AC",
        detail={"input": "[0]", "output": "1"},
    )
    TestResult.objects.create(
        submission=submission,
        index=1,
        name="secret 0",
        hidden=True,
        verdict="WA",
        detail={"input": "CANARY-INPUT", "output": "x"},
    )
    return submission


@pytest.mark.parametrize(
    ("role", "admin", "sees", "hidden_details"),
    [
        ("owner", False, True, False),
        ("candidate", False, False, False),
        # Issue 13: an interviewer or author with no part in the candidate's session gets
        # the 404 of a missing submission (the assigned one: tests/privacy).
        ("interviewer", False, False, False),
        ("author", False, False, False),
        (None, True, True, True),
    ],
)
def test_detail_visibility_by_role(
    role: str | None, admin: bool, sees: bool, hidden_details: bool
) -> None:
    submission = _graded_submission("owner")
    client = Client()
    if role == "owner":
        client.force_login(submission.user)
    else:
        client.force_login(user_with_role(f"u-{role}", role, admin=admin))
    response = client.get(f"/api/submissions/{submission.pk}")
    if not sees:
        assert response.status_code == 404
        return
    body = response.json()
    assert body["by_tag"] == {"correctness": [1, 2]}
    # The verdict line's sentences, written from the stored tests (never naming a hidden one)
    assert body["verdict_text"]["summary"] == "passed 1 of 2"
    assert body["verdict_text"]["failing"] == "WA in correctness"
    assert ("CANARY-INPUT" in response.content.decode()) is hidden_details
    assert ("secret 0" in response.content.decode()) is hidden_details


def test_openapi_schema_describes_the_submission_endpoints(candidate_client: Client) -> None:
    response = candidate_client.get("/api/schema", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    paths = (
        response.json()["paths"]
        if response["Content-Type"].startswith("application/json")
        else response.content.decode()
    )
    assert "/api/submissions" in str(paths)
    assert "/api/submissions/{submission_id}" in str(paths)
