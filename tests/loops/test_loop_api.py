"""Loops in the REST API and its OpenAPI schema, and the `loop.scheduled` webhook (issue 39
point 6): list, detail with rounds, create; the same rules as the pages (a loop the user may
not see is a 404; only interviewers, recruiters and admins build); the webhook signed like the
others, sent after the commit to a real HTTP server on 127.0.0.1 (Celery eager)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from core.tokens import token_create
from interviews.review import webhooks
from loops.models import Loop
from loops.services.scheduling import LOOP_SCHEDULED
from tests.factories import client_for, tiny_problem, user_with_role
from tests.loops.helpers import first_start, interviewer, three_rounds
from tests.webhooks import SECRET, Receiver

pytestmark = pytest.mark.django_db
MARKER = "MARK-LOOP-API-3906"


def body(**extra: Any) -> dict[str, Any]:
    start = first_start()
    return {
        "title": "API onsite", "candidate_email": "ada@example.com",
        "candidate_timezone": "Asia/Tokyo",
        "rounds": [
            {"label": "Coding", "problem": "add-one", "interviewer": "ivy",
             "co_interviewers": ["zoe"], "start": start.isoformat(), "minutes": 45},
            {"label": "Design", "problem": "add-one", "interviewer": "zoe",
             "start": (start + timedelta(minutes=60)).isoformat(), "minutes": 45},
        ],
        **extra,
    }


def token_client(user: Any) -> Client:
    _, secret = token_create(user=user, name="ci")
    return Client(HTTP_AUTHORIZATION=f"Token {secret}")


def test_a_recruiter_creates_a_loop_and_reads_it_back_by_token(
    django_capture_on_commit_callbacks: Any,
) -> None:
    tiny_problem()
    interviewer("ivy")
    interviewer("zoe")
    api = token_client(user_with_role("rita", "recruiter"))
    with django_capture_on_commit_callbacks(execute=False):
        response = api.post("/api/loops/", body(), content_type="application/json")
    assert response.status_code == 201, response.content
    created = response.json()
    loop = Loop.objects.get()
    assert created["loop"]["id"] == loop.pk
    assert created["loop"]["candidate_timezone"] == "Asia/Tokyo"
    assert [(r["position"], r["label"], r["interviewer"], r["co_interviewers"], r["minutes"],
             r["break_minutes"], r["status"]) for r in created["rounds"]] == [
        (1, "Coding", "ivy", ["zoe"], 45, 15, "scheduled"),
        (2, "Design", "zoe", [], 45, 0, "scheduled")]
    detail = api.get(f"/api/loops/{loop.pk}").json()
    assert detail == created
    listed = api.get("/api/loops/").json()["loops"]
    assert [row["id"] for row in listed] == [loop.pk]


@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        ({"rounds": []}, 400, "rounds"),
        ({"title": ""}, 400, "title"),
        ({"candidate_timezone": "Mars/Olympus"}, 400, "not a time zone"),
        ({"rounds": "x"}, 400, "rounds"),
        ({"rounds": [{"problem": "add-one", "interviewer": "ivy", "minutes": 45,
                      "start": "9999-12-31T23:59:00Z"}]}, 400, "more than a year away"),
        ({"rounds": [{"problem": "add-one", "interviewer": "ivy", "start": "nope",
                      "minutes": 45}]}, 400, "rounds"),
    ],
)
def test_bad_bodies_are_a_400_with_the_reason(change: dict[str, Any], status: int,
                                              words: str) -> None:
    tiny_problem()
    interviewer("ivy")
    interviewer("zoe")
    api = token_client(user_with_role("rita", "recruiter"))
    response = api.post("/api/loops/", body(**change), content_type="application/json")
    assert response.status_code == status and words in response.json()["detail"]
    assert not Loop.objects.exists()


def test_overlapping_rounds_are_refused_and_a_candidate_builds_nothing() -> None:
    tiny_problem()
    interviewer("ivy")
    interviewer("zoe")
    api = token_client(user_with_role("rita", "recruiter"))
    overlapping = body()
    overlapping["rounds"][1]["start"] = overlapping["rounds"][0]["start"]
    response = api.post("/api/loops/", overlapping, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"] == "round 2 starts before round 1 ends"
    unknown = body()
    unknown["rounds"][1]["problem"] = "no-such-problem"
    response = api.post("/api/loops/", unknown, content_type="application/json")
    assert response.status_code == 404  # as an unknown problem is everywhere in the API
    assert response.json()["detail"] == "round 2: no published problem 'no-such-problem'"
    candidate = token_client(user_with_role("cara", "candidate"))
    response = candidate.post("/api/loops/", body(), content_type="application/json")
    assert response.status_code == 403
    assert not Loop.objects.exists()
    assert Client().get("/api/loops/").status_code == 401


def test_a_stranger_gets_the_404_of_a_missing_loop_and_never_its_marker(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=False):
        loop = three_rounds()
    Loop.objects.filter(pk=loop.pk).update(title=MARKER)
    for user in (user_with_role("eve", "candidate"), user_with_role("ian", "interviewer")):
        api = token_client(user)
        for url in (f"/api/loops/{loop.pk}", f"/api/loops/{loop.pk + 99}"):
            response = api.get(url)
            assert response.status_code == 404 and MARKER not in response.content.decode()
        assert api.get("/api/loops/").json() == {"loops": []}
    for name in ("ivy", "max", "zoe"):  # the loop's interviewers see it
        api = token_client(User.objects.get(username=name))
        assert MARKER in api.get(f"/api/loops/{loop.pk}").content.decode()


def test_the_schema_describes_the_loop_endpoints() -> None:
    client = client_for(user_with_role("cara", "candidate"))
    response = client.get("/api/schema", HTTP_ACCEPT="application/json")
    text = response.content.decode()
    assert response.status_code == 200
    assert "/api/loops/" in text and "/api/loops/{loop_id}" in text
    assert "loops_create" in text and "LoopDetail" in text


def test_scheduling_a_loop_sends_the_signed_loop_scheduled_webhook_after_the_commit(
    hooks: Receiver, django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as queued:
        loop = three_rounds(user_with_role("rita", "recruiter"))
    assert hooks.received == []  # nothing before the commit
    for callback in queued:
        callback()
    ((headers, raw),) = hooks.received
    payload = json.loads(raw)
    assert headers["x-onsite-event"] == LOOP_SCHEDULED == payload["event"] == "loop.scheduled"
    assert webhooks.verify(raw, SECRET, headers["x-onsite-signature"])
    data = payload["data"]
    assert data["loop"] == loop.pk and data["candidate_timezone"] == "Europe/Berlin"
    assert [(r["position"], r["interviewer"], r["minutes"]) for r in data["rounds"]] == [
        (1, "ivy", 45), (2, "max", 30), (3, "zoe", 45)]
    assert "ada@example.com" not in raw.decode()  # no address leaves in a webhook
    # the same commit queued the one invitation (eager: sent in-process)
    assert sorted(m.to[0] for m in mail.outbox) == [
        "ada@example.com", "ivy@example.com", "max@example.com", "zoe@example.com"]


def test_the_schedule_changes_by_api_as_on_the_page_and_refuses_as_the_page_does() -> None:
    """Move a round, refuse one onto its neighbour (400, nothing changed), cancel a round,
    refuse the last one, move the whole loop; an interviewer of the loop may read it but not
    change it (403); someone who cannot see it gets the missing loop's 404."""
    recruiter = user_with_role("rita", "recruiter")
    loop = three_rounds(recruiter)
    api = token_client(recruiter)
    url = f"/api/loops/{loop.pk}/schedule"
    start = first_start()

    moved = api.post(url, {"action": "round_reschedule", "position": 3,
                           "start": (start + timedelta(minutes=150)).isoformat(),
                           "minutes": 40}, content_type="application/json")
    assert moved.status_code == 200, moved.content
    design = moved.json()["rounds"][2]
    assert design["minutes"] == 40 and design["scheduled_for"].startswith(
        (start + timedelta(minutes=150)).strftime("%Y-%m-%dT%H:%M"))
    assert moved.json()["rounds"][1]["break_minutes"] == 60  # the break was redone

    onto = api.post(url, {"action": "round_reschedule", "position": 2,
                          "start": (start + timedelta(minutes=10)).isoformat(), "minutes": 30},
                    content_type="application/json")
    assert onto.status_code == 400 and onto.json()["code"] == "overlap"
    assert api.get(f"/api/loops/{loop.pk}").json()["rounds"][1]["scheduled_for"].startswith(
        (start + timedelta(minutes=60)).strftime("%Y-%m-%dT%H:%M"))

    for missing in ({"action": "round_reschedule", "position": 2},
                    {"action": "reschedule"}, {"action": "round_cancel"}, {"action": "undo"}):
        refused = api.post(url, missing, content_type="application/json")
        assert refused.status_code == 400 and refused.json()["code"] == "invalid", missing

    assert api.post(url, {"action": "round_cancel", "position": 1},
                    content_type="application/json").status_code == 200
    assert api.post(url, {"action": "round_cancel", "position": 2},
                    content_type="application/json").status_code == 200
    last = api.post(url, {"action": "round_cancel", "position": 3},
                    content_type="application/json")
    assert last.status_code == 409 and last.json()["code"] == "last_round"

    later = api.post(url, {"action": "reschedule",
                           "start": (start + timedelta(days=1)).isoformat()},
                     content_type="application/json")
    assert later.status_code == 200, later.content
    statuses = [r["status"] for r in later.json()["rounds"]]
    assert statuses == ["cancelled", "cancelled", "scheduled"]
    assert later.json()["rounds"][2]["scheduled_for"].startswith(
        (start + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"))

    ivy = token_client(User.objects.get(username="ivy"))
    assert ivy.get(f"/api/loops/{loop.pk}").status_code == 200
    assert ivy.post(url, {"action": "cancel"}, content_type="application/json").status_code == 403
    stranger = token_client(user_with_role("olga", "interviewer"))
    answer = stranger.post(url, {"action": "cancel"}, content_type="application/json")
    assert answer.status_code == 404 and answer.json()["code"] == "not_found"

    assert api.post(url, {"action": "cancel"}, content_type="application/json").status_code == 200
    assert Loop.objects.get(pk=loop.pk).status == Loop.Status.CANCELLED
    again = api.post(url, {"action": "cancel"}, content_type="application/json")
    assert again.status_code == 409 and again.json()["code"] == "conflict"
