"""The grading pipeline end to end: API/service → Celery worker (a real subprocess) → Docker
sandbox → results stored and pushed over the Channels websocket (channels-redis)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from config.routing import websocket_urlpatterns
from grading.judge import NOT_RUN_MESSAGE
from grading.models import Submission
from grading.services import submission_create
from tests.factories import ADD_ONE, tiny_problem, user_with_role
from tests.processes import wait_for, worker
from tests.sockets import WithUser, run_scenario

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.docker]

WRONG = "def solve(x):\n    return x + 1 if x < 100 else 0\n"


async def _collect(user: Any, submission_id: int, timeout: float) -> list[dict[str, Any]]:
    app = WithUser(URLRouter(websocket_urlpatterns), user)
    communicator = WebsocketCommunicator(app, f"/ws/submissions/{submission_id}/")
    connected, _ = await communicator.connect(timeout=30)
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
    return run_scenario(_collect, user, submission_id, timeout)


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


# Prints a marker for each test it runs; loops forever on x == 0 (a public test, tag
# correctness) and on x == 101 (a hidden edge_cases test).
LOOPS = (
    "def solve(x):\n"
    "    print('ran', x, flush=True)\n"
    "    while x in (0, 101):\n"
    "        pass\n"
    "    return x + 1\n"
)


def test_a_time_limit_stops_a_run_and_each_group_of_a_submit(tmp_path: Path) -> None:
    """A Run stops at its first TLE: the later tests are shown as not run (no verdict, never
    executed). A submit stops each group (here: each tag) at its first TLE and still grades
    the others. Each test reports its CPU time beside its wall time, stored and replayed."""
    problem = tiny_problem(hidden=5)  # hidden x = 100..104: correctness, edge_cases, ...
    candidate = user_with_role("cand", "candidate")
    admin = user_with_role("root", admin=True)
    with worker(tmp_path / "worker.log"):
        run = submission_create(user=candidate, problem_slug=problem.slug, code=LOOPS, mode="run")
        run_events = collect(candidate, run.pk)
        submit = submission_create(
            user=candidate, problem_slug=problem.slug, code=LOOPS, mode="submit"
        )
        collect(candidate, submit.pk)
        staff_events = collect(admin, submit.pk)  # after done: replayed from the stored rows

    done = run_events[-1]
    assert (done["verdict"], done["passed"], done["total"]) == ("TLE", 0, 2)
    first, second = results_by_index(run_events)[0], results_by_index(run_events)[1]
    assert first["verdict"] == "TLE" and first["cpu_ms"] >= 2000 and first["time_ms"] > 0
    assert second["verdict"] == "" and second["detail"]["message"] == NOT_RUN_MESSAGE
    assert "ran" not in second["detail"]["stdout"] and second["cpu_ms"] == 0
    rows = list(Submission.objects.get(pk=run.pk).results.order_by("index"))
    assert [(r.verdict, r.cpu_ms >= 2000) for r in rows] == [("TLE", True), ("", False)]

    tests = results_by_index(staff_events)
    verdicts = {t["name"]: t["verdict"] for t in tests.values()}
    assert verdicts == {
        "public 0": "TLE",  # correctness: stops there
        "public 1": "",
        "secret 0": "",
        "secret 1": "TLE",  # edge_cases: stops there
        "secret 2": "",
        "secret 3": "",
        "secret 4": "",
    }
    for test in tests.values():
        printed = test["detail"]["stdout"]
        assert ("ran" in printed) == (test["verdict"] != ""), test  # not run: never executed
    stored = Submission.objects.get(pk=submit.pk)
    assert stored.verdict == "TLE" and (stored.passed, stored.total) == (0, 7)
    assert stored.worst_by_tag == {"correctness": "TLE", "edge_cases": "TLE"}
    assert all(tests[i]["cpu_ms"] >= 2000 for i in (0, 3))


def test_a_loop_in_one_group_leaves_the_other_groups_graded(tmp_path: Path) -> None:
    """Only the group of the looping test stops: the other groups are graded in full."""
    problem = tiny_problem(hidden=4)
    candidate = user_with_role("cand", "candidate")
    admin = user_with_role("root", admin=True)
    loops_on_edge = LOOPS.replace("(0, 101)", "(101,)")
    with worker(tmp_path / "worker.log"):
        submit = submission_create(
            user=candidate, problem_slug=problem.slug, code=loops_on_edge, mode="submit"
        )
        collect(candidate, submit.pk)
        staff_events = collect(admin, submit.pk)
    verdicts = [t["verdict"] for t in results_by_index(staff_events).values()]
    # public 0, public 1, secret 0 (correctness), secret 1 (edge: loops), secret 2
    # (correctness), secret 3 (edge: not run).
    assert verdicts == ["AC", "AC", "AC", "TLE", "AC", ""]
    stored = Submission.objects.get(pk=submit.pk)
    assert stored.by_tag == {"correctness": [4, 4], "edge_cases": [0, 2]}


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
