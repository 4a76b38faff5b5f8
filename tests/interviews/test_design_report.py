"""A design round's report, PDF, share link, board moments as evidence and the cockpit's
reference design (real database, real Yjs updates, the test client)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from interviews import services
from interviews.models import (
    BoardSnapshot,
    SessionEvent,
)
from interviews.review import services as review_services
from tests.factories import (
    client_for,
    tiny_problem,
    user_with_role,
)
from tests.interviews.worlds import DRAWN, NOTES, REF_BOARD, REF_TEXT, design_world, scores
from tests.pdf import pdf_text

pytestmark = pytest.mark.django_db(transaction=True)


# ---------------------------------------------------------------- the report


def test_the_candidates_report_shows_the_final_diagram_and_the_notes() -> None:
    world = design_world()
    page = client_for(world.candidate).get(f"/sessions/{world.session.pk}/report/")
    assert page.status_code == 200
    html = page.content.decode()
    board_url = f"/sessions/{world.session.pk}/report/board.svg"
    assert f'src="{board_url}"' in html and 'id="report-board"' in html
    assert NOTES in html and "2 elements" in html  # a label is part of its box
    assert 'id="report-tests"' not in html and 'id="report-code"' not in html
    image = client_for(world.candidate).get(board_url)
    assert image.status_code == 200
    assert image["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert image["X-Content-Type-Options"] == "nosniff"
    assert DRAWN in image.content.decode() and image.content.startswith(b"<svg")


def test_the_report_reads_the_final_diagram_as_text() -> None:
    """A picture cannot be read aloud: the report lists the diagram's elements with their
    labels, as the live page's board list does (issue 40.3)."""
    world = design_world()
    html = client_for(world.candidate).get(f"/sessions/{world.session.pk}/report/").content
    text = html.decode()
    assert 'id="report-board-text"' in text
    assert f"<li>Box: “{DRAWN}”</li>" in text and "<li>Ellipse</li>" in text


def test_the_report_pdf_draws_the_diagram_and_lists_the_notes() -> None:
    world = design_world()
    pdf = client_for(world.candidate).get(f"/sessions/{world.session.pk}/report.pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
    text = pdf_text(pdf.content)
    assert "Final diagram" in text and DRAWN in text  # the SVG's text, drawn by fpdf2
    assert "Design notes" in text and NOTES in text
    assert "Final code" not in text


def test_the_scores_sit_beside_the_diagram_once_released() -> None:
    world = design_world()
    review_services.scorecard_save(
        session=world.session,
        user=world.interviewer,
        recommendation="yes",
        summary="Good design.",
        scores=scores([]),
        submit=True,
    )
    reader = client_for(world.candidate)
    before = reader.get(f"/sessions/{world.session.pk}/report/").content.decode()
    assert 'id="report-unreleased"' in before and 'id="report-board"' in before
    review_services.scores_release(session=world.session, user=world.interviewer)
    after = reader.get(f"/sessions/{world.session.pk}/report/").content.decode()
    assert 'id="report-recommendation"' in after and 'id="report-board"' in after


def test_a_missing_or_broken_snapshot_reads_diagram_unavailable_and_never_fails() -> None:
    world = design_world()
    BoardSnapshot.objects.filter(session=world.session).update(svg="", error="x")
    reader = client_for(world.candidate)
    html = reader.get(f"/sessions/{world.session.pk}/report/").content.decode()
    assert "Diagram unavailable." in html
    assert reader.get(f"/sessions/{world.session.pk}/report/board.svg").status_code == 404
    assert "Diagram unavailable." in pdf_text(
        reader.get(f"/sessions/{world.session.pk}/report.pdf").content
    )
    # A round finished before snapshots existed is drawn from its document, nothing stored.
    BoardSnapshot.objects.filter(session=world.session).delete()
    image = reader.get(f"/sessions/{world.session.pk}/report/board.svg")
    assert image.status_code == 200 and DRAWN in image.content.decode()
    assert not BoardSnapshot.objects.filter(session=world.session).exists()


def test_the_diagram_url_follows_the_reports_access_rules() -> None:
    world = design_world()
    url = f"/sessions/{world.session.pk}/report/board.svg"
    for user in (world.candidate, world.interviewer, world.admin):
        assert client_for(user).get(url).status_code == 200
    for user in (world.other, world.unassigned):
        assert client_for(user).get(url).status_code == 404
    assert client_for(None).get(url).status_code == 302  # to the login page
    for bad in ("?t=abc", "?t=-5", "?t=" + "9" * 40):
        assert client_for(world.candidate).get(url + bad).status_code == 404
    coding = tiny_problem("coding")
    solo = services.session_start_solo(
        candidate=world.candidate, problem_slug=coding.slug, duration=timedelta(minutes=5)
    )
    services.session_finish(session_id=solo.pk, reason="deadline")
    assert (
        client_for(world.candidate).get(f"/sessions/{solo.pk}/report/board.svg").status_code == 404
    )


def test_the_candidate_sees_no_diagram_url_while_the_round_runs() -> None:
    world = design_world(finish=False)
    url = f"/sessions/{world.session.pk}/report/board.svg"
    assert client_for(world.candidate).get(url).status_code == 404
    # Its interviewer cites moments while it runs: the board at a moment is theirs to see.
    assert client_for(world.interviewer).get(url + "?t=180000").status_code == 200


def test_a_share_link_shows_the_diagram_but_not_the_notes() -> None:
    world = design_world()
    token = world.share.token
    html = client_for(None).get(f"/sessions/shared/{token}/").content.decode()
    assert f'src="/sessions/shared/{token}/board.svg"' in html
    assert NOTES not in html
    image = client_for(None).get(f"/sessions/shared/{token}/board.svg")
    assert image.status_code == 200 and DRAWN in image.content.decode()
    assert image["Referrer-Policy"] == "no-referrer"
    assert client_for(None).get(f"/sessions/shared/{token}/board.svg?t=180000").status_code == 404
    text = pdf_text(client_for(None).get(f"/sessions/shared/{token}/pdf").content)
    assert DRAWN in text and NOTES not in text
    review_services.share_revoke(
        session=world.session, user=world.candidate, share_id=world.share.pk
    )
    assert client_for(None).get(f"/sessions/shared/{token}/board.svg").status_code == 404


# ---------------------------------------------------------------- board moments as evidence


def test_citing_a_moment_of_a_design_round_labels_it_a_board_moment() -> None:
    world = design_world()
    inter = client_for(world.interviewer)
    answer = inter.post(
        f"/sessions/{world.session.pk}/review/cite",
        data={"criterion": "architecture", "evidence": "moment:180000"},
        content_type="application/json",
    )
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["label"] == "Board at 03:00 · 1 element"
    assert body["board"] == f"/sessions/{world.session.pk}/report/board.svg?t=180000"
    later = inter.post(
        f"/sessions/{world.session.pk}/review/cite",
        data={"criterion": "architecture", "evidence": "moment:360000"},
        content_type="application/json",
    ).json()
    assert later["label"] == "Board at 06:00 · 2 elements"
    review = inter.get(f"/sessions/{world.session.pk}/review/").content.decode()
    assert "Board at 03:00 · 1 element" in review
    assert f'href="/sessions/{world.session.pk}/report/board.svg?t=180000"' in review
    # The board as it was then: the gateway alone, not yet its label.
    then = inter.get(body["board"]).content.decode()
    assert "<rect" in then and DRAWN not in then
    assert (
        DRAWN
        in inter.get(f"/sessions/{world.session.pk}/report/board.svg?t=360000").content.decode()
    )


def test_the_released_report_shows_each_cited_board_moment() -> None:
    world = design_world()
    review_services.scorecard_save(
        session=world.session,
        user=world.interviewer,
        recommendation="yes",
        summary="Solid.",
        scores=scores(["moment:180000"]),
        submit=True,
    )
    review_services.scores_release(session=world.session, user=world.interviewer)
    reader = client_for(world.candidate)
    html = reader.get(f"/sessions/{world.session.pk}/report/").content.decode()
    url = f"/sessions/{world.session.pk}/report/board.svg?t=180000"
    assert "Board at 03:00 · 1 element" in html and f'src="{url}"' in html
    assert reader.get(url).status_code == 200
    text = pdf_text(reader.get(f"/sessions/{world.session.pk}/report.pdf").content)
    assert "Board at 03:00 - 1 element" in text or "Board at 03:00 \xb7 1 element" in text
    # The share link carries no feedback, so no board moment either.
    shared = client_for(None).get(f"/sessions/shared/{world.share.token}/").content.decode()
    assert "Board at 03:00" not in shared


def test_a_coding_sessions_moment_keeps_its_usual_label() -> None:
    problem = tiny_problem()
    candidate = user_with_role("c2", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    SessionEvent.objects.create(
        session=session, kind="finished", at=session.started_at + timedelta(seconds=3)
    )
    from interviews.review.evidence import Evidence, evidence_labels

    chip = evidence_labels(session=session, reviewer=True).chip(Evidence("moment", 3000))
    assert chip.label == "00:03 the session ended" and chip.board == ""


# ---------------------------------------------------------------- the cockpit


def test_the_interviewer_sees_the_reference_design_and_the_candidate_never() -> None:
    world = design_world(finish=False)
    page = client_for(world.interviewer).get(f"/sessions/{world.session.pk}/").content.decode()
    assert 'id="reference-design"' in page and "Reference design" in page
    assert "<strong>queue</strong>" in page and REF_TEXT in page  # Markdown, rendered
    assert REF_BOARD in page and 'id="reference-board"' in page and "<svg" in page
    assert "Reference solution" not in page
    candidate_page = (
        client_for(world.candidate).get(f"/sessions/{world.session.pk}/").content.decode()
    )
    assert REF_TEXT not in candidate_page and REF_BOARD not in candidate_page
    assert 'id="reference-panel"' not in candidate_page


def test_a_coding_sessions_cockpit_keeps_its_reference_solution() -> None:
    problem = tiny_problem()
    interviewer = user_with_role("i2", "interviewer")
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=problem.slug, duration=timedelta(minutes=45)
    )
    page = client_for(interviewer).get(f"/sessions/{session.pk}/").content.decode()
    assert "Reference solution" in page and "return x + 1" in page
    assert 'id="reference-design"' not in page


def test_the_review_page_shows_the_board_and_the_notes() -> None:
    world = design_world(finish=False)
    inter = client_for(world.interviewer)
    html = inter.get(f"/sessions/{world.session.pk}/review/").content.decode()
    assert 'id="review-board"' in html and "Board now" in html and NOTES in html
    image = inter.get(f"/sessions/{world.session.pk}/report/board.svg")
    assert image.status_code == 200 and DRAWN in image.content.decode()  # drawn live
    services.session_finish_by(session_id=world.session.pk, user=world.interviewer)
    html = inter.get(f"/sessions/{world.session.pk}/review/").content.decode()
    assert "Board at the end" in html
