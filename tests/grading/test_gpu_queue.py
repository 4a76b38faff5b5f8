"""GPU problems route to the `gpu` Celery queue; on a machine without a GPU the same queue runs
the GPU image on the CPU, so the whole path is exercised here."""

from __future__ import annotations

from pathlib import Path

import pytest

from grading.models import Submission
from grading.sandboxing import sandbox_gpu, sandbox_image
from grading.services import submission_create
from problems.models import Problem
from problems.services import BANK_DIR, problem_load_folder
from tests.factories import user_with_role
from tests.processes import broker_purge, kind_queues, wait_for, worker

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.docker,
    pytest.mark.gpu_image,
    pytest.mark.slow,
]
SLUG = "continuous-batching-engine"


def test_gpu_problem_is_graded_only_by_the_gpu_queue_worker(tmp_path: Path) -> None:
    problem_load_folder(root=BANK_DIR / SLUG)
    problem = Problem.objects.get(slug=SLUG)
    assert problem.queue == "gpu"
    assert sandbox_image("gpu").startswith("onsite-sandbox:gpu-")
    assert sandbox_gpu("cpu") is False
    candidate = user_with_role("cand", "candidate")
    reference = (BANK_DIR / SLUG / "reference.py").read_text()
    broker_purge()  # jobs other tests left unconsumed must not reach the cpu worker's log
    with worker(tmp_path / "cpu.log", queues=kind_queues("cpu")):
        submission = submission_create(
            user=candidate, problem_slug=SLUG, code=reference, mode="run"
        )
        with worker(tmp_path / "gpu.log", queues=kind_queues("gpu")):
            wait_for(
                lambda: Submission.objects.filter(pk=submission.pk, status="done").exists(),
                timeout=300,
                what="the gpu worker's verdict",
            )
    graded = Submission.objects.get(pk=submission.pk)
    assert graded.verdict == "AC", list(graded.results.values_list("name", "verdict", "detail"))
    assert "grading.tasks.grade_submission[" in (tmp_path / "gpu.log").read_text()
    assert "grading.tasks.grade_submission[" not in (tmp_path / "cpu.log").read_text()
