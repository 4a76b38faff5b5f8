"""A missing scorecard is chased by e-mail (a real SMTP inbox) ONSITE_LOOP_CHASE_HOURS after
its round ended: each interviewer of the round without a submitted scorecard, once."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from config.celery import app
from interviews.models import InterviewSession
from interviews.services import co_interviewer_add
from loops.models import Loop, LoopRound
from loops.services import feedback
from loops.tasks import scorecards_chase
from tests.interviews.mail import Inbox
from tests.loops.worlds import finish, loop_world, submit

pytestmark = pytest.mark.django_db


def _recipients(inbox: Inbox) -> list[str]:
    return sorted(str(message["To"]) for message in inbox.messages)


def test_the_chase_mails_each_missing_scorecard_once(inbox: Inbox, settings: Any) -> None:
    settings.ONSITE_LOOP_CHASE_HOURS = 24
    # given three rounds over: round 1 ended 30 hours ago (scored), round 2 26 hours ago
    # (not scored, with a co-interviewer who did score), round 3 an hour ago
    world = loop_world()
    finish(world.sessions[0], minutes_ago=30 * 60)
    finish(world.sessions[1], minutes_ago=26 * 60)
    finish(world.sessions[2], minutes_ago=60)
    submit(world.sessions[0], world.interviewers[0])
    co_interviewer_add(session=world.sessions[1], user=world.interviewers[1],
                       username=world.interviewers[0].username)
    submit(world.sessions[1], world.interviewers[0])
    # when the beat's task runs (eagerly, as the io worker would)
    assert scorecards_chase.apply().get() == 1
    # then round 2's interviewer alone is asked, with the way to the scorecard
    assert _recipients(inbox) == ["iv2@onsite.test"]
    message = inbox.messages[0]
    assert "Scorecard missing" in str(message["Subject"])
    assert f"/sessions/{world.sessions[1].pk}/review/#scorecard" in message.get_content()
    assert LoopRound.objects.get(session=world.sessions[1]).chased_at is not None
    # and round 3, too recent, is not chased yet
    assert LoopRound.objects.get(session=world.sessions[2]).chased_at is None
    # when the sweep runs again: nobody is asked twice
    assert feedback.scorecards_chase() == 0
    assert len(inbox.messages) == 1


def test_the_chase_waits_for_the_setting_and_skips_cancelled_loops(inbox: Inbox,
                                                                   settings: Any) -> None:
    world = loop_world(finished=0)
    finish(world.sessions[0], minutes_ago=3 * 60)
    settings.ONSITE_LOOP_CHASE_HOURS = 4
    assert feedback.scorecards_chase() == 0
    settings.ONSITE_LOOP_CHASE_HOURS = 2
    Loop.objects.filter(pk=world.loop.pk).update(status=Loop.Status.CANCELLED)
    assert feedback.scorecards_chase() == 0
    Loop.objects.filter(pk=world.loop.pk).update(status=Loop.Status.SCHEDULED)
    assert feedback.scorecards_chase() == 1
    assert _recipients(inbox) == ["iv1@onsite.test"]


def test_a_round_still_to_come_or_never_held_is_not_chased(inbox: Inbox) -> None:
    world = loop_world(finished=0)
    InterviewSession.objects.filter(pk=world.sessions[0].pk).update(
        status=InterviewSession.Status.CANCELLED)
    assert feedback.scorecards_chase() == 0
    assert inbox.messages == []


def test_a_failed_send_leaves_the_round_to_the_next_sweep(settings: Any) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", 9  # nothing listens
    world = loop_world()
    finish(world.sessions[0], minutes_ago=48 * 60)
    assert feedback.round_chase(LoopRound.objects.get(session=world.sessions[0]).pk) == []
    assert LoopRound.objects.get(session=world.sessions[0]).chased_at is None


def test_the_beat_runs_the_chase_on_the_io_queue() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["chase-loop-scorecards"]
    assert entry["task"] == "loops.tasks.scorecards_chase"
    assert entry["options"]["queue"] == "io"
    assert "loops.tasks.scorecards_chase" in app.tasks
