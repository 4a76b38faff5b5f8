"""The worker's warm pool: which shapes it keeps ready, and what it loads before grading."""

from __future__ import annotations

from typing import Any

import pytest

from grading import worker
from grading.sandboxing import sandbox_image
from grading.services import pool_prewarm_live
from problems.services import BANK_DIR, problem_load_folder
from sandbox.docker_runner import ContainerSpec

pytestmark = pytest.mark.django_db

PYTORCH = ("continuous-batching-engine", "paged-kv-engine")


class RecordingPool:
    """Records what a worker asks its pool to keep warm (no containers)."""

    def __init__(self) -> None:
        self.shapes: set[ContainerSpec] = set()

    def prewarm(self, image: str, limits: Any, gpu: bool = False, **problem: Any) -> None:
        self.shapes.add(
            ContainerSpec.for_job(image, limits, gpu, problem["driver"], problem["modules"])
        )


def test_a_gpu_worker_keeps_the_pytorch_problems_shape_warm_with_torch_preloaded() -> None:
    for slug in (*PYTORCH, "token-bucket"):
        problem_load_folder(root=BANK_DIR / slug)
    pool = RecordingPool()
    libraries = pool_prewarm_live(pool=pool, queues={"gpu"})  # type: ignore[arg-type]
    # Both PyTorch problems share one shape: the gpu image, 2 GiB, torch imported while idle.
    (shape,) = pool.shapes
    assert shape.image == sandbox_image("gpu") and shape.memory_mb == 2048
    assert shape.preload == ("torch",)
    # Their checkers run the reference decode with torch in the worker: loaded ahead too.
    assert libraries == ["torch"]
    # A cpu worker keeps none of them warm (and loads no torch).
    cpu = RecordingPool()
    assert pool_prewarm_live(pool=cpu, queues={"cpu"}) == []  # type: ignore[arg-type]
    assert {s.image for s in cpu.shapes} == {sandbox_image("cpu")}
    assert all(s.preload == () for s in cpu.shapes)


def test_the_worker_knows_the_queue_kinds_it_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    from config.celery import app
    from grading.lanes import Lane, worker_queues

    assert worker.served_kinds() == set()  # Celery's default queue, without -Q: io, no grading
    # `celery worker -Q gpu.interactive,gpu.submit` selects them before the prefork children
    # start: every lane of gpu is the gpu kind.
    monkeypatch.setattr(app.amqp.queues, "_consume_from", None)  # restored afterwards
    app.amqp.queues.select(worker_queues("gpu", (Lane.INTERACTIVE, Lane.SUBMIT)).split(","))
    assert worker.served_kinds() == {"gpu"}
