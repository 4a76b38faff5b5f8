"""A design session's board: the snapshot every way of finishing stores, and the board at a
moment (real database, real pycrdt updates through the session's document door)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from grading.models import Submission
from interviews import realtime, services
from interviews.models import BoardSnapshot, DocUpdate, InterviewSession, SessionEvent
from tests.factories import board_update, design_problem, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db(transaction=True)

BOX: dict[str, Any] = {
    "id": "gw",
    "type": "rectangle",
    "index": "a1",
    "version": 1,
    "x": 0,
    "y": 0,
    "width": 160,
    "height": 60,
}
LABEL: dict[str, Any] = {
    "id": "gw-label",
    "type": "text",
    "index": "a2",
    "version": 1,
    "x": 10,
    "y": 20,
    "width": 140,
    "height": 25,
    "text": "Gateway <1>",
    "containerId": "gw",
}


def solo_design() -> InterviewSession:
    problem = design_problem()
    candidate = user_with_role("cand", "candidate")
    return services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=30)
    )


def live_design() -> tuple[InterviewSession, Any]:
    problem = design_problem()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=problem.slug, duration=timedelta(minutes=45)
    )
    assert session.invite_token
    services.session_join(token=session.invite_token, user=candidate)
    return session, interviewer


def test_the_candidate_ending_a_solo_design_round_stores_the_board_svg_and_notes() -> None:
    session = solo_design()
    board_update(session.pk, [BOX, LABEL], notes="10k rps x 2 KB = 20 MB/s")
    assert session.candidate is not None
    services.session_finish_by(session_id=session.pk, user=session.candidate)
    snapshot = BoardSnapshot.objects.get(session=session)
    assert [e["id"] for e in snapshot.elements] == ["gw", "gw-label"]
    assert "Gateway &lt;1&gt;" in snapshot.svg and snapshot.svg.startswith("<svg")
    assert snapshot.notes == "10k rps x 2 KB = 20 MB/s"
    assert snapshot.error == ""


def test_finishing_a_design_round_submits_nothing_and_says_so_to_the_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing grades a design round: no final submission (which would be refused and show
    "queued 0/0"), no final-submit event, and the finished frame carries no error."""
    session = solo_design()
    board_update(session.pk, [BOX])
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(realtime, "broadcast", lambda sid, payload: sent.append(payload))
    services.session_finish(session_id=session.pk, reason="deadline")
    session.refresh_from_db()
    assert session.final_submission is None
    assert not Submission.objects.filter(problem=session.problem).exists()
    kinds = set(SessionEvent.objects.filter(session=session).values_list("kind", flat=True))
    assert SessionEvent.Kind.FINAL_SUBMIT not in kinds and SessionEvent.Kind.FINISHED in kinds
    assert [(p["type"], p["submission"], p["error"]) for p in sent] == [("finished", None, "")]
    assert BoardSnapshot.objects.filter(session=session).exists()


def test_the_interviewer_ending_a_live_design_round_stores_the_snapshot() -> None:
    session, interviewer = live_design()
    board_update(session.pk, [BOX])
    services.session_finish_by(session_id=session.pk, user=interviewer)
    assert BoardSnapshot.objects.get(session=session).elements[0]["id"] == "gw"


def test_the_deadline_sweep_stores_the_snapshot_of_an_expired_design_round() -> None:
    session = solo_design()
    board_update(session.pk, [BOX])
    InterviewSession.objects.filter(pk=session.pk).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    assert services.sessions_expire_overdue() == 1
    assert BoardSnapshot.objects.get(session=session).elements[0]["id"] == "gw"


def test_storing_the_snapshot_again_keeps_one_and_a_second_finish_changes_nothing() -> None:
    session = solo_design()
    board_update(session.pk, [BOX])
    services.session_finish(session_id=session.pk, reason="deadline")
    first = BoardSnapshot.objects.get(session=session)
    services.session_finish(session_id=session.pk, reason="deadline")  # idempotent: no-op
    services.board_snapshot_store(session_id=session.pk)
    assert BoardSnapshot.objects.filter(session=session).count() == 1
    assert BoardSnapshot.objects.get(session=session).svg == first.svg


def test_a_board_that_cannot_be_drawn_never_blocks_finishing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fault while drawing (here: injected into the renderer) is logged and the report
    reads "diagram unavailable"; the session still finishes and the notes are kept."""
    from interviews.services import boards

    def broken(elements: list[dict[str, Any]]) -> str:
        raise RuntimeError("renderer fault")

    monkeypatch.setattr(boards, "board_svg", broken)
    session = solo_design()
    board_update(session.pk, [BOX], notes="estimates")
    services.session_finish(session_id=session.pk, reason="deadline")
    session.refresh_from_db()
    assert session.status == "finished"
    snapshot = BoardSnapshot.objects.get(session=session)
    assert snapshot.svg == "" and "could not be read" in snapshot.error
    assert snapshot.notes == "estimates"


def test_a_document_that_does_not_decode_gives_an_empty_snapshot_not_an_error() -> None:
    session = solo_design()
    DocUpdate.objects.create(
        session=session, author=None, created_at=timezone.now(), data=b"\xff\xfe not yjs"
    )
    snapshot = services.board_snapshot_store(session_id=session.pk)
    assert snapshot is not None and snapshot.svg == "" and snapshot.error


def test_a_coding_session_stores_no_board() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=30)
    )
    services.session_finish(session_id=session.pk, reason="deadline")
    assert not BoardSnapshot.objects.filter(session=session).exists()
    assert services.board_snapshot_store(session_id=session.pk) is None


def test_the_board_at_a_moment_has_what_was_drawn_by_then() -> None:
    session = solo_design()
    assert session.started_at is not None
    board_update(session.pk, [BOX])
    board_update(session.pk, [LABEL])
    first, second = DocUpdate.objects.filter(session=session).order_by("id")[1:3]
    DocUpdate.objects.filter(pk=first.pk).update(
        created_at=session.started_at + timedelta(minutes=2)
    )
    DocUpdate.objects.filter(pk=second.pk).update(
        created_at=session.started_at + timedelta(minutes=5)
    )
    assert [e["id"] for e in services.board_elements_at_ms(session, 180_000)] == ["gw"]
    assert len(services.board_elements_at_ms(session, 300_000)) == 2
    assert services.board_elements_at_ms(session, 1000) == []
