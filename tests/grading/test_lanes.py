"""Lanes by urgency (issue 23): which queue each job kind goes to, the order a worker takes
them in (real Redis and a real Celery worker), where a waiting run stands, and the io lane
that webhooks and e-mail use instead of a grading slot."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.test import Client

from grading import queueing, service_times
from grading.events import status_event
from grading.jobs import KINDS
from grading.lanes import FOREGROUND, IO_QUEUE, Lane, all_queues, queue_name, worker_queues
from grading.models import Submission
from grading.services import SUBMISSION_JOBS, submission_create
from interviews.review import webhooks
from problems.models import ProblemVersion
from studio.services.regrades import REGRADE_JOBS
from studio.services.validations import VALIDATION_JOBS, version_validation_request
from tests.factories import ADD_ONE, client_for, tiny_problem, user_with_role
from tests.processes import ROOT, broker_purge, wait_for, worker

pytestmark = pytest.mark.django_db(transaction=True)


def broker() -> redis.Redis:
    return redis.Redis.from_url(settings.CELERY_BROKER_URL)


def depth(queue: str) -> int:
    return int(broker().llen(queue))


# ---------------------------------------------------------------- which lane


def test_every_job_kind_declares_its_lane_and_the_sweep_covers_all_three() -> None:
    assert {"submission", "validation", "regrade"} <= set(KINDS)
    problem = tiny_problem()
    version = problem.live_version
    assert version is not None
    assert VALIDATION_JOBS.queue(version) == "cpu.background"
    assert REGRADE_JOBS.lane(None) is Lane.BACKGROUND
    assert worker_queues("cpu") == "cpu.interactive,cpu.submit,cpu.background"
    assert worker_queues("gpu", FOREGROUND) == "gpu.interactive,gpu.submit"
    assert set(all_queues()) >= {"cpu.interactive", "gpu.background", IO_QUEUE}
    with pytest.raises(ValueError):
        queue_name("tpu", Lane.SUBMIT)


def test_a_submit_waits_in_the_submit_lane_and_everything_a_person_watches_is_interactive() -> None:
    problem = tiny_problem()
    user = user_with_role("cand", "candidate")
    broker_purge()
    lanes = {
        mode: submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode=mode).lane
        for mode in ("run", "submit", "script")
    }
    in_session = submission_create(
        user=user, problem_slug=problem.slug, code=ADD_ONE, mode="submit", in_session=True
    )
    assert lanes == {"run": "interactive", "submit": "submit", "script": "interactive"}
    assert in_session.lane == "interactive"
    assert SUBMISSION_JOBS.queue(in_session) == "cpu.interactive"
    # The broker got each message on its lane's queue; the background lane holds only the two
    # Submits' fingerprinting for copied code (grading/copies.py), which nobody waits on.
    assert depth("cpu.interactive") == 3 and depth("cpu.submit") == 1
    assert depth("cpu.background") == 2
    broker_purge()


# ---------------------------------------------------------------- the order a worker takes


@pytest.mark.docker
@pytest.mark.slow
def test_one_slot_takes_the_interactive_runs_before_the_background_job_queued_first(
    tmp_path: Path,
) -> None:
    problem = tiny_problem()
    version = problem.live_version
    assert version is not None
    broker_purge()
    # given a background job queued first, then two interactive Runs, and no worker yet (two:
    # a round-robin poll would take the background job second)
    assert version_validation_request(version=version)
    user = user_with_role("cand", "candidate")
    runs = [
        submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="run")
        for _ in range(2)
    ]
    assert depth("cpu.background") == 1 and depth("cpu.interactive") == 2
    # when one worker with one slot serves every lane of the kind
    with worker(tmp_path / "worker.log", queues=worker_queues("cpu"), concurrency=1):
        wait_for(
            lambda: ProblemVersion.objects.filter(
                pk=version.pk, validation__in=["passed", "failed"]
            ).exists(),
            timeout=240,
            what="both jobs",
        )
    # then both Runs were graded before the validation started
    version.refresh_from_db()
    assert version.validation_started_at is not None
    for run in runs:
        run.refresh_from_db()
        assert run.status == "done" and run.verdict == "AC"
        assert run.finished_at is not None and run.finished_at <= version.validation_started_at


@pytest.mark.docker
@pytest.mark.slow
def test_a_foreground_worker_never_takes_background_work(tmp_path: Path) -> None:
    """`make run`'s topology: the grading slots of the interactive and submit lanes are theirs
    alone; a background job waits for the background worker, however idle the others are."""
    problem = tiny_problem()
    version = problem.live_version
    assert version is not None
    broker_purge()
    assert version_validation_request(version=version)
    run = submission_create(
        user=user_with_role("cand", "candidate"),
        problem_slug=problem.slug,
        code=ADD_ONE,
        mode="submit",
    )
    with worker(tmp_path / "fg.log", queues=worker_queues("cpu", FOREGROUND), concurrency=1):
        wait_for(
            lambda: Submission.objects.filter(pk=run.pk, status="done").exists(),
            timeout=120,
            what="the submit",
        )
    version.refresh_from_db()
    assert version.validation == "pending" and version.validation_started_at is None
    # the validation and the Submit's fingerprinting (grading/copies.py) still wait
    assert depth("cpu.background") == 2
    broker_purge()


# ---------------------------------------------------------------- where a waiting run stands


def test_a_waiting_run_knows_how_many_are_ahead_of_it_and_about_how_long() -> None:
    problem = tiny_problem()
    user = user_with_role("cand", "candidate")
    broker_purge()
    stale = list(broker().scan_iter(match="onsite:pool:*"))  # workers of earlier tests
    if stale:
        broker().delete(*stale)
    service_times.forget_all()  # and the slot times they measured (problem ids come back)
    submit = submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="submit")
    runs = [
        submission_create(user=user, problem_slug=problem.slug, code=ADD_ONE, mode="run")
        for _ in range(3)
    ]
    # Interactive runs go first: the submit, queued first, has all three runs ahead of it.
    positions = [queueing.queue_position(s) for s in (*runs, submit)]
    assert [p.ahead if p else None for p in positions] == [0, 1, 2, 3]
    third = positions[2]  # one slot (no worker reported), nothing graded yet: the default time
    assert third is not None and third.slots == 1 and third.running == 0
    assert third.wait_seconds == 2 * queueing.DEFAULT_SERVICE_SECONDS  # the two ahead of it
    # The socket's status event and the REST view carry the same position.
    event = status_event(runs[2])
    assert event["status"] == "queued" and event["queue"]["ahead"] == 2
    body = client_for(user).get(f"/api/submissions/{runs[2].pk}").json()
    assert body["queue"] == event["queue"] and body["lane"] == "interactive"
    # /metrics reports the numbers the estimate is made of.
    metrics = Client().get("/metrics", REMOTE_ADDR="127.0.0.1").content.decode()
    assert 'onsite_waiting_runs{queue="cpu.interactive"} 3' in metrics
    assert 'onsite_waiting_runs{queue="cpu.submit"} 1' in metrics
    assert 'onsite_grading_slots{queue="cpu.interactive"}' in metrics
    assert 'onsite_grading_service_seconds{kind="cpu"}' in metrics
    # A run no longer waiting has no position.
    Submission.objects.filter(pk=runs[0].pk).update(status="done")
    runs[0].refresh_from_db()
    assert queueing.queue_position(runs[0]) is None and "queue" not in status_event(runs[0])
    broker_purge()


# ---------------------------------------------------------------- the io lane


def test_webhook_deliveries_go_to_the_io_queue_not_a_grading_slot(settings: Any) -> None:
    settings.ONSITE_WEBHOOK_URLS = ["http://127.0.0.1:9/hook"]
    broker_purge()
    ids = webhooks.webhook_send("session.finished", {"session": 1})
    assert len(ids) == 1
    assert depth(IO_QUEUE) == 1
    assert all(depth(queue) == 0 for queue in all_queues() if queue != IO_QUEUE)
    broker_purge()


def test_make_run_starts_a_worker_per_lane_group_and_the_io_worker_with_the_beat() -> None:
    spec = importlib.util.spec_from_file_location("onsite_run", ROOT / "platform" / "run.py")
    assert spec is not None and spec.loader is not None
    run = importlib.util.module_from_spec(spec)
    sys.modules["onsite_run"] = run
    spec.loader.exec_module(run)
    children = {c.name: c for c in run.worker_children(["celery"], "/onsite-sandboxes")}
    queues = {name: c.argv[c.argv.index("-Q") + 1] for name, c in children.items()}
    assert queues == {
        "worker-cpu-interactive": "cpu.interactive",  # a slot no Submit can take
        "worker-cpu": "cpu.interactive,cpu.submit",
        "worker-cpu-background": "cpu.background",
        "worker-gpu": "gpu.interactive,gpu.submit",
        "worker-gpu-background": "gpu.background",
        "worker-io": "io",
    }
    assert "-B" in children["worker-io"].argv
    slots = {name: int(c.argv[c.argv.index("-c") + 1]) for name, c in children.items()}
    assert slots["worker-cpu-interactive"] + slots["worker-cpu"] == 2  # ONSITE_CPU_WORKERS
    # Background work is niced below foreground work, and its sandboxes weigh less.
    assert children["worker-cpu-background"].nice > children["worker-cpu"].nice > 0
    shares = {
        name: int((c.env or {}).get("ONSITE_SANDBOX_CPU_SHARES", 0)) for name, c in children.items()
    }
    assert shares["worker-cpu-interactive"] > shares["worker-cpu"] > shares["worker-cpu-background"]
    fg = children["worker-cpu"].env
    assert fg is not None and fg["ONSITE_SANDBOX_CGROUP_PARENT"] == "/onsite-sandboxes"


# ---------------------------------------------------------------- one lifecycle, every kind


def test_a_regrade_asked_for_while_the_broker_is_down_waits_for_the_sweep() -> None:
    """Regrades had no sweep: a publish that failed marked them failed. Now every job kind
    keeps its row waiting and the sweep hands it out once the broker is back."""
    from studio.models import Regrade
    from studio.services.regrades import version_regrade_preview
    from tests import services

    problem = tiny_problem()
    version = problem.live_version
    assert version is not None
    services.stop_redis()
    try:
        regrade = version_regrade_preview(version=version)
    finally:
        services.start_redis_again()
    regrade.refresh_from_db()
    assert regrade.status == Regrade.Status.QUEUED and regrade.enqueued_at is None
    broker_purge()
    assert REGRADE_JOBS.requeue_stale() == 1
    regrade.refresh_from_db()
    assert regrade.enqueued_at is not None and depth("cpu.background") == 1
    assert REGRADE_JOBS.requeue_stale() == 0  # handed out: not again until it goes stale
    broker_purge()
