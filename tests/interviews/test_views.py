"""Session pages and JSON endpoints through Django's test client (real database)."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pycrdt
import pytest

from interviews import collab, services
from interviews.models import InterviewSession, ReviewAssignment
from tests.factories import client_for, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db(transaction=True)


def page_state(html: str) -> dict[str, object]:
    """The JSON the session page embeds for its script."""
    start = html.index('<script id="session-state" type="application/json">')
    body = html[start:].split(">", 1)[1].split("</script>", 1)[0]
    state: dict[str, object] = json.loads(body)
    return state


def test_the_list_starts_a_solo_session_whose_page_carries_the_server_deadline() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    client = client_for(candidate)
    assert b"solo-form" in client.get("/sessions/").content

    response = client.post("/sessions/solo/", {"problem": problem.slug, "minutes": "20"})
    session = InterviewSession.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/sessions/{session.pk}/"

    first = client.get(f"/sessions/{session.pk}/").content.decode()
    again = client.get(f"/sessions/{session.pk}/").content.decode()
    assert session.deadline is not None
    # A reload shows the same deadline: the countdown is the server's, not the page's.
    assert page_state(first)["deadline"] == page_state(again)["deadline"]
    assert page_state(first)["deadline"] == session.deadline.isoformat()
    assert page_state(first)["role"] == "candidate" and page_state(first)["can_edit"] is True
    # Result rows show CPU time against the limit the runs are graded on (2 s by default).
    assert 'data-cpu-limit-seconds="2"' in first


def test_bad_durations_come_back_to_the_list_with_the_reason() -> None:
    problem = tiny_problem()
    client = client_for(user_with_role("cand", "candidate"))
    response = client.post(
        "/sessions/solo/", {"problem": problem.slug, "minutes": "nan"}, follow=True
    )
    assert b"number of minutes" in response.content
    assert not InterviewSession.objects.exists()


def test_the_invitation_starts_the_clock_only_on_post_and_others_see_nothing() -> None:
    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    inter = client_for(interviewer)
    inter.post(
        "/sessions/live/", {"problem": problem.slug, "minutes": "30", "interviewer_can_edit": "on"}
    )
    session = InterviewSession.objects.get()
    assert session.kind == "live" and session.interviewer_can_edit is True
    page = inter.get(f"/sessions/{session.pk}/").content.decode()
    assert f"/sessions/join/{session.invite_token}/" in page

    cand = client_for(candidate)
    assert cand.get(f"/sessions/{session.pk}/").status_code == 404  # not yet a participant
    assert cand.get(f"/sessions/join/{session.invite_token}/").status_code == 200
    session.refresh_from_db()
    assert session.status == "scheduled"  # a GET (a link preview) starts nothing
    response = cand.post(f"/sessions/join/{session.invite_token}/")
    assert response.status_code == 302
    session.refresh_from_db()
    assert session.status == "active" and session.candidate_id == candidate.pk
    assert cand.get(f"/sessions/{session.pk}/").status_code == 200

    outsider = client_for(user_with_role("other", "candidate"))
    assert outsider.get(f"/sessions/{session.pk}/").status_code == 404
    assert (
        outsider.post(
            f"/sessions/{session.pk}/run", {"mode": "run"}, content_type="application/json"
        ).status_code
        == 404
    )
    assert outsider.get("/sessions/join/not-a-token/").status_code == 404


def test_json_endpoints_ask_note_run_and_finish() -> None:
    problem = tiny_problem()
    problem.clarifications = [{"question": "Can x be negative?", "answer": "Yes.", "key": True}]
    problem.save()
    candidate = user_with_role("cand", "candidate")
    client = client_for(candidate)
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=10)
    )
    base = f"/sessions/{session.pk}"

    asked = client.post(
        f"{base}/questions", {"text": "May x be negative?"}, content_type="application/json"
    )
    # A solo answer names the canned question it answers (issue 36).
    assert asked.status_code == 201
    assert asked.json()["answer"] == "Answering “Can x be negative?”: Yes."
    noted = client.post(
        f"{base}/notes", {"text": "linear scan is fine"}, content_type="application/json"
    )
    assert noted.status_code == 201 and noted.json()["kind"] == "tradeoff"
    ran = client.post(f"{base}/run", {"mode": "run"}, content_type="application/json")
    assert ran.status_code == 201
    assert client.post(
        f"{base}/events", {"kind": "tab_hidden"}, content_type="application/json"
    ).json() == {"recorded": True}

    finished = client.post(f"{base}/finish")
    assert finished.status_code == 200 and finished.json()["submission"]
    late = client.post(f"{base}/run", {"mode": "run"}, content_type="application/json")
    assert late.status_code == 409 and "over" in late.json()["detail"]

    state = client.get(f"{base}/state").json()
    assert state["status"] == "finished" and state["finish_reason"] == "candidate"
    assert [q["text"] for q in state["questions"]] == ["May x be negative?"]
    assert [s["kind"] for s in state["submissions"]] == ["run", "final_submit"]


def test_replay_data_rebuilds_the_document_and_marks_the_timeline() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=10)
    )
    doc: pycrdt.Doc = pycrdt.Doc()
    text = doc.get(collab.TEXT_NAME, type=pycrdt.Text)
    for _, data in services.doc_updates(session.pk):
        doc.apply_update(data)
    before = doc.get_state()
    text += "x = 1\n"
    services.doc_update_store(
        session_id=session.pk, author_id=candidate.pk, data=doc.get_update(before)
    )
    client = client_for(candidate)
    client.post(f"/sessions/{session.pk}/run", {"mode": "run"}, content_type="application/json")

    data = client.get(f"/sessions/{session.pk}/replay/data").json()
    updates = [base64.b64decode(u["update"]) for u in data["updates"]]
    assert collab.text_from_updates(updates) == problem.starter_code + "x = 1\n"
    assert collab.text_from_updates(updates[:1]) == problem.starter_code
    assert [u["author"] for u in data["updates"]] == ["", "cand"]
    assert [m["kind"] for m in data["marks"]] == ["run"]
    assert all(isinstance(u["t"], int) for u in data["updates"])
    assert b'id="replay"' in client.get(f"/sessions/{session.pk}/replay/").content

    # Interviewers assigned to review the session may replay it; unassigned ones and other
    # candidates may not.
    assigned = user_with_role("int", "interviewer")
    ReviewAssignment.objects.create(session=session, interviewer=assigned)
    assert client_for(assigned).get(f"/sessions/{session.pk}/replay/data").status_code == 200
    unassigned = client_for(user_with_role("int2", "interviewer"))
    assert unassigned.get(f"/sessions/{session.pk}/replay/data").status_code == 404
    stranger = client_for(user_with_role("other", "candidate"))
    assert stranger.get(f"/sessions/{session.pk}/replay/data").status_code == 404


def test_hint_button_reveals_the_next_hint_for_the_candidate_only() -> None:
    problem = tiny_problem()
    problem.hints = ["First hint.", "Second hint."]
    problem.save()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=10)
    )
    client = client_for(candidate)
    page = client.get(f"/sessions/{session.pk}/").content.decode()
    assert 'id="hint-button"' in page and "First hint." not in page
    response = client.post(f"/sessions/{session.pk}/hints")
    assert response.status_code == 200 and "First hint." in response.content.decode()
    assert "First hint." in client.get(f"/sessions/{session.pk}/").content.decode()
    assert client.post(f"/sessions/{session.pk}/hints").status_code == 200
    assert client.post(f"/sessions/{session.pk}/hints").status_code == 204
    stranger = client_for(user_with_role("other", "candidate"))
    assert stranger.post(f"/sessions/{session.pk}/hints").status_code in (403, 404)


def test_a_solo_page_speaks_to_the_candidate_as_the_only_person_there() -> None:
    problem = tiny_problem()
    problem.hints = ["First hint.", "Second hint."]
    problem.save()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=10)
    )
    page = client_for(candidate).get(f"/sessions/{session.pk}/").content.decode()
    assert 'id="solo-mode"' in page and "solo mock interview" in page
    assert "you are the candidate" not in page
    assert "the interviewer" not in page.lower() and "your interviewer" not in page.lower()
    assert "interviewer's record" not in page
    assert "listed in your feedback report, with when you opened them" in page
    assert "Your notes go into your feedback report." in page
