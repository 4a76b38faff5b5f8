"""Every door of a session checks who is knocking and when (issue 35, points 1, 2 and 5).

The access matrix by state is written once, in `core.visibility.session_access`; this module
walks it whole. For every URL route of a session (from the resolver: each pattern with a
session id, the share link's routes, the REST API's review of a session) and every websocket
route (from the ASGI application's URL router), every relation to the session (invited
candidate, another candidate, its interviewer, a co-interviewer, another interviewer, an
author, an admin, anonymous, a share link's holder) and every state (scheduled before the
margin, inside the margin, live, finished before the release, released, cancelled, expired):

* the expected answer is the policy's door for that route (`DOOR_OF`), as HTTP
  (`core.visibility.DOOR_STATUS`) or as a close code (`DOOR_CLOSE`);
* a GET and a POST are sent (a POST is rolled back afterwards, so that no walked request
  changes the state the next one meets), and the status must be the door's;
* markers planted in the statement, the starter, a chat line, a question, a private note and
  the reference must never appear where the policy says they must not (`may_show`).

Each state's session has every marker, even where it could not have been made by the pages
(a question before the start): the doors, not the absence of data, keep them in.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.test import Client
from django.urls import URLPattern
from django.utils import timezone
from django.utils.regex_helper import normalize

from core import visibility
from core.visibility import DOOR_CLOSE, DOOR_STATUS, Door, Relation, SessionState
from grading.models import Submission
from interviews import services
from interviews.models import (
    ChatMessage,
    InterviewSession,
    Question,
    ReportShare,
    ReviewAssignment,
    ReviewNote,
    ScoreRelease,
    SessionEvent,
)
from problems.models import CONTENT_FIELDS, Problem
from tests.factories import tiny_problem, user_with_role
from tests.pdf import pdf_text
from tests.privacy.routes import Route, url_routes
from tests.sockets import WithUser, run_scenario

STATEMENT = "MARK-STATEMENT-5501"
STARTER = "MARK-STARTER-5502"
REFERENCE = "MARK-REFERENCE-5503"
CHAT = "MARK-CHAT-5504"
QUESTION = "MARK-QUESTION-5505"
PRIVATE = "MARK-PRIVATE-NOTE-5506"
# Which private field each marker is (None: the problem and the work, behind the state's
# doors only); `may_show` asks the policy for both.
MARKERS: dict[str, str | None] = {
    STATEMENT: None,
    STARTER: None,
    QUESTION: None,
    CHAT: visibility.SESSION_CHAT,
    PRIVATE: visibility.REVIEW_NOTE,
    REFERENCE: visibility.REFERENCE_SOLUTION,
}

# Which door of `SessionAccess` each route of a session is. A new route of a session fails
# `test_every_route_of_a_session_has_a_door` until it says which door it is.
DOOR_OF: dict[str, str] = {
    "detail": "page",
    **dict.fromkeys(
        (
            "state",
            "run",
            "finish",
            "done",
            "extend",
            "co_interviewers",
            "ask",
            "answer",
            "notes",
            "hint",
            "events",
            "settings",
            "chat",
            "call_link",
            "private_notes",
            "canned",
            "hint_reveal",
        ),
        "work",
    ),
    "schedule_manage": "schedule",
    "replay": "replay",
    "replay_data": "replay",
    **dict.fromkeys(
        ("review", "review_note", "scorecard", "scorecard_cite", "release", "assign"), "review"
    ),
    **dict.fromkeys(
        (
            "report",
            "report_pdf",
            "report_board",
            "share_create",
            "share_revoke",
            "api-review-report",
        ),
        "report",
    ),
    **dict.fromkeys(("shared_report", "shared_report_pdf", "shared_board"), "share"),
    **dict.fromkeys(("api-review-session", "api-review-scores"), "api"),
}
# A design round's diagram: a coding session (this world's) has none, so an open door
# answers the 404 of a missing picture (tests/privacy/test_design_matrix.py opens them).
DESIGN_ONLY = frozenset({"report_board", "shared_board"})
# Open to the relation, and answered as missing to a role that never does it there: the REST
# API's scorecard POST for the candidate (a candidate scores nothing).
ROLE_MISSING = frozenset({("api-review-scores", "POST", Relation.CANDIDATE)})
# One body that reaches each JSON view's checks (the route walk sends the bad ones).
BODY = {"text": "hello", "username": "nobody", "kind": "note", "call_link": "", "mode": "run"}


def session_routes() -> list[Route]:
    """The URL routes of one session, from the resolver."""
    return [
        route for route in url_routes() if "session_id" in route.params or route.name in DOOR_OF
    ]


def websocket_routes() -> list[tuple[str, tuple[str, ...]]]:
    """(path template, parameters) of every websocket route with a parameter, read from the
    ASGI application's URL router (the catch-all closes everything 4404)."""
    from config.asgi import application

    app: Any = application.application_mapping["websocket"]
    while not isinstance(app, URLRouter):
        app = app.inner if hasattr(app, "inner") else app.application
    found = []
    for route in app.routes:
        assert isinstance(route, URLPattern)
        template, names = normalize(route.pattern.regex.pattern)[0]
        if names:
            found.append((template, tuple(names)))
    return found


def may_show(marker: str, relation: Relation, state: SessionState) -> bool:
    """Whether `marker` may reach `relation` in `state` by any door of the session."""
    access = visibility.session_access(relation, state)
    if not access.sees_work:
        return False
    row = MARKERS[marker]
    return row is None or visibility.may_see(row, visibility.RELATION_VIEWER[relation])


# ---------------------------------------------------------------- the world


@dataclass
class World:
    users: dict[Relation, User | None]
    sessions: dict[SessionState, InterviewSession]
    shares: dict[SessionState, str] = field(default_factory=dict)
    questions: dict[SessionState, int] = field(default_factory=dict)
    submissions: dict[SessionState, int] = field(default_factory=dict)


def _problem() -> Problem:
    problem = tiny_problem("doors")
    problem.statement_md = f"Return x + 1. {STATEMENT}"
    problem.starter_code = f"def solve(x):\n    pass  # {STARTER}\n"
    problem.reference_code = f"def solve(x):\n    return x + 1  # {REFERENCE}\n"
    problem.clarifications = [{"question": "Can x be negative?", "answer": "Yes.", "key": True}]
    problem.save()
    version = problem.live_version
    assert version is not None
    for name in CONTENT_FIELDS:
        setattr(version, name, getattr(problem, name))
    version.save()
    return problem


def _build() -> World:
    problem = _problem()
    candidate = user_with_role("d-candidate", "candidate")
    interviewer = user_with_role("d-interviewer", "interviewer")
    co = user_with_role("d-co", "interviewer")
    users: dict[Relation, User | None] = {
        Relation.CANDIDATE: candidate,
        Relation.OTHER_CANDIDATE: user_with_role("d-other", "candidate"),
        Relation.INTERVIEWER: interviewer,
        Relation.CO_INTERVIEWER: co,
        Relation.OTHER_INTERVIEWER: user_with_role("d-stranger", "interviewer"),
        Relation.AUTHOR: user_with_role("d-author", "author"),
        Relation.ADMIN: user_with_role("d-admin", admin=True),
        Relation.ANONYMOUS: None,
        Relation.SHARE_LINK: None,  # holds the token, not an account
    }
    world = World(users=users, sessions={})
    now = timezone.now()
    early = timedelta(minutes=30)
    for state in SessionState:
        planned = {
            SessionState.SCHEDULED: now + timedelta(hours=2),
            SessionState.MARGIN: now + timedelta(minutes=2),
        }.get(state)
        session = services.session_schedule_live(
            interviewer=interviewer,
            problem_slug=problem.slug,
            duration=early,
            candidate=candidate,
            scheduled_for=planned,
        )
        ReviewAssignment.objects.create(session=session, interviewer=co)
        if state in visibility.STARTED:
            assert session.invite_token
            services.session_join(token=session.invite_token, user=candidate)
            run = Submission.objects.create(
                user=candidate,
                problem=problem,
                version=problem.live_version,
                mode="run",
                code=problem.starter_code,
                status="done",
                verdict="WA",
                passed=0,
                total=2,
            )
            SessionEvent.objects.create(
                session=session, kind="run", actor=candidate, submission=run, at=timezone.now()
            )
            world.submissions[state] = run.pk
        if state in visibility.OVER:  # finished by its interviewer, the run its final code
            InterviewSession.objects.filter(pk=session.pk).update(
                status="finished",
                finished_at=now,
                finish_reason="interviewer",
                final_submission_id=world.submissions[state],
            )
        if state == SessionState.RELEASED:
            ScoreRelease.objects.create(session=session, released_by=interviewer)
        if state == SessionState.CANCELLED:
            InterviewSession.objects.filter(pk=session.pk).update(
                status="cancelled", cancelled_at=now
            )
        if state == SessionState.EXPIRED:
            InterviewSession.objects.filter(pk=session.pk).update(
                scheduled_for=now - timedelta(hours=2)
            )
        # Every marker in every state, whether or not the pages could have made it then.
        ChatMessage.objects.create(
            session=session, author=interviewer, role="interviewer", text=CHAT, created_at=now
        )
        world.questions[state] = Question.objects.create(
            session=session,
            asked_by=candidate,
            text=QUESTION,
            asked_at=now,
            answer_source=Question.Source.PENDING,
        ).pk
        ReviewNote.objects.create(session=session, author=interviewer, text=PRIVATE)
        ReviewNote.objects.create(session=session, author=co, text=PRIVATE)
        world.shares[state] = ReportShare.objects.create(
            session=session, created_by=candidate
        ).token
        session.refresh_from_db()
        assert services.session_clock_state(session) == state, state
        world.sessions[state] = session
    return world


# ---------------------------------------------------------------- HTTP


def _path(route: Route, world: World, state: SessionState) -> str:
    values = {
        "session_id": str(world.sessions[state].pk),
        "token": world.shares[state],
        "question_id": str(world.questions[state]),
        "index": "0",
        "share_id": str(ReportShare.objects.get(token=world.shares[state]).pk),
    }
    return "/" + route.template % {name: values[name] for name in route.params}


def _text(response: Any) -> str:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    if response.get("Content-Type", "").startswith("application/pdf"):
        return pdf_text(body)
    return body.decode("utf-8", "replace")


def _expected(route: Route, door: Door, method: str, relation: Relation) -> set[int]:
    """The statuses a door allows for one request (405: the method is refused before any
    question of who or when, and tells nothing)."""
    api = route.template.startswith("api/")
    if (route.name, method, relation) in ROLE_MISSING:
        return {404}
    if door == Door.LOGIN:
        return {401, 403} if api else {302}
    if door != Door.OPEN:
        return {DOOR_STATUS[door], 405}
    if method == "GET":
        return {200, 404, 405} if route.name in DESIGN_ONLY else {200, 405}
    # Open: what the role may do inside is the service's (a 4xx of its own, a redirect),
    # never the refusal of a closed door.
    return {200, 201, 204, 302, 400, 403, 405, 409, 413, 415}


def _send(client: Client, method: str, path: str) -> Any:
    if method == "GET":
        return client.get(path)
    with transaction.atomic():  # walked, then undone: the next request meets the same state
        response = client.post(path, data=BODY, content_type="application/json")
        transaction.set_rollback(True)
    return response


def _walk_http(world: World) -> tuple[list[str], int]:
    failures: list[str] = []
    count = 0
    clients: dict[Relation, Client] = {}
    for relation, user in world.users.items():
        clients[relation] = Client()
        if user is not None:
            clients[relation].force_login(user)
    for route in session_routes():
        for state in SessionState:
            path = _path(route, world, state)
            for relation, client in clients.items():
                door_name = DOOR_OF[route.name]
                if door_name == "share" and relation != Relation.SHARE_LINK:
                    continue  # a share link's routes are its holder's (the token is the key)
                door = getattr(visibility.session_access(relation, state), door_name)
                for method in ("GET", "POST"):
                    count += 1
                    response = _send(client, method, path)
                    where = f"{relation} {state} {method} {path} ({door_name}: {door})"
                    if response.status_code not in _expected(route, door, method, relation):
                        failures.append(f"{where}: {response.status_code}")
                    text = _text(response)
                    failures += [
                        f"{where}: shows {marker}"
                        for marker in MARKERS
                        if marker in text and not may_show(marker, relation, state)
                    ]
                    if door == Door.WAITING and method == "GET" and "join-card" not in text:
                        failures.append(f"{where}: not the waiting room")
    return failures, count


@pytest.fixture
def _quiet_request_log() -> Iterator[None]:
    logger = logging.getLogger("django.request")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


def test_every_route_of_a_session_has_a_door() -> None:
    # given the routes of a session, read from the resolver
    names = {route.name for route in session_routes()}
    # then each is one door of the policy, and the walk knows no route that is gone
    assert names == set(DOOR_OF)
    assert {"detail", "state", "chat", "ask", "replay_data", "shared_report"} <= names


def test_the_socket_routes_come_from_the_asgi_router() -> None:
    routes = dict(websocket_routes())
    assert routes == {
        "ws/submissions/%(submission_id)s/": ("submission_id",),
        "ws/sessions/%(session_id)s/doc/": ("session_id",),
    }


@pytest.mark.django_db
@pytest.mark.slow
@pytest.mark.usefixtures("_quiet_request_log")
def test_every_route_answers_each_relation_in_each_state_as_the_policy_says() -> None:
    # given a session in each state with every marker planted, and a user of each relation
    world = _build()
    # when every route of a session gets a GET and a POST from each relation in each state
    failures, count = _walk_http(world)
    # then each answer is the policy's door and no marker is shown where it may not be
    assert not failures, "\n".join(failures)
    assert count > 9 * 7 * 2 * 30


# ---------------------------------------------------------------- websockets


async def _open(user: User | None, path: str) -> tuple[int | None, str]:
    """(close code, or None when accepted; the text of every frame before it)."""
    app = WithUser(URLRouter(_router_patterns()), user or AnonymousUser())
    communicator = WebsocketCommunicator(app, path)
    connected, _ = await communicator.connect(timeout=30)
    assert connected  # accepted first, so that the close code reaches the browser
    frames: list[str] = []
    code: int | None = None
    # The door's answer comes first, however long the machine takes: both consumers, once they
    # have decided, either close or send (the doc its sync step 1, a submission its status).
    # Silence is never taken for "accepted" (a loaded machine answered a closed door late).
    output = await communicator.receive_output(timeout=60)
    while True:
        if output["type"] == "websocket.close":
            code = output.get("code")
            break
        frames.append(output.get("text") or output.get("bytes", b"").decode("latin-1"))
        # Then what an open door sends, until it goes quiet (receive_nothing waits without
        # cancelling the app).
        if await communicator.receive_nothing(timeout=0.3):
            break
        output = await communicator.receive_output()
    # Always end the connection and wait for the consumer to finish (its disconnect handler
    # writes to the database): a handler still running when this loop closes is cancelled
    # mid-call, and on PostgreSQL the loop then never finished closing (a hang).
    await communicator.disconnect()
    return code, "\n".join(frames)


def _router_patterns() -> list[Any]:
    from config.asgi import application

    app: Any = application.application_mapping["websocket"]
    while not isinstance(app, URLRouter):
        app = app.inner if hasattr(app, "inner") else app.application
    return list(app.routes)


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_every_socket_accepts_or_closes_each_relation_in_each_state_as_the_policy_says() -> None:
    from interviews.consumers import ROOMS

    # given a session in each state with every marker planted, and a user of each relation
    world = _build()
    door_of = {"session_id": "doc", "submission_id": "submissions"}
    failures: list[str] = []
    opened = 0
    try:
        for template, params in websocket_routes():
            (param,) = params
            for state in SessionState:
                value = (
                    world.sessions[state].pk
                    if param == "session_id"
                    else world.submissions.get(state)
                )
                if value is None:
                    continue  # no run was made before the start: no submission to follow
                path = "/" + template % {param: value}
                for relation, user in world.users.items():
                    # when each relation opens the socket
                    door = getattr(visibility.session_access(relation, state), door_of[param])
                    code, frames = run_scenario(_open, user, path)
                    opened += 1
                    where = f"{relation} {state} {path} ({door})"
                    # then it is accepted or closed with the door's code, and nothing of the
                    # work reaches a socket that must not see it
                    if code != DOOR_CLOSE[door]:
                        failures.append(f"{where}: close code {code}")
                    failures += [
                        f"{where}: shows {marker}"
                        for marker in MARKERS
                        if marker in frames and not may_show(marker, relation, state)
                    ]
                    if door != Door.OPEN and frames:
                        failures.append(f"{where}: sent {len(frames)} frames before closing")
    finally:
        ROOMS.clear()
    assert not failures, "\n".join(failures)
    assert opened == 9 * 7 + 9 * 3  # the document in every state; runs once started
