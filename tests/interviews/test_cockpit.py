"""The interviewer's cockpit and the shared channels of a live session (issue 14 points 1-2,
issue 13 point 2), through the test client, the real Redis channel layer and the database.

Every private thing is planted with a marker text; the tests read everything that reaches the
candidate (the session page, its state JSON, the replay data, the websocket frames, the report
page and its PDF) and assert no marker is there, while the interviewer's page has them all.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest

from interviews import services
from interviews.models import ChatMessage, InterviewSession, Question, ReviewNote
from interviews.services import SessionError
from problems.models import Problem
from tests.factories import client_for, joined_live_session, tiny_problem, user_with_role
from tests.interviews.pages import page_state
from tests.interviews.ydoc_client import YClient
from tests.pdf import pdf_text
from tests.sockets import run_scenario

pytestmark = pytest.mark.django_db(transaction=True)

PRIVATE = {
    "reference": "REF-MARK-7d1",
    "anchor": "ANCHOR-MARK-2b9",
    "follow_up": "FOLLOWUP-MARK-c44",
    "canned": "CANNED-MARK-e05",
    "hint": "HINT2-MARK-91a",
    "note": "PRIVNOTE-MARK-5f3",
}
REVEALED_HINT = "HINT1-REVEALED-0aa"
SENT_CANNED = "CANNED-SENT-3c2"


def marked_problem() -> Problem:
    problem = tiny_problem()
    problem.reference_code = f"def solve(x):\n    return x + 1  # {PRIVATE['reference']}\n"
    problem.rubric = [
        {
            "criterion": "correctness",
            "weight": 2,
            "strong": "Right on every input.",
            "levels": ["1: wrong", f"2: {PRIVATE['anchor']}", "3: solid", "4: flawless"],
        },
    ]
    problem.follow_ups = [f"What about floats? {PRIVATE['follow_up']}"]
    problem.clarifications = [
        {"question": "Is x an integer?", "answer": f"Yes. {SENT_CANNED}", "key": True},
        {"question": "Can x be negative?", "answer": f"Yes. {PRIVATE['canned']}", "key": False},
    ]
    problem.hints = [f"Add one. {REVEALED_HINT}", f"Really, add one. {PRIVATE['hint']}"]
    problem.save()
    return problem


def live_session(**schedule: Any) -> tuple[InterviewSession, Any, Any]:
    return joined_live_session(marked_problem(), **schedule)


def assert_no_private(text: str, where: str) -> None:
    leaked = [name for name, marker in PRIVATE.items() if marker in text]
    assert leaked == [], f"{where} carries private {leaked}"


# ---------------------------------------------------------------- the side panel


def test_the_interviewer_page_has_the_whole_private_panel_and_the_candidate_page_none() -> None:
    session, candidate, interviewer = live_session()
    services.private_note_add(session_id=session.pk, user=interviewer, text=PRIVATE["note"])

    inter_page = client_for(interviewer).get(f"/sessions/{session.pk}/").content.decode()
    for marker in PRIVATE.values():
        assert marker in inter_page
    assert 'id="reference-panel"' in inter_page and "<details" in inter_page
    assert 'id="private-note-form"' in inter_page and "only you see them" in inter_page
    assert "shared with the candidate" in inter_page  # the shared notes panel says so

    cand = client_for(candidate)
    cand_page = cand.get(f"/sessions/{session.pk}/").content.decode()
    assert_no_private(cand_page, "the candidate's session page")
    assert 'id="cockpit"' not in cand_page and "shared with the interviewer" in cand_page
    assert_no_private(cand.get(f"/sessions/{session.pk}/state").content.decode(), "state JSON")
    assert_no_private(json.dumps(page_state(inter_page)), "the interviewer's state JSON")


def test_private_notes_are_the_interviewers_alone() -> None:
    session, candidate, interviewer = live_session()
    response = client_for(interviewer).post(
        f"/sessions/{session.pk}/private-notes",
        {"text": PRIVATE["note"]},
        content_type="application/json",
    )
    assert response.status_code == 201 and response.json()["text"] == PRIVATE["note"]
    assert ReviewNote.objects.get().author == interviewer
    refused = client_for(candidate).post(
        f"/sessions/{session.pk}/private-notes", {"text": "mine"}, content_type="application/json"
    )
    assert refused.status_code == 403
    empty = client_for(interviewer).post(
        f"/sessions/{session.pk}/private-notes", {"text": " "}, content_type="application/json"
    )
    assert empty.status_code == 400 and "1 to" in empty.json()["detail"]


def test_a_canned_answer_goes_out_in_one_click_to_the_oldest_waiting_question() -> None:
    session, candidate, interviewer = live_session()
    inter = client_for(interviewer)
    none_waiting = inter.post(f"/sessions/{session.pk}/canned/0")
    assert none_waiting.status_code == 400 and "waiting" in none_waiting.json()["detail"]
    services.question_ask(session_id=session.pk, user=candidate, text="Is x an integer?")
    services.question_ask(session_id=session.pk, user=candidate, text="Anything else?")

    answered = inter.post(f"/sessions/{session.pk}/canned/0").json()
    first = Question.objects.order_by("id").first()
    assert first is not None and answered["id"] == first.pk and SENT_CANNED in first.answer
    assert Question.objects.filter(answer_source="").count() == 1
    assert inter.post(f"/sessions/{session.pk}/canned/9").status_code == 404
    assert client_for(candidate).post(f"/sessions/{session.pk}/canned/0").status_code == 403


def test_nothing_private_reaches_the_candidates_socket_or_replay_or_report() -> None:
    session, candidate, interviewer = live_session()

    async def scenario() -> list[str]:
        watcher = YClient(candidate, session.pk)
        await watcher.connect()
        await watcher.drain()

        def act() -> None:
            services.private_note_add(session_id=session.pk, user=interviewer, text=PRIVATE["note"])
            services.question_ask(session_id=session.pk, user=candidate, text="Is x an int?")
            services.canned_answer_send(session_id=session.pk, user=interviewer, index=0)
            services.session_hint_reveal_by_interviewer(session_id=session.pk, user=interviewer)
            services.chat_send(session_id=session.pk, user=interviewer, text="hello there")
            services.session_set_call_link(
                session_id=session.pk, user=interviewer, link="https://meet.example.com/abc"
            )
            services.session_finish_by(session_id=session.pk, user=interviewer)

        from channels.db import database_sync_to_async

        await database_sync_to_async(act)()
        await watcher.drain(timeout=1.0)
        await watcher.disconnect()
        return [json.dumps(event) for event in watcher.events]

    frames = run_scenario(scenario)
    joined = "\n".join(frames)
    assert_no_private(joined, "the candidate's websocket frames")
    # What the interviewer chose to share did arrive: the canned answer, the hint, the chat.
    assert SENT_CANNED in joined and REVEALED_HINT in joined and "hello there" in joined
    assert "meet.example.com/abc" in joined

    cand = client_for(candidate)
    assert_no_private(cand.get(f"/sessions/{session.pk}/replay/data").content.decode(), "replay")
    report = cand.get(f"/sessions/{session.pk}/report/")
    assert report.status_code == 200
    assert_no_private(report.content.decode(), "the report page")
    pdf = cand.get(f"/sessions/{session.pk}/report.pdf")
    assert pdf.content.startswith(b"%PDF-")
    text = pdf_text(pdf.content)
    assert "Add one" in text  # the search does read the PDF's text
    assert_no_private(text, "the report PDF")


def test_the_interviewer_reveals_hints_in_order_and_they_count_as_used() -> None:
    session, candidate, interviewer = live_session()
    inter = client_for(interviewer)
    assert inter.post(f"/sessions/{session.pk}/hints/reveal").json() == {"number": 1}
    assert services.hints_revealed(session) == [f"Add one. {REVEALED_HINT}"]
    page = client_for(candidate).get(f"/sessions/{session.pk}/").content.decode()
    assert REVEALED_HINT in page and PRIVATE["hint"] not in page
    assert inter.post(f"/sessions/{session.pk}/hints/reveal").json() == {"number": 2}
    again = inter.post(f"/sessions/{session.pk}/hints/reveal")
    assert again.status_code == 409 and "already" in again.json()["detail"]
    assert client_for(candidate).post(f"/sessions/{session.pk}/hints/reveal").status_code == 403


def test_a_live_candidate_waits_for_the_interviewer_to_release_each_hint() -> None:
    """Issue 25: in a live session the interviewer releases hints (the session's setting is
    off by default); the candidate's page says so, and a released hint arrives over the
    websocket and stays in a banner after a reload."""
    session, candidate, interviewer = live_session()
    assert session.candidate_opens_hints is False
    cand = client_for(candidate)
    refused = cand.post(f"/sessions/{session.pk}/hints")
    assert refused.status_code == 403 and "interviewer releases" in refused.json()["detail"]
    assert REVEALED_HINT not in refused.content.decode()
    page = cand.get(f"/sessions/{session.pk}/").content.decode()
    assert 'id="hint-button"' not in page and 'id="hint-released-note"' in page
    assert re.search(r'id="hint-banner"[^>]*hidden', page)

    async def scenario() -> list[dict[str, Any]]:
        watcher = YClient(candidate, session.pk)
        await watcher.connect()
        await watcher.drain()
        from channels.db import database_sync_to_async

        await database_sync_to_async(services.session_hint_reveal_by_interviewer)(
            session_id=session.pk, user=interviewer
        )
        await watcher.drain(timeout=1.0)
        await watcher.disconnect()
        return list(watcher.events)

    hints = [e for e in run_scenario(scenario) if e.get("type") == "hint"]
    assert [(e["number"], e["text"]) for e in hints] == [(1, f"Add one. {REVEALED_HINT}")]
    reloaded = cand.get(f"/sessions/{session.pk}/").content.decode()
    banner = reloaded[reloaded.index('id="hint-banner"') :].split("</div>", 1)[0]
    assert "hidden" not in banner.split(">", 1)[0]
    assert "Hint 1 from your interviewer" in banner and REVEALED_HINT in banner
    assert PRIVATE["hint"] not in reloaded
    assert cand.post(f"/sessions/{session.pk}/hints").status_code == 403


def test_the_interviewer_may_let_the_candidate_open_hints_and_solo_keeps_the_button() -> None:
    session, candidate, _ = live_session(candidate_opens_hints=True)
    cand = client_for(candidate)
    assert 'id="hint-button"' in cand.get(f"/sessions/{session.pk}/").content.decode()
    opened = cand.post(f"/sessions/{session.pk}/hints")
    assert opened.status_code == 200 and REVEALED_HINT in opened.content.decode()
    solo = services.session_start_solo(
        candidate=candidate, problem_slug=session.problem.slug, duration=timedelta(minutes=10)
    )
    assert solo.candidate_opens_hints is True
    assert cand.post(f"/sessions/{solo.pk}/hints").status_code == 200


def test_the_schedule_forms_checkbox_is_the_sessions_hint_setting() -> None:
    """The interviewer chooses it when scheduling: off unless ticked."""
    problem = tiny_problem()
    interviewer = client_for(user_with_role("hinter", "interviewer"))
    for extra, opens in (({}, False), ({"candidate_opens_hints": "on"}, True)):
        response = interviewer.post(
            "/sessions/live/", {"problem": problem.slug, "minutes": "45", **extra}
        )
        assert response.status_code == 302, response
        session = InterviewSession.objects.order_by("-id").first()
        assert session is not None and session.candidate_opens_hints is opens


# ---------------------------------------------------------------- talking


def test_the_chat_is_shared_persisted_on_the_replay_and_closes_with_the_session() -> None:
    session, candidate, interviewer = live_session()
    cand, inter = client_for(candidate), client_for(interviewer)
    sent = cand.post(
        f"/sessions/{session.pk}/chat",
        {"text": "Can you hear me?"},
        content_type="application/json",
    )
    assert sent.status_code == 201 and sent.json()["role"] == "candidate"
    inter.post(
        f"/sessions/{session.pk}/chat", {"text": "Loud and clear"}, content_type="application/json"
    )
    state = inter.get(f"/sessions/{session.pk}/state").json()
    assert [m["text"] for m in state["chat"]] == ["Can you hear me?", "Loud and clear"]
    assert [m["text"] for m in cand.get(f"/sessions/{session.pk}/state").json()["chat"]] == [
        "Can you hear me?",
        "Loud and clear",
    ]
    long = cand.post(
        f"/sessions/{session.pk}/chat", {"text": "x" * 5000}, content_type="application/json"
    )
    assert long.status_code == 400 and "characters" in long.json()["detail"]

    services.session_finish_by(session_id=session.pk, user=interviewer)
    marks = inter.get(f"/sessions/{session.pk}/replay/data").json()["marks"]
    assert [m["label"] for m in marks if m["kind"] == "chat"] == [
        "Chat: Can you hear me?",
        "Chat: Loud and clear",
    ]
    late = cand.post(
        f"/sessions/{session.pk}/chat", {"text": "one more"}, content_type="application/json"
    )
    assert late.status_code == 409 and ChatMessage.objects.count() == 2


def test_a_solo_session_has_no_chat() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    with pytest.raises(SessionError):
        services.chat_send(session_id=session.pk, user=candidate, text="hi")
    page = client_for(candidate).get(f"/sessions/{session.pk}/").content.decode()
    assert 'id="chat-panel"' not in page and 'id="call-bar"' not in page


def test_the_call_link_is_set_by_the_interviewer_and_shown_to_both() -> None:
    session, candidate, interviewer = live_session(call_link="https://meet.example.com/first")
    cand, inter = client_for(candidate), client_for(interviewer)
    assert (
        'href="https://meet.example.com/first"'
        in cand.get(f"/sessions/{session.pk}/").content.decode()
    )
    bad = inter.post(
        f"/sessions/{session.pk}/call-link",
        {"call_link": "javascript:alert(1)"},
        content_type="application/json",
    )
    assert bad.status_code == 400 and "http" in bad.json()["detail"]
    assert (
        cand.post(
            f"/sessions/{session.pk}/call-link",
            {"call_link": "https://x.example"},
            content_type="application/json",
        ).status_code
        == 403
    )
    ok = inter.post(
        f"/sessions/{session.pk}/call-link",
        {"call_link": "https://meet.example.com/second"},
        content_type="application/json",
    )
    assert ok.json() == {"call_link": "https://meet.example.com/second"}
    assert cand.get(f"/sessions/{session.pk}/state").json()["call_link"].endswith("/second")
    with pytest.raises(SessionError):
        services.session_schedule_live(
            interviewer=interviewer,
            problem_slug=session.problem.slug,
            duration=timedelta(minutes=30),
            call_link="ftp://nope",
        )


# ---------------------------------------------------------------- the candidate's report


def test_the_report_has_the_final_code_and_the_released_comments_in_html_and_pdf() -> None:
    from interviews.review import services as review

    session, candidate, interviewer = live_session()
    services.chat_send(session_id=session.pk, user=candidate, text="CHAT-IN-REPORT")
    services.session_finish_by(session_id=session.pk, user=interviewer)
    cand = client_for(candidate)
    page = cand.get(f"/sessions/{session.pk}/report/").content.decode()
    assert 'id="report-code"' in page and "def solve(x):" in page
    assert "CHAT-IN-REPORT" in page and 'id="report-unreleased"' in page

    review.scorecard_save(
        session=session,
        user=interviewer,
        recommendation="yes",
        summary="SUMMARY-FOR-CANDIDATE",
        submit=True,
        scores={"correctness": {"level": 3, "comment": "COMMENT-FOR-CANDIDATE"}},
    )
    review.scores_release(session=session, user=interviewer)
    page = cand.get(f"/sessions/{session.pk}/report/").content.decode()
    assert "SUMMARY-FOR-CANDIDATE" in page and "COMMENT-FOR-CANDIDATE" in page
    assert_no_private(page, "the released report")
    text = pdf_text(cand.get(f"/sessions/{session.pk}/report.pdf").content)
    assert "SUMMARY-FOR-CANDIDATE" in text and "COMMENT-FOR-CANDIDATE" in text
    assert "def solve" in text and "CHAT-IN-REPORT" in text
    assert_no_private(text, "the released PDF")


def test_the_report_names_the_rules_the_final_submission_broke() -> None:
    import html

    from grading.models import Submission

    # Given a final submission that broke one rule in every test (results by rule)
    session, candidate, interviewer = live_session()
    services.session_finish_by(session_id=session.pk, user=interviewer)
    session.refresh_from_db()
    assert session.final_submission is not None
    Submission.objects.filter(pk=session.final_submission.pk).update(
        status="done",
        verdict="WA",
        passed=0,
        total=31,
        by_rule={"step results": [31, 31], "tokens": [0, 31]},
    )
    line = "rule 'step results' broken in 31 of 31 tests; every other rule held"

    # When the candidate reads the report, as a page and as a PDF
    cand = client_for(candidate)
    page = html.unescape(cand.get(f"/sessions/{session.pk}/report/").content.decode())
    text = pdf_text(cand.get(f"/sessions/{session.pk}/report.pdf").content)

    # Then both name the broken rule beside the pass count
    assert "0/31 tests passed" in page and line in page
    assert line in " ".join(text.split())


def test_a_solo_report_never_mentions_interviewers() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    services.session_finish_by(session_id=session.pk, user=candidate)
    cand = client_for(candidate)
    page = cand.get(f"/sessions/{session.pk}/report/").content.decode()
    body = page[page.index('id="report"') :]
    assert "nterviewer" not in body and 'id="report-solo"' in body
    assert "nterviewer" not in pdf_text(cand.get(f"/sessions/{session.pk}/report.pdf").content)
    session_page = cand.get(f"/sessions/{session.pk}/").content.decode()
    assert f'data-report-url="/sessions/{session.pk}/report/"' in session_page
