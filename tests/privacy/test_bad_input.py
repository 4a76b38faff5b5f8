"""No input gives a server error (issue 13): deep or huge JSON, non-finite numbers, numbers
where strings belong, unknown API paths; every refusal under /api/ is JSON. And every
state-changing endpoint has its own rate limit, answered 429 with a JSON body."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from core.jsonbody import json_depth
from interviews import services
from tests.factories import ADD_ONE, tiny_problem, user_with_role
from tests.interviews.worlds import build_world

pytestmark = pytest.mark.django_db

DEEP = b"[" * 100_000 + b"]" * 100_000


def logged_in(username: str = "cand", role: str = "candidate", **kw: Any) -> Client:
    client = Client()
    client.force_login(user_with_role(username, role, **kw))
    return client


@pytest.fixture(autouse=True)
def _fresh_rate_counters() -> None:
    cache.clear()


def test_depth_is_measured_without_recursion_and_ignores_brackets_in_strings() -> None:
    assert json_depth(DEEP) == 100_000
    assert json_depth(b'{"a": "[[[[[[", "b": [1, {"c": "\\"]]]"}]}') == 3
    assert json_depth(b"42") == 0


def test_deep_json_is_a_clear_400_on_the_api_and_on_the_session_views() -> None:
    tiny_problem()
    client = logged_in()
    response = client.post("/api/submissions", DEEP, content_type="application/json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == "bad_json"
    session = services.session_start_solo(
        candidate=response.wsgi_request.user, problem_slug="add-one", duration=timedelta(minutes=10)
    )
    for path in ("questions", "notes", "run", "events", "settings"):
        response = client.post(
            f"/sessions/{session.pk}/{path}", DEEP, content_type="application/json"
        )
        assert response.status_code == 400, path
        assert response.json()["code"] == "bad_json", path


def test_non_json_and_non_object_bodies_are_400_not_ignored() -> None:
    tiny_problem()
    client = logged_in()
    for body in (b"not json", b"[1, 2]", b'{"problem": NaN}', b'{"x": Infinity}'):
        response = client.post("/api/submissions", body, content_type="application/json")
        assert response.status_code == 400, body
        assert set(response.json()) == {"detail", "code"}


@pytest.mark.parametrize("minutes", ["inf", "-inf", "nan", "1e20", "1e400", "-1e400", "ten"])
@pytest.mark.parametrize("path", ["/sessions/solo/", "/sessions/live/"])
def test_absurd_durations_are_refused_with_a_message(path: str, minutes: str) -> None:
    problem = tiny_problem()
    client = logged_in("ivy", "interviewer")
    response = client.post(path, {"problem": problem.slug, "minutes": minutes})
    if path == "/sessions/solo/":
        assert response.status_code == 302
        assert "error=" in response["Location"], minutes
        return
    # The schedule form (interviews/forms.py) shows its errors at their fields, values kept.
    assert response.status_code == 400, minutes
    assert "minutes" in response.context["schedule_form"].errors, minutes


@pytest.mark.parametrize("field", ["code", "problem"])
def test_a_number_is_not_accepted_as_a_string(field: str) -> None:
    tiny_problem()
    body: dict[str, object] = {"problem": "add-one", "code": ADD_ONE, "mode": "run"}
    body[field] = 123
    response = logged_in().post("/api/submissions", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"].startswith(f"{field}:")


def test_api_errors_are_json_for_unknown_paths_bad_segments_and_huge_bodies() -> None:
    client = logged_in()
    for path in ("/api/submissions/abc", "/api/nope", "/api/review/sessions/x/scores"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.json()["code"] == "not_found"
    huge = json.dumps({"problem": "add-one", "code": "#" * 3_000_000, "mode": "run"})
    response = client.post("/api/submissions", huge, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"
    anonymous = Client().get("/api/submissions/1")
    assert anonymous.status_code in (401, 403) and "code" in anonymous.json()


# ---------------------------------------------------------------- rate limits


def _over_limit(settings: Any, scope: str, send: Any) -> Any:
    settings.ONSITE_RATES = {**settings.ONSITE_RATES, scope: "2/min"}
    cache.clear()
    first, second, third = send(), send(), send()
    assert first.status_code != 429 and second.status_code != 429
    return third


def test_submissions_are_rate_limited_with_a_json_429(settings: Any) -> None:
    tiny_problem()
    client = logged_in()
    third = _over_limit(
        settings,
        "submissions",
        lambda: client.post(
            "/api/submissions",
            {"problem": "add-one", "code": ADD_ONE, "mode": "run"},
            content_type="application/json",
        ),
    )
    assert third.status_code == 429
    assert third.json()["code"] == "rate_limited"


def test_starting_sessions_is_rate_limited(settings: Any) -> None:
    problem = tiny_problem()
    client = logged_in()
    third = _over_limit(
        settings,
        "sessions",
        lambda: client.post("/sessions/solo/", {"problem": problem.slug, "minutes": "10"}),
    )
    # a form post: the styled 429 page (core.edges.form_edge), not a redirect
    assert third.status_code == 429 and int(third["Retry-After"]) >= 1
    assert third["Content-Type"].startswith("text/html") and 'data-status="429"' in (
        third.content.decode())


@pytest.mark.parametrize(
    ("scope", "path", "body"),
    [
        ("questions", "questions", {"text": "Is x an int?"}),
        ("notes", "notes", {"text": "tradeoff: simple first", "kind": "tradeoff"}),
        ("chat", "chat", {"text": "hello"}),
        ("session_actions", "events", {"kind": "tab_hidden"}),
    ],
)
def test_session_json_endpoints_are_rate_limited(
    settings: Any, scope: str, path: str, body: dict[str, str]
) -> None:
    tiny_problem()
    client = logged_in()
    user = client.get("/sessions/").wsgi_request.user
    session = services.session_start_solo(
        candidate=user, problem_slug="add-one", duration=timedelta(minutes=10)
    )
    third = _over_limit(
        settings,
        scope,
        lambda: client.post(
            f"/sessions/{session.pk}/{path}", body, content_type="application/json"
        ),
    )
    assert third.status_code == 429
    assert third.json() == {"detail": third.json()["detail"], "code": "rate_limited"}


def test_review_notes_and_scorecards_are_rate_limited(settings: Any) -> None:
    world = build_world()
    client = Client()
    client.force_login(world.assigned)
    sid = world.session.pk
    third = _over_limit(
        settings, "notes", lambda: client.post(f"/sessions/{sid}/review/notes", {"text": "fine"})
    )
    # a form post: the 429 page, never JSON to a browser's form (core.edges.form_edge)
    assert third.status_code == 429 and 'data-status="429"' in third.content.decode()
    third = _over_limit(
        settings,
        "scorecards",
        lambda: client.post(
            f"/api/review/sessions/{sid}/scores",
            {"summary": "draft"},
            content_type="application/json",
        ),
    )
    assert third.status_code == 429 and third.json()["code"] == "rate_limited"
    third = _over_limit(
        settings,
        "scorecards",
        lambda: client.post(
            f"/sessions/{sid}/review/scorecard", {"summary": "draft", "action": "save"}
        ),
    )
    assert third.status_code == 429


def test_a_cache_outage_lets_requests_through_instead_of_failing_them(settings: Any) -> None:
    from core.ratelimit import _hit

    settings.ONSITE_RATES = {**settings.ONSITE_RATES, "sessions": "1/min"}
    assert _hit("sessions", "user:1") is None
    assert _hit("sessions", "user:1") is not None  # the cache works: the second is over
    # Django's setting_changed handler drops the cache connections: now nothing listens.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    assert _hit("sessions", "user:1") is None
    assert _hit("sessions", "user:1") is None


# ---------------------------------------------------------------- the cockpit on the JSON edge

COCKPIT = [
    "call-link",
    "private-notes",
    "canned/0",
    "hints/reveal",
    "settings",
    "chat",
    "questions",
    "notes",
    "events",
    "run",
    "finish",
    "review/cite",
]


def _live_session() -> tuple[Any, Client, Client]:
    problem = tiny_problem()
    interviewer, candidate = logged_in("ivy", "interviewer"), logged_in()
    session = services.session_schedule_live(
        interviewer=interviewer.get("/sessions/").wsgi_request.user,
        problem_slug=problem.slug,
        duration=timedelta(minutes=30),
        candidate=candidate.get("/sessions/").wsgi_request.user,
    )
    services.session_join(token=session.invite_token or "", user=session.candidate)
    return session, interviewer, candidate


@pytest.mark.parametrize("path", COCKPIT)
@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b'{"text": ', "bad_json"),
        (b"[1, 2]", "bad_json"),
        (DEEP, "bad_json"),
    ],
)
def test_a_malformed_body_on_any_cockpit_endpoint_is_a_json_400(
    path: str, body: bytes, code: str
) -> None:
    # given a live session the interviewer runs
    session, interviewer, _ = _live_session()
    # when a malformed body is posted, then the answer is a JSON 400 (it was a 500)
    response = interviewer.post(
        f"/sessions/{session.pk}/{path}", body, content_type="application/json"
    )
    assert response.status_code == 400, path
    assert response.json()["code"] == code


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("call-link", "call_link"),
        ("private-notes", "text"),
        ("chat", "text"),
    ],
)
def test_a_wrong_type_is_refused_by_name(path: str, field: str) -> None:
    session, interviewer, _ = _live_session()
    response = interviewer.post(
        f"/sessions/{session.pk}/{path}", {field: ["a list"]}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {"detail": f"{field} must be a string", "code": "bad_field"}


def test_the_edge_answers_a_wrong_method_and_a_stranger_in_json() -> None:
    session, interviewer, _ = _live_session()
    response = interviewer.get(f"/sessions/{session.pk}/call-link")
    assert response.status_code == 405 and response.json()["code"] == "method_not_allowed"
    assert response["Allow"] == "POST"
    stranger = logged_in("eve")
    response = stranger.post(
        f"/sessions/{session.pk}/private-notes", {"text": "hi"}, content_type="application/json"
    )
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    response = stranger.get(f"/sessions/{session.pk}/state")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_cockpit_endpoints_have_their_rate_limit(settings: Any) -> None:
    session, interviewer, _ = _live_session()
    third = _over_limit(
        settings,
        "session_actions",
        lambda: interviewer.post(
            f"/sessions/{session.pk}/call-link",
            {"call_link": "https://meet.example/x"},
            content_type="application/json",
        ),
    )
    assert third.status_code == 429 and third.json()["code"] == "rate_limited"
