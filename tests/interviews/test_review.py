"""Review: scorecards with evidence, suggestions, independent scoring, release, reports,
share links, practice history (Django's test client, real database).

`build_world` is shared with test_permissions.py and test_review_webhooks.py.
"""

from __future__ import annotations

import re
from datetime import UTC, timedelta

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.html import escape

from grading.models import Submission, TestResult
from interviews.models import (
    InterviewSession,
    Note,
    Question,
    Scorecard,
    SessionEvent,
)
from interviews.review import charts, services, suggest
from interviews.review.selectors import practice_history
from interviews.services import SessionError
from tests.factories import client_for, tiny_problem, user_with_role
from tests.interviews.worlds import (
    PRIVATE_NOTE,
    RUBRIC,
    SECRET_INPUT,
    World,
    _submission,
    build_world,
    full_scores,
    solo_world,
)

pytestmark = pytest.mark.django_db

CRITERIA: list[str] = [str(row["criterion"]) for row in RUBRIC]


def cited(world: World) -> list[object]:
    """The chips' tokens for 02:00, the passing run and the question (what the form posts)."""
    return ["moment:120000", f"submission:{world.passing.pk}", f"question:{world.question.pk}"]


# ---------------------------------------------------------------- signals and suggestions


def test_signals_read_hidden_pass_rates_key_questions_and_first_pass() -> None:
    world = build_world()
    signals = suggest.session_signals(world.session)
    assert signals.hidden_by_tag == {"correctness": (2, 2), "edge_cases": (0, 1)}
    assert [(k.index, k.asked, k.question_id) for k in signals.key_questions] == [
        (0, True, world.question.pk),
        (1, False, None),
    ]
    assert signals.key_questions[0].at_ms == 120_000
    assert signals.first_pass_ms == 600_000 and signals.first_pass_submission == world.passing.pk
    assert signals.hints_used == 0  # no hint was opened in this session

    hints = suggest.suggestions(signals, [r["criterion"] for r in RUBRIC])
    # Every hidden correctness test passed at the end, but the first run failed one: a 4
    # ("right on the first pass") would be a claim the runs contradict.
    assert hints["correctness"].level == 3 and hints["edge_cases"].level == 1
    assert hints["correctness"].why == (
        "final submission passed 2/2 hidden correctness tests; not on the first pass: "
        "the first run passed 1/2, every test passed from run 2"
    )
    assert hints["clarifying_questions"].level == 3  # one of the two key questions
    assert hints["clarifying_questions"].why == (
        "1 of 2 key clarifying questions asked, 1 question in all before the first run"
    )


def _history(world: World, first: list[str]) -> None:
    """Replace the world's first run by one with these public verdicts."""
    world.run.results.all().delete()
    for index, verdict in enumerate(first):
        TestResult.objects.create(
            submission=world.run,
            index=index,
            name=f"p{index}",
            hidden=False,
            tag="correctness",
            verdict=verdict,
        )
    world.run.passed = first.count("AC")
    world.run.total = len(first)
    world.run.verdict = "AC" if world.run.passed == len(first) else "WA"
    world.run.save()


def test_a_failed_first_run_never_suggests_right_on_the_first_pass() -> None:
    """Issue 27: after a 0/4 first run the correctness suggestion said "correct everywhere on
    the first pass" (level 4, from the final pass rate alone)."""
    world = build_world()
    _history(world, ["WA", "WA", "WA", "WA"])
    criteria = CRITERIA
    hints = suggest.suggestions(suggest.session_signals(world.session), criteria)
    assert hints["correctness"].level == 3
    assert "the first run passed 0/4" in hints["correctness"].why
    assert "every test passed from run 2" in hints["correctness"].why
    # The same claim for the same class of signal: no edge-case 4 after a failed first run.
    TestResult.objects.filter(submission=world.final, name="secret 1").update(verdict="AC")
    hints = suggest.suggestions(suggest.session_signals(world.session), criteria)
    assert hints["edge_cases"].level == 3 and "0/4" in hints["edge_cases"].why

    # A first run that passed everything it ran does earn the 4, and says so.
    _history(world, ["AC", "AC", "AC", "AC"])
    hints = suggest.suggestions(suggest.session_signals(world.session), criteria)
    assert hints["correctness"].level == 4
    assert hints["correctness"].why.endswith("the first run passed 4/4")


def test_key_questions_asked_only_after_the_first_run_are_no_4() -> None:
    world = build_world()
    start = world.session.started_at
    assert start is not None
    Question.objects.create(
        session=world.session,
        asked_by=world.owner,
        text="How large is x?",
        answer="64-bit.",
        asked_at=start + timedelta(minutes=7),
        answer_source="interviewer",
        matched_index=1,
        matched_key=True,
    )
    hints = suggest.suggestions(suggest.session_signals(world.session), CRITERIA)
    assert hints["clarifying_questions"].level == 3
    assert hints["clarifying_questions"].why == (
        "2 of 2 key clarifying questions asked, 1 of them only after the first run, "
        "1 question in all before the first run"
    )


def test_a_run_still_grading_is_no_first_run() -> None:
    world = build_world()
    Submission.objects.filter(pk=world.run.pk).update(status="running")
    signals = suggest.session_signals(world.session)
    assert [r.number for r in signals.runs] == [2, 3]  # numbered as the page numbers them
    hints = suggest.suggestions(signals, CRITERIA)
    assert hints["correctness"].level == 4  # run 2, the first graded, passed 2/2


def test_suggestions_are_shown_beside_each_criterion_and_never_preselected() -> None:
    world = build_world()
    client = client_for(world.assigned)
    page = client.get(f"/sessions/{world.session.pk}/review/").content.decode()
    assert re.findall(r'name="level-\w+" value="\d" checked', page) == []
    assert '<span class="suggestion-badge">Suggested 3</span> final submission passed 2/2' in page
    assert "<legend>Edge cases " in page and "<legend>Clarifying questions " in page
    assert "<legend>edge_cases" not in page
    # Reviewers see every test, hidden ones with their inputs, and the private notes.
    assert "secret 1" in page and SECRET_INPUT in page and PRIVATE_NOTE in page
    assert f'href="/sessions/{world.session.pk}/replay/"' in page

    scores = {"recommendation": "yes", "summary": "ok", "action": "save"}
    for row in RUBRIC:
        scores[f"level-{row['criterion']}"] = "2"
        scores[f"evidence-{row['criterion']}"] = cited(world)  # type: ignore[assignment]
    assert client.post(f"/sessions/{world.session.pk}/review/scorecard", scores).status_code == 302
    card = Scorecard.objects.get(session=world.session, interviewer=world.assigned)
    correctness = card.scores.get(criterion="correctness")
    assert correctness.level == 2  # the interviewer's choice wins over the suggested 4
    assert correctness.evidence == [
        {"kind": "moment", "value": 120_000},
        {"kind": "submission", "value": world.passing.pk},
        {"kind": "question", "value": world.question.pk},
    ]
    assert card.submitted_at is None
    page = client.get(f"/sessions/{world.session.pk}/review/").content.decode()
    for token in cited(world):  # the saved chips come back as the form's hidden inputs
        assert f'name="evidence-correctness" value="{token}"' in page


def test_evidence_must_point_into_this_session() -> None:
    world = build_world()
    foreign = _submission(world.other, world.session.problem, "run", "AC", [])
    for bad in (
        f"submission:{foreign.pk}",
        "question:999999",
        "moment:3540000",
        "moment:aa",
        "line:3",
        {"kind": "moment", "value": -1},
    ):
        with pytest.raises(SessionError) as caught:
            services.scorecard_save(
                session=world.session,
                user=world.assigned,
                recommendation="",
                summary="",
                scores=full_scores(evidence=[bad]),
                submit=False,
            )
        assert caught.value.code == "bad_evidence", bad


def test_submitting_needs_every_level_and_a_recommendation_and_then_locks() -> None:
    world = build_world()
    scores = full_scores()
    scores["edge_cases"]["level"] = ""
    with pytest.raises(SessionError, match="Edge cases"):
        services.scorecard_save(
            session=world.session,
            user=world.assigned,
            recommendation="yes",
            summary="",
            scores=scores,
            submit=True,
        )
    with pytest.raises(SessionError, match="recommendation"):
        services.scorecard_save(
            session=world.session,
            user=world.assigned,
            recommendation="",
            summary="",
            scores=full_scores(),
            submit=True,
        )
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary="",
        scores=full_scores(),
        submit=True,
    )
    with pytest.raises(SessionError) as caught:
        services.scorecard_save(
            session=world.session,
            user=world.assigned,
            recommendation="no",
            summary="",
            scores=full_scores(1),
            submit=False,
        )
    assert caught.value.code == "submitted"


def test_authors_neither_read_nor_score_a_candidates_session() -> None:
    """Issue 13: the author role alone gave every session's review page, notes and scores."""
    world = build_world()
    with pytest.raises(SessionError) as caught:
        services.scorecard_save(
            session=world.session,
            user=world.author,
            recommendation="yes",
            summary="",
            scores=full_scores(),
            submit=False,
        )
    assert caught.value.code == "not_found"
    response = client_for(world.author).get(f"/sessions/{world.session.pk}/review/")
    assert response.status_code == 404
    assert PRIVATE_NOTE not in response.content.decode()


def test_each_interviewer_sees_the_others_scores_only_after_submitting() -> None:
    world = build_world()
    second = user_with_role("second", "interviewer")
    services.reviewer_assign(session=world.session, user=world.admin, username="second")
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="strong_yes",
        summary="",
        scores=full_scores(4),
        submit=True,
    )
    client = client_for(second)
    page = client.get(f"/sessions/{world.session.pk}/review/").content.decode()
    assert 'id="others-hidden"' in page and "c-correctness" not in page
    assert 'id="side-by-side"' not in page
    api = client.get(f"/api/review/sessions/{world.session.pk}/scores").json()
    assert api["others"] == [] and api["others_hidden"] is True

    services.scorecard_save(
        session=world.session,
        user=second,
        recommendation="no",
        summary="",
        scores=full_scores(2),
        submit=True,
    )
    page = client.get(f"/sessions/{world.session.pk}/review/").content.decode()
    assert "others-hidden" not in page and "c-correctness" in page
    table = page[
        page.index('id="side-by-side"') : page.index("</table>", page.index("side-by-side"))
    ]
    assert '<th scope="col">second</th><th scope="col">assigned</th>' in table
    assert "<strong>No</strong>" in table and "<strong>Strong yes</strong>" in table
    api = client.get(f"/api/review/sessions/{world.session.pk}/scores").json()
    assert [c["interviewer"] for c in api["others"]] == ["assigned"]
    # An admin who has not started a scorecard reads them all.
    api = client_for(world.admin).get(f"/api/review/sessions/{world.session.pk}/scores").json()
    assert sorted(c["interviewer"] for c in api["others"]) == ["assigned", "second"]


def test_the_lead_and_staff_assign_and_only_interviewers_can_be_assigned() -> None:
    """The session's own interviewer adds co-interviewers, as admins do (issue 27); the
    candidate, an author, or a co-interviewer added to the panel may not."""
    world = build_world()
    for refused in (world.owner, world.author, world.unassigned):
        with pytest.raises(SessionError) as caught:
            services.reviewer_assign(session=world.session, user=refused, username="unassigned")
        assert caught.value.code == "forbidden"
    with pytest.raises(SessionError):
        services.reviewer_assign(session=world.session, user=world.admin, username="other")
    services.reviewer_assign(session=world.session, user=world.assigned, username="unassigned")
    assert (
        client_for(world.unassigned).get(f"/sessions/{world.session.pk}/review/").status_code == 200
    )
    with pytest.raises(SessionError) as caught:  # on the panel now, but not the lead
        services.reviewer_assign(session=world.session, user=world.unassigned, username="admin")
    assert caught.value.code == "forbidden"


# ---------------------------------------------------------------- dashboard


def test_the_dashboard_filters_by_status_problem_candidate_and_dates() -> None:
    world = build_world()
    other_problem = tiny_problem("other-problem")
    InterviewSession.objects.create(
        problem=other_problem,
        candidate=world.other,
        interviewer=world.assigned,
        kind="live",
        status="scheduled",
        duration=timedelta(minutes=30),
    )
    client = client_for(world.assigned)

    def listed(query: str) -> list[int]:
        page = client.get("/sessions/review/" + query).content.decode()
        return [int(x) for x in re.findall(r'<tr data-session="(\d+)"', page)]

    assert len(listed("")) == 2
    assert listed("?status=finished") == [world.session.pk]
    assert listed("?problem=add-one") == [world.session.pk]
    assert listed("?candidate=own") == [world.session.pk]
    # Both interviews fell within the last hour: yesterday and today (UTC) cover them at any
    # time of day, the first half hour after midnight included.
    today = timezone.now().astimezone(UTC).date()
    assert len(listed(f"?from={today - timedelta(days=1)}&to={today}")) == 2
    assert listed(f"?from={today + timedelta(days=1)}") == []
    assert len(listed("?from=not-a-date")) == 2
    assert (
        f'href="/sessions/{world.session.pk}/review/"'
        in client.get("/sessions/review/").content.decode()
    )


# ---------------------------------------------------------------- report


def test_the_report_shows_hidden_tests_only_as_aggregates_and_scores_once_released() -> None:
    world = build_world()
    client = client_for(world.owner)
    page = client.get(f"/sessions/{world.session.pk}/report/").content.decode()
    assert "secret 1" not in page and SECRET_INPUT not in page and PRIVATE_NOTE not in page
    assert 'data-tag="edge_cases"' in page and "0/1 passed" in page and "2/2 passed" in page
    assert 'id="report-unreleased"' in page
    assert "STRONG-CORRECTNESS" in page
    # A live interview's follow-ups are the interviewer's private material (issue 13).
    assert "FOLLOW-UP: what if x is a float?" not in page
    assert "<svg" in page and 'class="run"' in page and 'class="question"' in page

    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary="SUMMARY-ON-RELEASE",
        scores=full_scores(3),
        submit=True,
    )
    page = client.get(f"/sessions/{world.session.pk}/report/").content.decode()
    assert 'id="report-unreleased"' in page and "3.0 / 4" not in page  # submitted, not released
    assert "c-correctness" not in page and "SUMMARY-ON-RELEASE" not in page
    with pytest.raises(SessionError):
        services.scores_release(session=world.session, user=world.owner)
    services.scores_release(session=world.session, user=world.assigned)
    page = client.get(f"/sessions/{world.session.pk}/report/").content.decode()
    assert "<strong>Correctness</strong>: 3.0 / 4 — solid" in page
    assert 'id="report-weighted">3.0<' in page
    assert 'id="report-recommendation">Yes<' in page
    # Released: the interviewers' comments and summaries come with the levels (issue 14);
    # the private notes never do.
    assert "c-correctness" in page and "SUMMARY-ON-RELEASE" in page
    assert PRIVATE_NOTE not in page and "Interviewer 1" in page


def test_the_pdf_export_is_a_pdf_with_the_report() -> None:
    world = build_world()
    response = client_for(world.owner).get(f"/sessions/{world.session.pk}/report.pdf")
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")
    assert b"secret 1" not in response.content  # hidden test names never reach the PDF


def test_share_links_are_unguessable_and_revocable() -> None:
    world = build_world()
    client = client_for(world.owner)
    response = client.post(f"/sessions/{world.session.pk}/report/share")
    assert response.status_code == 302
    share = world.session.report_shares.get()
    assert len(share.token) >= 43  # 256 bits, URL-safe base64
    anonymous = Client()
    assert anonymous.get(f"/sessions/shared/{share.token}/").status_code == 200
    pdf = anonymous.get(f"/sessions/shared/{share.token}/pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
    assert anonymous.get(f"/sessions/shared/{share.token}x/").status_code == 404
    assert (
        client_for(world.other)
        .post(f"/sessions/{world.session.pk}/report/share/{share.pk}/revoke")
        .status_code
        == 404
    )
    client.post(f"/sessions/{world.session.pk}/report/share/{share.pk}/revoke")
    assert anonymous.get(f"/sessions/shared/{share.token}/").status_code == 404
    assert anonymous.get(f"/sessions/shared/{share.token}/pdf").status_code == 404


def test_no_report_before_the_session_is_over() -> None:
    world = build_world()
    world.session.status = "active"
    world.session.save()
    assert client_for(world.owner).get(f"/sessions/{world.session.pk}/report/").status_code == 404


def test_timeline_text_is_escaped_in_the_svg() -> None:
    svg = charts.timeline_svg(
        duration_ms=1000,
        edits_ms=[10],
        marks=[charts.Mark(5, "question", "<script>alert(1)</script>")],
    )
    assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_a_solo_report_has_the_candidates_notes_and_the_hints_opened_with_their_times() -> None:
    world, solo = solo_world()
    hints = list(solo.problem.hints)
    page = client_for(world.owner).get(f"/sessions/{solo.pk}/report/").content.decode()
    notes = page[page.index('id="report-notes"') : page.index('id="report-hints"')]
    assert "OWN-NOTE: a dict keeps O(1)" in notes and "03:00" in notes and "Trade-off" in notes
    opened = page[page.index('id="report-hints"') : page.index('id="report-code"')]
    assert "<strong>Hint 1</strong>" in opened and "04:00" in opened
    assert "<strong>Hint 2</strong>" in opened and "09:00" in opened
    assert all(escape(text) in opened for text in hints[:2]) and "HINT-THREE" not in page
    assert 'id="report-hint-count">2<' in page
    assert PRIVATE_NOTE not in page
    # Solo speaks to the one person who was there.
    assert "solo mock interview" in page
    assert "interviewer" not in page.lower().replace("interviews/", "")
    pdf = client_for(world.owner).get(f"/sessions/{solo.pk}/report.pdf").content
    assert pdf.startswith(b"%PDF-")


def test_a_share_link_carries_neither_the_notes_nor_the_hints() -> None:
    world, solo = solo_world()
    client_for(world.owner).post(f"/sessions/{solo.pk}/report/share")
    token = solo.report_shares.get().token
    page = Client().get(f"/sessions/shared/{token}/").content.decode()
    assert "OWN-NOTE" not in page and 'id="report-hints"' not in page
    assert 'id="report-notes"' not in page and PRIVATE_NOTE not in page


def test_a_live_report_lists_the_candidates_own_notes_only() -> None:
    world = build_world()
    at = world.session.started_at + timedelta(minutes=6)
    Note.objects.create(
        session=world.session,
        author=world.owner,
        kind="note",
        text="CANDIDATE-SHARED-NOTE",
        created_at=at,
    )
    Note.objects.create(
        session=world.session,
        author=world.assigned,
        kind="note",
        text="INTERVIEWER-SHARED-NOTE",
        created_at=at,
    )
    page = client_for(world.owner).get(f"/sessions/{world.session.pk}/report/").content.decode()
    assert "CANDIDATE-SHARED-NOTE" in page and "INTERVIEWER-SHARED-NOTE" not in page
    assert PRIVATE_NOTE not in page


# ---------------------------------------------------------------- practice history


def test_practice_history_lists_sessions_and_charts_released_levels() -> None:
    world = build_world()
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary="",
        scores=full_scores(3),
        submit=True,
    )
    history = practice_history(world.owner)
    assert [r["session"].pk for r in history["rows"]] == [world.session.pk]
    assert history["scored"] is False  # not released yet
    services.scores_release(session=world.session, user=world.assigned)
    page = client_for(world.owner).get("/sessions/history/").content.decode()
    assert f'href="/sessions/{world.session.pk}/report/"' in page
    assert 'data-criterion="edge_cases"' in page
    assert 'class="verdict verdict-WA">WA</span> <span class="history-passed">4/5<' in page
    assert (
        client_for(world.other).get("/sessions/history/").content.decode().count("<tr data-session")
        == 0
    )


def test_submitted_evidence_links_to_the_replay_the_run_and_the_question() -> None:
    world = build_world()
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary="",
        scores=full_scores(3, cited(world)),
        submit=True,
    )
    page = client_for(world.assigned).get(f"/sessions/{world.session.pk}/review/").content.decode()
    sid = world.session.pk
    assert f'class="evidence-link" href="/sessions/{sid}/replay/#t=120000"' in page
    assert f'class="evidence-link" href="#sub-{world.passing.pk}"' in page
    assert f'class="evidence-link" href="#q-{world.question.pk}"' in page
    assert f'id="sub-{world.passing.pk}"' in page and f'id="q-{world.question.pk}"' in page


def test_the_outcome_averages_reviewers_per_criterion_weighted_by_the_rubric() -> None:
    world = build_world()
    second = user_with_role("second", "interviewer")
    services.reviewer_assign(session=world.session, user=world.admin, username="second")
    low = full_scores(1)
    low["correctness"]["level"] = 4
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="strong_yes",
        summary="",
        scores=full_scores(4),
        submit=True,
    )
    services.scorecard_save(
        session=world.session, user=second, recommendation="no", summary="", scores=low, submit=True
    )
    services.scores_release(session=world.session, user=world.admin)
    from interviews.review.selectors import released_outcome

    outcome = released_outcome(world.session)
    assert outcome is not None
    levels = {row["criterion"]: row["level"] for row in outcome["criteria"]}
    assert levels == {"correctness": 4.0, "edge_cases": 2.5, "clarifying_questions": 2.5}
    described = {row["criterion"]: row["description"] for row in outcome["criteria"]}
    assert described["edge_cases"] == "most"  # 2.5 is read as 3, halves up
    assert outcome["weighted"] == round((4 * 3 + 2.5 * 2 + 2.5 * 1) / 6, 2)
    assert outcome["recommendation"] == "Yes"  # mean of strong yes (4) and no (2) is yes (3)


# ---------------------------------------------------------------- scoring in clicks (issue 14)


def test_a_refused_rubric_form_comes_back_with_every_value_as_typed() -> None:
    world = build_world()
    client = client_for(world.assigned)
    form = {"recommendation": "yes", "summary": "SUMMARY-KEPT", "action": "save"}
    for row in RUBRIC:
        form[f"level-{row['criterion']}"] = "2"
        form[f"comment-{row['criterion']}"] = f"KEPT-{row['criterion']}"
    form[f"evidence-{RUBRIC[0]['criterion']}"] = "moment:3540000"  # past the end: refused
    response = client.post(f"/sessions/{world.session.pk}/review/scorecard", form)
    assert response.status_code == 400
    page = response.content.decode()
    assert 'role="alert"' in page and "SUMMARY-KEPT" in page and 'value="moment:3540000"' in page
    for row in RUBRIC:
        assert f"KEPT-{row['criterion']}" in page
        assert f'name="level-{row["criterion"]}" value="2" checked' in page
    assert '<option value="yes" selected>' in page
    assert not Scorecard.objects.filter(session=world.session).exists()


def test_the_draft_autosaves_as_json_and_never_submits() -> None:
    world = build_world()
    client = client_for(world.assigned)
    form = {
        "recommendation": "no",
        "summary": "draft",
        "action": "submit",
        f"level-{RUBRIC[0]['criterion']}": "3",
    }
    saved = client.post(
        f"/sessions/{world.session.pk}/review/scorecard", form, headers={"X-Autosave": "1"}
    )
    assert saved.status_code == 200 and "saved_at" in saved.json()
    card = Scorecard.objects.get(session=world.session, interviewer=world.assigned)
    assert card.submitted_at is None and card.summary == "draft"
    bad = client.post(
        f"/sessions/{world.session.pk}/review/scorecard",
        form | {f"evidence-{RUBRIC[0]['criterion']}": "nonsense:1"},
        headers={"X-Autosave": "1"},
    )
    assert bad.status_code == 400 and bad.json()["detail"]


def test_pastes_and_measured_tab_leaves_have_their_own_line_not_a_criterions_reason() -> None:
    world = build_world()
    at = world.session.started_at
    assert at is not None
    SessionEvent.objects.create(
        session=world.session, kind="paste", at=at + timedelta(minutes=6), data={"chars": 420}
    )
    for kind, seconds in (
        ("tab_hidden", 420),
        ("tab_visible", 465),  # 45 s away
        ("tab_hidden", 600),
        ("tab_visible", 601),
    ):  # a flicker
        SessionEvent.objects.create(
            session=world.session, kind=kind, at=at + timedelta(seconds=seconds)
        )
    page = client_for(world.assigned).get(f"/sessions/{world.session.pk}/review/").content.decode()
    assert (
        "1 large paste (420 characters) and left the tab 1 time (45 s away in all); "
        "1 shorter leave (under 2 s) not counted"
    ) in page
    suggestion = page[page.index('class="suggestion"') :].split("</p>", 1)[0]
    assert "hidden" in suggestion and "paste" not in suggestion and "tab" not in suggestion
    assert "sub=" not in page.replace('data-evidence="sub=', "") and " ms)" not in page


def test_the_dashboard_shows_score_recommendation_and_status_and_sorts_by_score() -> None:
    world = build_world()
    low = InterviewSession.objects.create(
        problem=world.session.problem,
        candidate=world.other,
        interviewer=world.assigned,
        kind="live",
        status="finished",
        duration=timedelta(minutes=30),
        started_at=world.session.started_at,
        finished_at=world.session.finished_at,
    )
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary="",
        scores=full_scores(3),
        submit=True,
    )
    services.scorecard_save(
        session=low,
        user=world.assigned,
        recommendation="no",
        summary="",
        scores=full_scores(1),
        submit=True,
    )
    client = client_for(world.assigned)
    page = client.get("/sessions/review/?sort=-score").content.decode()
    table = page[page.index('id="review-sessions"') :]
    assert "3.0<span" in table and "1.0<span" in table
    assert table.index(f'data-session="{world.session.pk}"') < table.index(
        f'data-session="{low.pk}"'
    )
    assert ">Yes<" in table and ">No<" in table and "1 of 1" in table
    ascending = client.get("/sessions/review/?sort=score").content.decode()
    assert ascending.index(f'data-session="{low.pk}"') < ascending.index(
        f'data-session="{world.session.pk}"'
    )
    assert "Score ▲" in ascending
    assert client.get("/sessions/review/?sort=evil").status_code == 200  # ignored, not a 500


def test_each_run_shows_its_code_and_the_diff_to_the_previous_run() -> None:
    world = build_world()
    Submission.objects.filter(pk=world.run.pk).update(code="def solve(x):\n    return x\n")
    Submission.objects.filter(pk=world.passing.pk).update(code="def solve(x):\n    return x + 1\n")
    page = client_for(world.assigned).get(f"/sessions/{world.session.pk}/review/").content.decode()
    runs = page[page.index('id="runs"') :]
    assert "Run 1" in runs and "Run 2" in runs and "Changes since run 1" in runs
    diff = runs[
        runs.index('<pre class="diff') : runs.index("</pre>", runs.index('<pre class="diff'))
    ]
    lines = re.findall(r'<span class="diff-(\w+)">((?:(?!<span class="diff-).)*)</span>', diff)
    text = [(kind, re.sub(r"<[^>]+>", "", body)) for kind, body in lines]
    assert ("del", "-    return x") in text and ("add", "+    return x + 1") in text
    # Single-spaced: each line is one block, with no newline of its own between them; and the
    # code is highlighted (Pygments' classes; pygments.css colours them).
    assert "\n" not in diff and '<span class="k">return</span>' in diff
    assert 'class="codehilite"' in runs and "frontend/pygments.css" in page
    assert "sub=" not in runs.replace('data-evidence="sub=', "")


# ---------------------------------------------------------------- evidence chips (issue 14)


def test_a_foreign_run_is_a_field_error_and_the_form_keeps_every_other_chip() -> None:
    world = build_world()
    foreign = _submission(world.other, world.session.problem, "run", "AC", [])
    client = client_for(world.assigned)
    form: dict[str, object] = {"recommendation": "no", "summary": "SUMMARY-KEPT", "action": "save"}
    for row in RUBRIC:
        form[f"level-{row['criterion']}"] = "3"
        form[f"comment-{row['criterion']}"] = f"KEPT-{row['criterion']}"
        form[f"evidence-{row['criterion']}"] = cited(world)
    form["evidence-edge_cases"] = [*cited(world), f"submission:{foreign.pk}"]
    response = client.post(f"/sessions/{world.session.pk}/review/scorecard", form)
    assert response.status_code == 400
    page = response.content.decode()
    # The error sits beside its criterion, and names no other session's data.
    assert 'id="error-edge_cases"' in page and 'id="error-correctness"' not in page
    assert "not one of this session" in page
    assert page.count(f'value="submission:{foreign.pk}"') == 1
    assert 'class="chip chip-bad"' in page
    for row in RUBRIC:
        for token in cited(world):
            assert f'name="evidence-{row["criterion"]}" value="{token}"' in page
        assert f"KEPT-{row['criterion']}" in page
    assert "SUMMARY-KEPT" in page and '<option value="no" selected>' in page
    assert not Scorecard.objects.filter(session=world.session).exists()


def test_chips_read_as_what_happened_never_as_codes() -> None:
    world = build_world()
    at = world.session.started_at
    assert at is not None
    SessionEvent.objects.create(
        session=world.session,
        kind="paste",
        at=at + timedelta(minutes=3, seconds=12),
        data={"chars": 40},
    )
    evidence = ["moment:192000", f"submission:{world.passing.pk}", f"question:{world.question.pk}"]
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="",
        summary="",
        scores=full_scores(3, evidence),
        submit=False,
    )
    page = client_for(world.assigned).get(f"/sessions/{world.session.pk}/review/").content.decode()
    form = page[page.index('id="scorecard-form"') :]
    assert ">03:12 pasted 40 chars</a>" in form
    assert re.search(r">Run \d+( \(final\))? · \d+/\d+ passed</a>", form)
    assert f">Question: {world.question.text}</a>" in form
    assert "t=03:12" not in page and "sub=" not in page and "q=" not in form


def test_citing_from_the_replay_adds_to_the_draft_once_and_refuses_what_is_not_evidence() -> None:
    world = build_world()
    client = client_for(world.assigned)
    url = f"/sessions/{world.session.pk}/review/cite"
    token = f"submission:{world.passing.pk}"
    for _ in range(2):
        answer = client.post(
            url, {"criterion": "correctness", "evidence": token}, content_type="application/json"
        )
        assert answer.status_code == 200 and answer.json()["label"].startswith("Run ")
    moment = client.post(
        url,
        {"criterion": "correctness", "evidence": "moment:120400"},
        content_type="application/json",
    )
    assert moment.json()["count"] == 2
    score = Scorecard.objects.get(session=world.session).scores.get(criterion="correctness")
    assert score.evidence == [
        {"kind": "submission", "value": world.passing.pk},
        {"kind": "moment", "value": 120_000},
    ]
    foreign = _submission(world.other, world.session.problem, "run", "AC", [])
    for body in (
        {"criterion": "correctness", "evidence": f"submission:{foreign.pk}"},
        {"criterion": "nope", "evidence": token},
        {"criterion": "correctness", "evidence": "moment:99999999"},
        {"criterion": "correctness", "evidence": "t=02:00"},
    ):
        refused = client.post(url, body, content_type="application/json")
        assert refused.status_code == 400 and refused.json()["detail"], body
    assert client.post(url, "[1]", content_type="application/json").status_code == 400
    # Nobody else adds to it: the candidate and an unassigned interviewer see no session.
    for outsider in (world.owner, world.unassigned):
        assert (
            client_for(outsider)
            .post(
                url,
                {"criterion": "correctness", "evidence": token},
                content_type="application/json",
            )
            .status_code
            == 404
        )
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary="",
        scores=full_scores(3),
        submit=True,
    )
    late = client.post(
        url, {"criterion": "correctness", "evidence": token}, content_type="application/json"
    )
    assert late.status_code == 409


def test_the_released_report_shows_the_evidence_as_labels_without_links() -> None:
    world = build_world()
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary="",
        scores=full_scores(3, cited(world)),
        submit=True,
    )
    services.scores_release(session=world.session, user=world.admin)
    page = client_for(world.owner).get(f"/sessions/{world.session.pk}/report/").content.decode()
    evidence = page[page.index('class="evidence-chips report-evidence"') :]
    assert f"Question: {world.question.text}" in evidence and "02:00 " in evidence
    assert "evidence-link" not in page and "#sub-" not in page and "data-token" not in page
    assert f"submission:{world.passing.pk}" not in page and "moment:" not in page


# ---------------------------------------------------------------- amending (issue 27)


def _form(level: int, summary: str, recommendation: str = "yes") -> dict[str, object]:
    form: dict[str, object] = {
        "recommendation": recommendation,
        "summary": summary,
        "action": "submit",
    }
    for row in RUBRIC:
        form[f"level-{row['criterion']}"] = str(level)
        form[f"comment-{row['criterion']}"] = f"c-{row['criterion']}"
    return form


def test_a_submitted_card_shows_its_summary_and_is_amended_until_release() -> None:
    world = build_world()
    client = client_for(world.assigned)
    url = f"/sessions/{world.session.pk}/review/"
    assert client.post(url + "scorecard", _form(3, "FIRST-SUMMARY")).status_code == 302
    page = client.get(url).content.decode()
    assert 'id="own-summary">FIRST-SUMMARY<' in page and 'id="own-recommendation">Yes<' in page
    assert 'id="amend-form"' in page and 'id="card-history"' not in page
    # The candidate reads nothing of it before release.
    report = client_for(world.owner).get(f"/sessions/{world.session.pk}/report/").content.decode()
    assert "FIRST-SUMMARY" not in report

    form = _form(3, "SECOND-SUMMARY", "strong_yes")
    form["level-correctness"] = "4"
    assert client.post(url + "scorecard", form).status_code == 302
    card = Scorecard.objects.get(session=world.session, interviewer=world.assigned)
    assert card.summary == "SECOND-SUMMARY" and card.scores.get(criterion="correctness").level == 4
    (amendment,) = card.amendments.all()
    assert amendment.author == world.assigned
    assert amendment.changes == [
        {"field": "recommendation", "before": "yes", "after": "strong_yes"},
        {"field": "summary", "before": "FIRST-SUMMARY", "after": "SECOND-SUMMARY"},
        {"field": "correctness.level", "before": 3, "after": 4},
    ]
    page = client.get(url).content.decode()
    history = page[
        page.index('id="card-history"') : page.index("</ol>", page.index("card-history"))
    ]
    assert "Amended by <strong>assigned</strong>" in history
    assert "Correctness level</span>: <del>3</del> → <ins>4</ins>" in history
    assert "Recommendation</span>: <del>Yes</del> → <ins>Strong yes</ins>" in history
    # The same card sent again changes nothing: no empty amendment.
    assert client.post(url + "scorecard", form).status_code == 302
    assert card.amendments.count() == 1
    # A submitted card is no draft: an autosave cannot change it.
    autosave = client.post(
        url + "scorecard", _form(1, "AUTOSAVED") | {"action": "save"}, headers={"X-Autosave": "1"}
    )
    assert autosave.status_code == 409
    assert Scorecard.objects.get(pk=card.pk).summary == "SECOND-SUMMARY"

    services.scores_release(session=world.session, user=world.assigned)
    refused = client.post(url + "scorecard", _form(1, "AFTER-RELEASE"))
    assert refused.status_code == 400
    assert "released to the candidate: this scorecard can no longer be amended" in (
        refused.content.decode()
    )
    assert Scorecard.objects.get(pk=card.pk).summary == "SECOND-SUMMARY"
    page = client.get(url).content.decode()
    assert 'id="amend-form"' not in page and 'id="amend-closed"' in page
    report = client_for(world.owner).get(f"/sessions/{world.session.pk}/report/").content.decode()
    assert "SECOND-SUMMARY" in report and "FIRST-SUMMARY" not in report


def test_an_amendment_must_stay_complete() -> None:
    world = build_world()
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary="",
        scores=full_scores(3),
        submit=True,
    )
    scores = full_scores(3)
    scores["edge_cases"]["level"] = ""
    with pytest.raises(SessionError, match="Edge cases"):
        services.scorecard_save(
            session=world.session,
            user=world.assigned,
            recommendation="yes",
            summary="",
            scores=scores,
            submit=True,
        )
    card = Scorecard.objects.get(session=world.session, interviewer=world.assigned)
    assert card.scores.get(criterion="edge_cases").level == 3 and not card.amendments.exists()


def test_a_three_run_review_page_leads_with_failures_and_hides_the_full_tables() -> None:
    world = build_world()
    page = client_for(world.assigned).get(f"/sessions/{world.session.pk}/review/").content.decode()
    final = page[page.index(f'id="sub-{world.final.pk}"') : page.index('id="questions"')]
    failing = final[final.index('class="run-tests run-failing"') : final.index("</table>")]
    assert "Failing tests (1)" in failing and "secret 1" in failing and "secret 0" not in failing
    assert '<th scope="col" class="num">#</th>' in failing
    assert 'data-tag="correctness">correctness <strong>4/4</strong>' in final
    assert 'data-tag="edge cases">edge cases <strong>0/1</strong>' in final
    everything = final[final.index('<details class="run-all-tests">') :]
    assert "<summary>All 5 tests</summary>" in everything
    numbers = re.findall(r'<td class="num">(\d+)</td>', everything[: everything.index("</table>")])
    assert numbers == ["1", "2", "3", "4", "5"]  # numbered from 1


def test_the_panel_shows_every_choice_on_the_scale_and_whose_it_is() -> None:
    """Issue 27: a panel of a Yes and a No showed as "Yes"; the others see an amendment."""
    world = build_world()
    second = user_with_role("second", "interviewer")
    services.reviewer_assign(session=world.session, user=world.admin, username="second")
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary="",
        scores=full_scores(3),
        submit=True,
    )
    services.scorecard_save(
        session=world.session,
        user=second,
        recommendation="no",
        summary="",
        scores=full_scores(2),
        submit=True,
    )
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary="AMENDED",
        scores=full_scores(3),
        submit=True,
    )
    page = client_for(second).get(f"/sessions/{world.session.pk}/review/").content.decode()
    panel = page[
        page.index('id="panel-recommendation"') : page.index("</ol>", page.index("rec-scale"))
    ]
    assert '<span class="rec rec-split">split</span>' in panel
    chosen = re.findall(
        r'rec-step chosen" data-value="(\w+)"><span class="rec-step-label">'
        r'[^<]+</span><span class="rec-step-by">([^<]+)<',
        panel,
    )
    assert chosen == [("no", "second"), ("yes", "assigned")]
    assert "(amended 1×)" in page
