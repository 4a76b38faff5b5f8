"""A submission's socket frames come from one module (grading.events): what the live path sends
each audience as a worker grades is what a late joiner's replay rebuilds from the database, and
building a status event never imports the module that wires the worker's Celery signals."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from grading import events, realtime, services
from grading.judge import TestVerdict
from grading.models import Submission
from tests.factories import ADD_ONE, tiny_problem, user_with_role

ROOT = Path(__file__).resolve().parents[2]


def test_only_celerys_config_imports_the_worker_module() -> None:
    # grading/worker.py wires Celery's signals when imported; the workers' report (a status
    # event's queue position, /metrics) is read through grading/workerstore.py instead.
    importers = []
    for app in ("core", "problems", "grading", "interviews", "studio", "frontend", "bench",
                "config", "platform"):
        for path in sorted((ROOT / app).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
                if "grading.worker" in names:
                    importers.append(path.relative_to(ROOT).as_posix())
    assert importers == ["config/celery.py"]


@pytest.mark.django_db
def test_the_replay_rebuilds_the_frames_the_live_path_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    problem = tiny_problem(hidden=2)
    submission = Submission.objects.create(
        user=user_with_role("owner", "candidate"), problem=problem,
        version=problem.live_version, mode="submit", code=ADD_ONE,
    )
    sent: dict[str, list[dict[str, Any]]] = {}
    monkeypatch.setattr(realtime, "_send",
                        lambda group, payload: sent.setdefault(group, []).append(payload))
    tests = submission.version.tests_for("submit")
    for index, test in enumerate(tests):
        verdict = TestVerdict(index=index, name=test["name"], verdict="AC", time_ms=1.0,
                              tag=test.get("tag", "correctness"), hidden=test["hidden"])
        services._record_test(submission.pk, verdict, done=index + 1, total=len(tests))
    Submission.objects.filter(pk=submission.pk).update(
        status=Submission.Status.DONE, verdict="AC", passed=len(tests), total=len(tests))
    services._announce(submission.pk)
    for staff in (False, True):
        live = sent[realtime.submission_group(submission.pk, staff=staff)]
        replay = events.submission_replay(submission_id=submission.pk, staff=staff)
        # The replay: the status now, each test the audience sees, one count of the rest
        # (the live path's last), then done: the frames the live path ended with.
        shown = [e for e in live if e["type"] == "test"]
        counts = [e for e in live if e["type"] == "progress"]
        assert replay == [live[-2], *shown, *counts[-1:], live[-1]]
        assert [e["type"] for e in live[-2:]] == ["status", "done"]
        assert bool(counts) is not staff  # the candidate saw the hidden tests as counts only
