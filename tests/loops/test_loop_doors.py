"""Every door of a loop by its state (issue 39.7, the "every door" matrix): the loop's day,
its schedule changes, its packet (page and PDF) and the candidate's combined report, for each
person of the loop and outsiders, while the loop is scheduled, after it is cancelled, once its
rounds are over, once the decision is closed, and once the report is released. A loop page
route added to loops/urls.py fails `test_the_matrix_names_every_loop_route` until it has its
column here or in tests/loops/test_packet_doors.py."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from loops import urls as loop_urls
from loops.services import debrief, scheduling
from tests.factories import user_with_role
from tests.loops.worlds import LoopWorld, loop_world, submit

pytestmark = pytest.mark.django_db

GETS = ("loop", "packet", "packet_pdf", "loop_report")
SCHEDULE = "loop_schedule"  # POSTed with an action nobody may take: the door, not the change
# Routes with a matrix of their own elsewhere: the packet's posts (test_packet_doors.py), the
# calibration page and the mock onsite's (test_calibration.py, test_practice.py), the list and
# the builder (no loop in their path), the invitation link (test_loop_pages.py).
ELSEWHERE = {"packet_decision", "packet_close", "packet_release", "calibration", "practice",
             "practice_book", "practice_loop", "practice_start", "loops", "loop_new",
             "loop_join"}
OPEN, MISSING, LOGIN, BAD = 200, 404, 302, 400
PEOPLE = ("anonymous", "candidate", "other_candidate", "loop_interviewer",
          "outsider_interviewer", "recruiter", "other_recruiter", "hiring_manager", "admin")
STATES = ("scheduled", "cancelled", "over", "closed", "released")


def _expected(state: str, person: str, route: str) -> int:
    """The policy, as loops.access and core.visibility state it."""
    if person == "anonymous":
        return LOGIN
    sees_day = person in ("candidate", "loop_interviewer", "recruiter", "other_recruiter",
                          "hiring_manager", "admin")
    if route == "loop":
        return OPEN if sees_day else MISSING
    if route == SCHEDULE:  # managers reach the form's refusal; the rest a missing loop
        return BAD if person in ("recruiter", "other_recruiter", "admin") else MISSING
    judges = ("recruiter", "hiring_manager", "admin")
    if route in ("packet", "packet_pdf"):
        return OPEN if person in (*judges, "loop_interviewer") else MISSING
    # the combined report: the judges always, the candidate once released
    if person in judges or (person == "candidate" and state == "released"):
        return OPEN
    return MISSING


def _world(state: str) -> LoopWorld:
    world = loop_world(finished=0 if state in ("scheduled", "cancelled") else 3)
    if state == "cancelled":
        scheduling.loop_cancel(loop_id=world.loop.pk, user=world.recruiter,
                               site="http://onsite.test")
    if state in ("closed", "released"):
        for session, interviewer in zip(world.sessions, world.interviewers, strict=True):
            submit(session, interviewer)
        debrief.decision_record(loop=world.loop, user=world.hiring_manager, decision="hire",
                                reason="strong across the day", close=True)
    if state == "released":
        debrief.feedback_release(loop=world.loop, user=world.hiring_manager)
    return world


def _people(world: LoopWorld) -> dict[str, User | None]:
    return {"anonymous": None, "candidate": world.candidate,
            "other_candidate": world.other_candidate, "loop_interviewer": world.interviewers[1],
            "outsider_interviewer": world.outsider, "recruiter": world.recruiter,
            "other_recruiter": user_with_role("rec2", "recruiter"),
            "hiring_manager": world.hiring_manager, "admin": world.admin}


def test_the_matrix_names_every_loop_route() -> None:
    names = {p.name for p in loop_urls.urlpatterns}
    assert names == set(GETS) | {SCHEDULE} | ELSEWHERE


@pytest.mark.parametrize("state", STATES)
def test_every_door_of_a_loop_by_state(state: str) -> None:
    world = _world(state)
    failures = []
    for person, user in _people(world).items():
        client = Client()
        if user is not None:
            client.force_login(user)
        for route in (*GETS, SCHEDULE):
            url = reverse(f"loops:{route}", kwargs={"loop_id": world.loop.pk})
            got = (client.post(url, {"action": "nothing"}) if route == SCHEDULE
                   else client.get(url)).status_code
            want = _expected(state, person, route)
            if got != want:
                failures.append(f"{state} {person} {route}: {got} != {want}")
    assert failures == [], "\n".join(failures)
