"""Webhooks against a real HTTP server on 127.0.0.1: signed bodies, retries with backoff,
session.finished and session.scored. Celery runs the task in this process (eager), retries
included, so the receiver sees every attempt."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from django.utils import timezone

from interviews.models import SessionEvent
from interviews.review import services, webhooks
from tests.interviews.worlds import build_world, full_scores
from tests.processes import wait_for, worker
from tests.webhooks import SECRET, Receiver

pytestmark = pytest.mark.django_db


def test_backoff_doubles() -> None:
    assert [webhooks.backoff_seconds(n) / webhooks.backoff_seconds(0) for n in range(4)] == [
        1,
        2,
        4,
        8,
    ]


def test_a_failing_receiver_gets_retries_of_the_same_signed_delivery(hooks: Receiver) -> None:
    hooks.fail_first = 2
    body = webhooks.webhook_body("session.finished", {"session": 1})
    webhooks.webhook_deliver.apply(args=[hooks.url, body, "session.finished", "d-1"])
    assert len(hooks.received) == 3
    for headers, raw in hooks.received:
        assert raw == body.encode()
        assert headers["x-onsite-delivery"] == "d-1"
        assert webhooks.verify(raw, SECRET, headers["x-onsite-signature"])
        assert not webhooks.verify(raw, "wrong-secret", headers["x-onsite-signature"])


def test_delivery_gives_up_after_the_attempt_budget(hooks: Receiver) -> None:
    hooks.fail_first = 100
    body = webhooks.webhook_body("session.scored", {"session": 1})
    result = webhooks.webhook_deliver.apply(args=[hooks.url, body, "session.scored", "d-2"])
    assert result.failed()
    assert len(hooks.received) == 4


def test_finishing_a_session_sends_session_finished(
    hooks: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    world = build_world()
    hooks.received.clear()  # build_world writes a FINISHED event of its own
    with django_capture_on_commit_callbacks(execute=True):
        SessionEvent.objects.create(session=world.session, kind="finished", at=timezone.now())
    ((headers, raw),) = hooks.received
    payload = json.loads(raw)
    assert headers["x-onsite-event"] == "session.finished"
    assert payload["event"] == "session.finished"
    assert payload["data"]["session"] == world.session.pk
    assert payload["data"]["final_submission"] == world.final.pk
    assert webhooks.verify(raw, SECRET, headers["x-onsite-signature"])


def test_submitting_a_scorecard_sends_session_scored(
    hooks: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    world = build_world()
    hooks.received.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.scorecard_save(
            session=world.session,
            user=world.assigned,
            recommendation="no",
            summary="",
            scores=full_scores(2),
            submit=False,
        )
    assert hooks.received == []  # a draft is not a score
    with django_capture_on_commit_callbacks(execute=True):
        services.scorecard_save(
            session=world.session,
            user=world.assigned,
            recommendation="yes",
            summary="",
            scores=full_scores(3),
            submit=True,
        )
    ((headers, raw),) = hooks.received
    data = json.loads(raw)["data"]
    assert headers["x-onsite-event"] == "session.scored"
    assert data["interviewer"] == "assigned" and data["recommendation"] == "yes"
    assert data["scores"] == {"correctness": 3, "edge_cases": 3, "clarifying_questions": 3}


@pytest.mark.slow
def test_a_real_worker_retries_through_the_broker_until_the_receiver_accepts(
    receiver: Receiver, tmp_path: Any
) -> None:
    """No eager mode: the task goes through Redis to a Celery worker process, and each retry
    goes back through the broker with its backoff countdown."""
    receiver.fail_first = 2
    queue = f"webhooks-test-{os.getpid()}"
    body = webhooks.webhook_body("session.finished", {"session": 42})
    with worker(
        tmp_path / "worker.log",
        queues=queue,
        ONSITE_WEBHOOK_SECRET=SECRET,
        ONSITE_WEBHOOK_BACKOFF_SECONDS="0.2",
        ONSITE_WEBHOOK_MAX_ATTEMPTS="5",
    ):
        webhooks.webhook_deliver.apply_async(
            args=[receiver.url, body, "session.finished", "d-real"], queue=queue
        )
        wait_for(lambda: len(receiver.received) >= 3, timeout=90, what="three attempts")
    assert len(receiver.received) == 3
    for headers, raw in receiver.received:
        assert raw == body.encode() and headers["x-onsite-delivery"] == "d-real"
        assert webhooks.verify(raw, SECRET, headers["x-onsite-signature"])
