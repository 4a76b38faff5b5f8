"""The grading pipeline end to end: API/service → Celery worker (a real subprocess) → Docker
sandbox → results stored and pushed over the Channels websocket (channels-redis)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from config.routing import websocket_urlpatterns
from grading.models import Submission
from grading.services import submission_create
from tests.factories import ADD_ONE, tiny_problem, user_with_role
from tests.processes import wait_for, worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.docker]

WRONG = "def solve(x):\n    return x + 1 if x < 100 else 0\n"


class WithUser:
    """ASGI middleware that puts a given user into the scope (what AuthMiddleware would do)."""

    def __init__(self, app: Any, user: Any) -> None:
        self.app, self.user = app, user

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        return await self.app(dict(scope, user=self.user), receive, send)


async def _collect(user: Any, submission_id: int, timeout: float) -> list[dict[str, Any]]:
    app = WithUser(URLRouter(websocket_urlpatterns), user)
    communicator = WebsocketCommunicator(app, f"/ws/submissions/{submission_id}/")
    connected, _ = await communicator.connect()
    assert connected
    events: list[dict[str, Any]] = []
    try:
        while True:
            event = json.loads(await communicator.receive_from(timeout=timeout))
            events.append(event)
            if event["type"] == "done":
                return events
    finally:
        await communicator.disconnect()


def collect(user: Any, submission_id: int, timeout: float = 90) -> list[dict[str, Any]]:
    return async_to_sync(_collect)(user, submission_id, timeout)


def results_by_index(events: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {e["index"]: e for e in events if e["type"] == "test"}


def test_run_grades_public_tests_and_streams_each_result(tmp_path: Path) -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    with worker(tmp_path / "worker.log"):
        submission = submission_create(
            user=candidate, problem_slug=problem.slug, code=ADD_ONE, mode="run"
        )
        events = collect(candidate, submission.pk)
    done = events[-1]
    assert (done["verdict"], done["passed"], done["total"]) == ("AC", 2, 2)
    assert sorted(results_by_index(events)) == [0, 1]
    assert all(e["verdict"] == "AC" and "detail" in e for e in results_by_index(events).values())
    stored = Submission.objects.get(pk=submission.pk)
    assert stored.status == "done" and stored.results.count() == 2


def test_submit_shows_the_candidate_only_aggregates_and_staff_everything(tmp_path: Path) -> None:
    problem = tiny_problem(hidden=3)
    candidate = user_with_role("cand", "candidate")
    # An admin: an interviewer with no part in a session of this submission sees nothing of it
    # (issue 13; the assigned interviewer's view is in tests/privacy).
    admin = user_with_role("root", admin=True)
    with worker(tmp_path / "worker.log"):
        submission = submission_create(
            user=candidate, problem_slug=problem.slug, code=WRONG, mode="submit"
        )
        candidate_events = collect(candidate, submission.pk)
        staff_events = collect(admin, submission.pk)
    done = candidate_events[-1]
    assert done["verdict"] == "WA" and (done["passed"], done["total"]) == (2, 5)
    assert done["by_tag"] == {"correctness": [2, 4], "edge_cases": [0, 1]}
    text = json.dumps(candidate_events)
    assert "secret" not in text and "101" not in text  # hidden names and inputs never leak
    assert all(not e["hidden"] for e in results_by_index(candidate_events).values())
    staff_tests = results_by_index(staff_events)
    assert len(staff_tests) == 5 and staff_tests[2]["name"] == "secret 0"
    assert staff_tests[2]["detail"]["expected"] == "101"


def test_docker_down_shows_grader_unavailable_then_grades_when_it_is_back(tmp_path: Path) -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    dead_engine = f"unix://{tmp_path}/no-docker.sock"
    with worker(tmp_path / "down.log", DOCKER_HOST=dead_engine):
        submission = submission_create(
            user=candidate, problem_slug=problem.slug, code=ADD_ONE, mode="run"
        )
        wait_for(
            lambda: Submission.objects.filter(pk=submission.pk, status="retrying").exists(),
            what="the retrying status",
        )
    stored = Submission.objects.get(pk=submission.pk)
    assert stored.message == "grader unavailable, retrying"
    assert stored.verdict == ""  # never a candidate-facing failure verdict
    with worker(tmp_path / "up.log"):
        events = collect(candidate, submission.pk)
    assert events[-1]["verdict"] == "AC"
