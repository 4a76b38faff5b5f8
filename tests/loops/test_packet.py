"""The hiring packet: each round's rubric outcome with its cited evidence, the
recommendations side by side, strengths and concerns by criterion across rounds, the
integrity signals (pastes, tab leaves, copied code) and the PDF, for its readers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client

from grading.models import CodePrint, Submission
from interviews.models import Question, SessionEvent
from interviews.review import services as review_services
from loops.models import Loop
from loops.services import packet
from tests.interviews.worlds import RUBRIC
from tests.loops.worlds import LoopWorld, loop_world, submit
from tests.pdf import pdf_text

pytestmark = pytest.mark.django_db


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _scored(world: LoopWorld) -> None:
    """Round 1 strong with a cited question, round 2 weak, round 3 mixed."""
    first = world.sessions[0]
    question = Question.objects.create(session=first, asked_by=world.candidate,
                                       text="Can x be negative?", answer="Yes.",
                                       asked_at=first.started_at + timedelta(minutes=2))
    scores = {row["criterion"]: {"level": 4, "comment": f"STRONG-{row['criterion']}",
                                 "evidence": [f"question:{question.pk}"]} for row in RUBRIC}
    review_services.scorecard_save(session=first, user=world.interviewers[0],
                                   recommendation="strong_yes", summary="Round one summary",
                                   scores=scores, submit=True)
    submit(world.sessions[1], world.interviewers[1], level=1, comment="WEAK",
           recommendation="no", summary="Round two summary")
    submit(world.sessions[2], world.interviewers[2], level=3, comment="OK",
           recommendation="yes", summary="Round three summary")


def _copied(world: LoopWorld) -> None:
    """Round 1's final submission matches another candidate's (outside the loop) above the
    threshold, and the candidate pasted once in round 1."""
    first = world.sessions[0]
    final = Submission.objects.create(user=world.candidate, problem=first.problem,
                                      version=first.problem.live_version, mode="submit",
                                      code="def solve(x):\n    return x + 1\n", status="done")
    theirs = Submission.objects.create(user=world.other_candidate, problem=first.problem,
                                       version=first.problem.live_version, mode="submit",
                                       code="def solve(x):\n    return x + 1\n", status="done")
    first.final_submission = final
    first.save(update_fields=["final_submission"])
    CodePrint.objects.create(submission=final, problem=first.problem,
                             status=CodePrint.Status.DONE, match=theirs, match_score=0.95)
    SessionEvent.objects.create(session=first, kind=SessionEvent.Kind.PASTE,
                                actor=world.candidate, data={"chars": 240},
                                at=first.started_at + timedelta(minutes=5))


def test_the_packet_says_every_round_side_by_side_by_criterion() -> None:
    # given a loop whose three rounds are scored
    world = loop_world()
    _scored(world)
    # when the hiring manager reads the packet
    data = packet.packet(world.loop, world.hiring_manager)
    # then each round's rubric outcome carries its cited evidence
    first = data["rounds"][0]
    assert [row["level"] for row in first["outcome"]] == [4, 4, 4]
    assert first["outcome"][0]["evidence"][0]["label"].startswith("Question")
    # and every recommendation is side by side, round by round
    assert [(r["round"], r["interviewer"], r["recommendation"]) for r in data["side_by_side"]] == [
        (1, "iv1", "strong_yes"), (2, "iv2", "no"), (3, "iv3", "yes")]
    # and strengths and concerns are gathered per criterion across the rounds
    rows = {row["criterion"]: row for row in data["by_criterion"]}
    correctness = rows["Correctness"]
    assert [(i["round"], i["level"]) for i in correctness["strengths"]] == [(1, 4), (3, 3)]
    assert [(i["round"], i["comment"]) for i in correctness["concerns"]] == [
        (2, "WEAK (correctness)")]
    # and the debrief is the hiring manager's
    assert data["judge"] and data["debrief"] is not None


def test_the_page_and_the_pdf_show_the_packet() -> None:
    world = loop_world()
    _scored(world)
    client = _client(world.hiring_manager)
    page = client.get(f"/loops/{world.loop.pk}/packet/")
    assert page.status_code == 200
    text = page.content.decode()
    for words in ("Round one summary", "Round two summary", "Strong yes", "STRONG-correctness",
                  "Strengths and concerns by criterion", 'id="debrief-form"'):
        assert words in text
    body = client.get(f"/loops/{world.loop.pk}/packet.pdf?tz=Europe/Berlin")
    assert body.status_code == 200
    assert body["Content-Type"] == "application/pdf"
    pdf = pdf_text(body.content)
    for words in ("Hiring packet", "Round one summary", "Strong yes", "WEAK"):
        assert words in pdf


def test_integrity_signals_and_the_copied_code_flag_reach_the_judges_only() -> None:
    # given round 1 with a large paste and a final submission flagged as copied
    world = loop_world(Loop.FeedbackVisibility.NEVER)
    _scored(world)
    _copied(world)
    # when the hiring manager reads it: the signals and the flag, the other candidate unnamed
    round_one = packet.packet(world.loop, world.hiring_manager)["rounds"][0]
    assert "1 large paste (240 characters)" in round_one["integrity"]["note"]
    assert round_one["copied"]["percent"] == 95
    assert round_one["copied"]["other_named"] is False
    page = _client(world.hiring_manager).get(f"/loops/{world.loop.pk}/packet/").content.decode()
    assert "Similar code: 95%" in page and "another candidate" in page
    # and an admin, who may see both sessions, reads the other candidate's name
    assert packet.packet(world.loop, world.admin)["rounds"][0]["copied"]["other_name"] == "other"
    # and the round-2 interviewer (this loop: never) reads neither
    closed = packet.packet(world.loop, world.interviewers[1])["rounds"][0]
    assert closed["visible"] is False and closed["integrity"] is None and closed["copied"] is None
    assert "Similar code" not in _client(world.interviewers[1]).get(
        f"/loops/{world.loop.pk}/packet/").content.decode()


def test_an_interviewer_who_has_not_submitted_reads_their_own_round_only() -> None:
    # given round 1 scored, nothing yet from the round-2 interviewer
    world = loop_world()
    submit(world.sessions[0], world.interviewers[0])
    # when the round-2 interviewer reads the packet: their own round, the others closed
    data = packet.packet(world.loop, world.interviewers[1])
    assert data["must_submit"] is True
    assert [(r["visible"], r["hidden"]) for r in data["rounds"]] == [
        (False, "submit_first"), (True, ""), (False, "submit_first")]
    assert data["side_by_side"] == [] and data["debrief"] is None
    # and the round-1 interviewer, whose scorecard is in, reads every round
    data = packet.packet(world.loop, world.interviewers[0])
    assert [r["visible"] for r in data["rounds"]] == [True, True, True]
    assert data["must_submit"] is False
    assert data["debrief"] is None  # the debrief is the judges'


def test_the_packet_is_missing_to_those_who_may_not_read_it() -> None:
    world = loop_world()
    for user in (world.candidate, world.other_candidate, world.outsider):
        with pytest.raises(packet.PacketMissing):
            packet.packet(world.loop, user)
        assert _client(user).get(f"/loops/{world.loop.pk}/packet.pdf").status_code == 404
    assert Client().get(f"/loops/{world.loop.pk}/packet/").status_code == 302
    # a recruiter who does not run this loop is not one of its readers
    from tests.factories import user_with_role

    stranger = user_with_role("rec2", "recruiter")
    assert _client(stranger).get(f"/loops/{world.loop.pk}/packet/").status_code == 404
    assert _client(world.recruiter).get(f"/loops/{world.loop.pk}/packet/").status_code == 200
