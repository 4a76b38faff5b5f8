"""The debrief: the hiring manager (or the loop's recruiter, or an admin) records the decision
and its reason, amends it (each change audited) until the loop is closed, then it is final;
the combined report is released; `loop.decided` and `loop.scorecards_complete` go out signed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from interviews.models import ScoreRelease
from interviews.review import webhooks
from loops.models import Loop, LoopDecisionChange
from loops.services import debrief
from tests.factories import user_with_role
from tests.loops.worlds import loop_world, submit
from tests.webhooks import SECRET, Receiver

pytestmark = pytest.mark.django_db


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _decide(client: Client, loop: Loop, decision: str, reason: str,
            action: str = "record") -> Any:
    return client.post(f"/loops/{loop.pk}/packet/decision/",
                       {"decision": decision, "reason": reason, "action": action})


def test_the_decision_is_recorded_amended_audited_and_final_once_closed() -> None:
    world = loop_world()
    client = _client(world.hiring_manager)
    # when the hiring manager records, then amends the decision
    assert _decide(client, world.loop, "hire", "Strong coding and design").status_code == 302
    assert _decide(client, world.loop, "hold", "Debugging round was weak").status_code == 302
    world.loop.refresh_from_db()
    assert (world.loop.decision, world.loop.decided_by) == ("hold", world.hiring_manager)
    # then each change is one audited row, shown on the packet
    assert list(LoopDecisionChange.objects.values_list("decision", "reason", "closed")) == [
        ("hire", "Strong coding and design", False), ("hold", "Debugging round was weak", False)]
    page = client.get(f"/loops/{world.loop.pk}/packet/").content.decode()
    assert page.count('class="debrief-change"') == 2
    # when it is recorded once more and closed
    assert _decide(client, world.loop, "no_hire", "Panel agreed", "close").status_code == 302
    world.loop.refresh_from_db()
    assert world.loop.status == Loop.Status.CLOSED and world.loop.closed_at is not None
    # then no amendment lands any more: the page says why, the decision stays
    refused = _decide(client, world.loop, "hire", "Changed my mind")
    assert refused.status_code == 400
    assert "closed" in refused.content.decode()
    world.loop.refresh_from_db()
    assert world.loop.decision == "no_hire"
    assert LoopDecisionChange.objects.count() == 3
    assert 'id="debrief-form"' not in client.get(f"/loops/{world.loop.pk}/packet/").content.decode()


def test_a_refused_decision_keeps_what_was_typed() -> None:
    world = loop_world()
    response = _decide(_client(world.hiring_manager), world.loop, "maybe", "TYPED-REASON-77")
    assert response.status_code == 400
    assert "TYPED-REASON-77" in response.content.decode()
    response = _decide(_client(world.hiring_manager), world.loop, "hire", "   ")
    assert response.status_code == 400
    assert LoopDecisionChange.objects.count() == 0


def test_who_may_decide() -> None:
    world = loop_world()
    # the loop's recruiter and an admin may
    assert _decide(_client(world.recruiter), world.loop, "hire", "r").status_code == 302
    assert _decide(_client(world.admin), world.loop, "hire", "a").status_code == 302
    # an interviewer of the loop reads the packet but decides nothing
    assert _decide(_client(world.interviewers[0]), world.loop, "no_hire", "x").status_code == 403
    # anyone else gets a missing loop
    stranger = user_with_role("rec9", "recruiter")
    for user in (world.outsider, world.candidate, stranger):
        assert _decide(_client(user), world.loop, "no_hire", "x").status_code == 404
    assert LoopDecisionChange.objects.count() == 2


def test_closing_needs_a_decision() -> None:
    world = loop_world()
    client = _client(world.hiring_manager)
    client.post(f"/loops/{world.loop.pk}/packet/close/")
    world.loop.refresh_from_db()
    assert world.loop.status == Loop.Status.SCHEDULED
    _decide(client, world.loop, "hire", "Clear")
    assert client.post(f"/loops/{world.loop.pk}/packet/close/").status_code == 302
    world.loop.refresh_from_db()
    assert world.loop.status == Loop.Status.CLOSED


def test_releasing_the_combined_report_releases_each_scored_round() -> None:
    world = loop_world()
    client = _client(world.hiring_manager)
    # nothing submitted: nothing to release
    client.post(f"/loops/{world.loop.pk}/packet/release/")
    world.loop.refresh_from_db()
    assert world.loop.released_at is None
    submit(world.sessions[0], world.interviewers[0])
    submit(world.sessions[1], world.interviewers[1])
    assert client.post(f"/loops/{world.loop.pk}/packet/release/").status_code == 302
    world.loop.refresh_from_db()
    assert world.loop.released_at is not None
    assert set(ScoreRelease.objects.values_list("session_id", flat=True)) == {
        world.sessions[0].pk, world.sessions[1].pk}
    assert _client(world.candidate).get(f"/loops/{world.loop.pk}/report/").status_code == 200


def test_deciding_sends_loop_decided(hooks: Receiver,
                                     django_capture_on_commit_callbacks: Any) -> None:
    world = loop_world()
    with django_capture_on_commit_callbacks(execute=True):
        debrief.decision_record(loop=world.loop, user=world.hiring_manager, decision="hire",
                                reason="PRIVATE-REASON-1")
    with django_capture_on_commit_callbacks(execute=True):
        debrief.decision_close(loop=world.loop, user=world.hiring_manager)
    bodies = hooks.events(debrief.LOOP_DECIDED)
    assert len(bodies) == 2
    payloads = [json.loads(b) for b in bodies]
    assert [(p["data"]["decision"], p["data"]["closed"]) for p in payloads] == [
        ("hire", False), ("hire", True)]
    assert payloads[0]["data"]["loop"] == world.loop.pk
    for headers, raw in hooks.received:
        assert webhooks.verify(raw, SECRET, headers["x-onsite-signature"])
        assert b"PRIVATE-REASON-1" not in raw  # the reason stays in the packet


def test_the_last_scorecard_of_the_loop_sends_loop_scorecards_complete(
        hooks: Receiver, django_capture_on_commit_callbacks: Any) -> None:
    from loops.services.feedback import LOOP_SCORECARDS_COMPLETE

    world = loop_world()
    # the first two rounds' scorecards: not complete yet
    with django_capture_on_commit_callbacks(execute=True):
        submit(world.sessions[0], world.interviewers[0])
        submit(world.sessions[1], world.interviewers[1])
        submit(world.sessions[2], world.interviewers[2], done=False)
    assert hooks.events(LOOP_SCORECARDS_COMPLETE) == []
    # the last one: once
    with django_capture_on_commit_callbacks(execute=True):
        submit(world.sessions[2], world.interviewers[2])
    (raw,) = hooks.events(LOOP_SCORECARDS_COMPLETE)
    payload = json.loads(raw)
    assert payload["data"]["loop"] == world.loop.pk and payload["data"]["rounds"] == 3
    # an amendment afterwards sends nothing more
    with django_capture_on_commit_callbacks(execute=True):
        submit(world.sessions[2], world.interviewers[2], summary="amended")
    assert len(hooks.events(LOOP_SCORECARDS_COMPLETE)) == 1


def test_a_round_still_to_come_keeps_the_loop_incomplete(
        hooks: Receiver, django_capture_on_commit_callbacks: Any) -> None:
    from loops.services.feedback import LOOP_SCORECARDS_COMPLETE

    world = loop_world(finished=2)
    with django_capture_on_commit_callbacks(execute=True):
        submit(world.sessions[0], world.interviewers[0])
        submit(world.sessions[1], world.interviewers[1])
    assert hooks.events(LOOP_SCORECARDS_COMPLETE) == []
