"""Every door of the hiring packet (its page, PDF, debrief posts, the combined report) for
each person of a loop, before and after the release: who opens it, who gets a missing loop,
who is sent to sign in. A route added to the packet's block fails until it has its row."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from loops import urls as loop_urls
from loops.services import debrief
from tests.factories import user_with_role
from tests.loops.worlds import loop_world, submit

pytestmark = pytest.mark.django_db

GETS = ("packet", "packet_pdf", "loop_report")
POSTS = ("packet_decision", "packet_close", "packet_release")
JUDGE_POST = {"packet_decision": 400, "packet_close": 302, "packet_release": 302}
# (route, relation) -> status before the release; AFTER: where the release changes it.
OPEN, MISSING, LOGIN, FORBIDDEN = 200, 404, 302, 403
EXPECTED: dict[str, dict[str, int]] = {
    "anonymous": dict.fromkeys(GETS + POSTS, LOGIN),
    "candidate": dict.fromkeys(GETS + POSTS, MISSING),
    "other_candidate": dict.fromkeys(GETS + POSTS, MISSING),
    "outsider_interviewer": dict.fromkeys(GETS + POSTS, MISSING),
    "other_recruiter": dict.fromkeys(GETS + POSTS, MISSING),
    "loop_interviewer": {"packet": OPEN, "packet_pdf": OPEN, "loop_report": MISSING,
                         **dict.fromkeys(POSTS, FORBIDDEN)},
    **{judge: {**dict.fromkeys(GETS, OPEN), **JUDGE_POST}
       for judge in ("hiring_manager", "recruiter", "admin")},
}
AFTER = {("candidate", "loop_report"): OPEN}


def test_the_packets_routes_are_the_table_s() -> None:
    names = {p.name for p in loop_urls.urlpatterns}
    assert set(GETS + POSTS) <= names


def test_every_door_of_the_packet_for_each_person() -> None:
    world = loop_world()
    submit(world.sessions[0], world.interviewers[0])
    people: dict[str, User | None] = {
        "anonymous": None, "candidate": world.candidate, "other_candidate": world.other_candidate,
        "outsider_interviewer": world.outsider,
        "other_recruiter": user_with_role("rec2", "recruiter"),
        "loop_interviewer": world.interviewers[1], "hiring_manager": world.hiring_manager,
        "recruiter": world.recruiter, "admin": world.admin,
    }
    failures = []
    for released in (False, True):
        if released:
            debrief.feedback_release(loop=world.loop, user=world.hiring_manager)
        for relation, user in people.items():
            client = Client()
            if user is not None:
                client.force_login(user)
            for name in GETS + POSTS:
                url = reverse(f"loops:{name}", kwargs={"loop_id": world.loop.pk})
                answer = client.get(url) if name in GETS else client.post(url, {})
                expected = EXPECTED[relation][name]
                if released:
                    expected = AFTER.get((relation, name), expected)
                if answer.status_code != expected:
                    failures.append(f"{relation} {name} released={released}: "
                                    f"{answer.status_code} != {expected}")
    assert failures == []
    # and a loop that does not exist is missing to every one of them
    client = Client()
    client.force_login(world.admin)
    assert client.get(reverse("loops:packet", kwargs={"loop_id": 99999})).status_code == 404
