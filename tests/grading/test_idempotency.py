"""Guarding against accidental work (issue 26, point 4): a double-clicked Submit makes one
submission (the Idempotency-Key header, per user), and empty code or the unchanged starter is
refused with a clear message, before anything is stored or queued."""

from __future__ import annotations

import pytest
from django.test import Client

from grading.models import Submission
from grading.services import request_fingerprint, unworked_check
from tests.factories import ADD_ONE, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db(transaction=True)
STARTER = "def solve(x):\n    pass\n"


def _post(client: Client, body: dict, key: str | None = None):  # type: ignore[no-untyped-def]
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return client.post("/api/submissions", body, content_type="application/json", **headers)


def _client(name: str) -> Client:
    client = Client()
    client.force_login(user_with_role(name, "candidate"))
    return client


def test_the_same_key_and_request_is_the_first_submission() -> None:
    tiny_problem()
    client = _client("cand")
    body = {"problem": "add-one", "code": ADD_ONE, "mode": "submit"}
    first = _post(client, body, "k-1")
    again = _post(client, body, "k-1")
    assert first.status_code == again.status_code == 201
    assert first.json()["id"] == again.json()["id"]
    assert Submission.objects.count() == 1
    # Without a key, or with a new one, each request is its own submission.
    assert _post(client, body, "k-2").json()["id"] != first.json()["id"]
    assert _post(client, body).status_code == 201
    assert Submission.objects.count() == 3


def test_a_key_reused_for_another_request_is_a_clear_422() -> None:
    tiny_problem()
    client = _client("cand")
    _post(client, {"problem": "add-one", "code": ADD_ONE, "mode": "submit"}, "k-1")
    changed = {"problem": "add-one", "code": ADD_ONE + "\n# v2", "mode": "submit"}
    other = _post(client, changed, "k-1")
    assert other.status_code == 422
    assert other.json()["code"] == "idempotency_key_reused"
    assert "already used for a different request" in other.json()["detail"]
    assert Submission.objects.count() == 1


def test_keys_are_scoped_per_user() -> None:
    tiny_problem()
    body = {"problem": "add-one", "code": ADD_ONE, "mode": "submit"}
    mine = _post(_client("a"), body, "shared-key").json()["id"]
    theirs = _post(_client("b"), body, "shared-key").json()["id"]
    assert mine != theirs and Submission.objects.count() == 2


@pytest.mark.parametrize("key", ["", "x" * 256, "has space", "é"])
def test_a_malformed_key_is_a_400(key: str) -> None:
    tiny_problem()
    response = _post(_client("cand"), {"problem": "add-one", "code": ADD_ONE, "mode": "run"}, key)
    if key == "":  # an empty header is no key at all
        assert response.status_code == 201
        return
    assert response.status_code == 400 and response.json()["code"] == "bad_idempotency_key"


@pytest.mark.parametrize(
    ("code", "mode", "why"),
    [
        ("", "run", "empty_code"),
        ("  \n\t\n", "submit", "empty_code"),
        (STARTER, "submit", "unchanged_starter"),
        ("\n" + STARTER.replace("pass", "pass   ") + "\n\n", "submit", "unchanged_starter"),
    ],
)
def test_empty_code_and_the_unchanged_starter_are_refused(code: str, mode: str, why: str) -> None:
    tiny_problem()
    response = _post(_client("cand"), {"problem": "add-one", "code": code, "mode": mode})
    assert response.status_code == 400
    assert response.json()["code"] == why
    assert ("no code to grade" if why == "empty_code" else "starter code, unchanged") in (
        response.json()["detail"]
    )
    assert not Submission.objects.exists()


def test_running_the_starter_is_allowed() -> None:
    problem = tiny_problem()
    unworked_check(problem=problem, code=STARTER, mode="run")  # Run shows what it does
    response = _post(_client("cand"), {"problem": "add-one", "code": STARTER, "mode": "run"})
    assert response.status_code == 201


def test_the_fingerprint_covers_every_field_of_the_request() -> None:
    base = {"problem_slug": "p", "code": "c", "mode": "custom", "custom_input": {"a": 1}}
    seen = {request_fingerprint(**base)}
    for change in ({"problem_slug": "q"}, {"code": "d"}, {"mode": "run"}, {"custom_input": 2}):
        seen.add(request_fingerprint(**(base | change)))
    assert len(seen) == 5
