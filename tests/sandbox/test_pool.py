"""Warm pool (one pre-started container per run, then destroyed) and the orphan reaper."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import docker
import docker.errors
import pytest

from sandbox import Limits, TestInput, WarmPool, reap, run
from sandbox.docker_runner import LABEL_RUN

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]
LIMITS = Limits(test_wall_seconds=2.0, test_cpu_seconds=2.0, memory_mb=128)


def exists(client: docker.DockerClient, container_id: str) -> bool:
    try:
        client.api.inspect_container(container_id)
    except docker.errors.NotFound:
        return False
    return True


@pytest.fixture
def pool() -> Iterator[WarmPool]:
    warm = WarmPool(size=1, start_timeout_seconds=60)
    yield warm
    warm.close()


def test_warm_hit_uses_a_prestarted_container_once(
    pool: WarmPool, docker_client: docker.DockerClient, sandbox_image: str
) -> None:
    spec = pool.prewarm(sandbox_image, LIMITS)
    assert pool.wait_idle(spec, 1, timeout=60)
    (warm_id,) = pool.idle_container_ids(spec)
    info = docker_client.api.inspect_container(warm_id)
    assert info["State"]["Running"] and info["Config"]["Labels"]["onsite.pool"] == "1"

    result = run(
        solution="def solve(x):\n    return x * 2\n",
        driver={"kind": "function", "entry": "solve"},
        tests=[TestInput(f"t{i}", {"args": [i]}) for i in range(3)],
        limits=LIMITS,
        image=sandbox_image,
        pool=pool,
    )
    assert result.cold_start is False
    assert [o.output for o in result.outcomes] == [0, 2, 4]
    assert result.run_id == info["Config"]["Labels"][LABEL_RUN]
    assert pool.drain()  # the used container is removed in the background...
    assert not exists(docker_client, warm_id)  # ...used once, then destroyed
    assert pool.hits == 1

    # The pool refills in the background with a new container.
    assert pool.wait_idle(spec, 1, timeout=60)
    (refill_id,) = pool.idle_container_ids(spec)
    assert refill_id != warm_id

    # A run of another shape finds nothing warm: cold start (and the shape is now wanted).
    other = run(
        solution="def solve(x):\n    return x\n",
        driver={"kind": "function", "entry": "solve"},
        tests=[TestInput("t", {"args": [1]})],
        limits=Limits(memory_mb=160),
        image=sandbox_image,
        pool=pool,
    )
    assert other.cold_start is True and other.outcomes[0].output == 1

    pool.close()
    assert not exists(docker_client, refill_id)  # closing removes idle containers


def test_wait_warm_waits_for_a_container_of_every_shape_asked_for(
    pool: WarmPool, sandbox_image: str
) -> None:
    assert pool.wait_warm(0.0)  # nothing asked for: nothing to wait for
    shapes = [pool.prewarm(sandbox_image, LIMITS),
              pool.prewarm(sandbox_image, Limits(test_wall_seconds=2.0, test_cpu_seconds=2.0,
                                                 memory_mb=192))]
    assert pool.wait_warm(120)
    assert all(pool.idle_count(shape) >= 1 for shape in shapes)


def test_a_dead_pooled_container_is_skipped(
    pool: WarmPool, docker_client: docker.DockerClient, sandbox_image: str
) -> None:
    spec = pool.prewarm(sandbox_image, LIMITS)
    assert pool.wait_idle(spec, 1, timeout=60)
    (warm_id,) = pool.idle_container_ids(spec)
    docker_client.api.kill(warm_id)
    time.sleep(0.5)
    result = run(
        solution="def solve():\n    return 'fine'\n",
        driver={"kind": "function", "entry": "solve"},
        tests=[TestInput("t", {"args": []})],
        limits=LIMITS,
        image=sandbox_image,
        pool=pool,
    )
    assert result.cold_start is True and result.outcomes[0].output == "fine"
    assert not exists(docker_client, warm_id)


def test_reaper_removes_old_labelled_containers(
    docker_client: docker.DockerClient, sandbox_image: str
) -> None:
    tag = f"onsite.test={uuid.uuid4().hex}"
    key, value = tag.split("=")
    ids = {}
    for kind in ("0", "1"):  # a run's container and an idle pool container
        created = docker_client.api.create_container(
            sandbox_image,
            command=["true"],
            labels={"onsite.sandbox": "1", "onsite.run": "x", "onsite.pool": kind, key: value},
        )
        ids[kind] = created["Id"]
    try:
        assert reap(max_age_seconds=3600, idle_max_age_seconds=3600, label=tag) == []
        assert reap(max_age_seconds=0, idle_max_age_seconds=3600, label=tag) == [ids["0"]]
        assert exists(docker_client, ids["1"])  # idle pool containers have their own max age
        assert reap(max_age_seconds=0, idle_max_age_seconds=0, label=tag) == [ids["1"]]
        assert not exists(docker_client, ids["0"]) and not exists(docker_client, ids["1"])
    finally:
        for container_id in ids.values():
            if exists(docker_client, container_id):
                docker_client.api.remove_container(container_id, force=True)


WORKER = """
import sys, time
from sandbox import Limits, WarmPool
pool = WarmPool(size=1)
spec = pool.prewarm(sys.argv[1], Limits(memory_mb=128))
assert pool.wait_idle(spec, 1, timeout=60)
print(pool.idle_container_ids(spec)[0], flush=True)
time.sleep(600)
"""


def test_sigkilled_worker_leaves_nothing_running(
    docker_client: docker.DockerClient, sandbox_image: str
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKER, sandbox_image],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None
        container_id = proc.stdout.readline().strip()
        assert container_id, "the worker did not start its pool"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    info = docker_client.api.inspect_container(container_id)
    run_id = info["Config"]["Labels"][LABEL_RUN]
    # Its attach socket closed, so the harness saw stdin EOF and the container stopped itself...
    deadline = time.monotonic() + 20
    while docker_client.api.inspect_container(container_id)["State"]["Running"]:
        assert time.monotonic() < deadline, "orphaned container still running"
        time.sleep(0.2)
    # ...and the reaper removes what is left (narrowed to this container's run label).
    assert reap(idle_max_age_seconds=0, label=f"{LABEL_RUN}={run_id}") == [container_id]
    assert not exists(docker_client, container_id)


def test_harness_idle_limit_ends_a_forgotten_container(sandbox_image: str) -> None:
    from sandbox.docker_runner import ContainerSpec, connect, start_attached

    client = connect()
    spec = ContainerSpec.for_run(sandbox_image, LIMITS, gpu=False)
    attached = start_attached(
        client, spec, pooled=True, deadline=time.monotonic() + 60, idle_seconds=1.0
    )
    try:
        deadline = time.monotonic() + 20
        while client.api.inspect_container(attached.container_id)["State"]["Running"]:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        code = client.api.inspect_container(attached.container_id)["State"]["ExitCode"]
        assert code == 5  # EXIT_IDLE
    finally:
        attached.destroy()
        client.close()


def test_latency_script_is_importable() -> None:
    # The cold vs warm measurement lives next to the tests; make sure it stays runnable.
    source = (Path(__file__).parent / "latency.py").read_text()
    compile(textwrap.dedent(source), "latency.py", "exec")


def _memory_mib(client: docker.DockerClient, container_id: str) -> float:
    stats = client.api.stats(container_id, stream=False)["memory_stats"]
    return float(stats.get("usage", 0)) / 2**20


@pytest.mark.gpu_image
def test_a_pooled_pytorch_shape_has_torch_loaded_before_its_job(
    docker_client: docker.DockerClient, gpu_image: str
) -> None:
    """A problem whose driver and support module import torch gets pooled containers that
    imported it while idle (~150 MiB of it in memory before any job), so its run skips the
    import; a problem without torch on the same image does not pay for it."""
    limits = Limits(test_wall_seconds=10.0, test_cpu_seconds=10.0, memory_mb=1024)
    driver = {
        "kind": "custom",
        "source": "import os, sys\nimport support\n\ndef run(solution, test_input):\n"
        "    return [os.environ.get('ONSITE_PRELOAD'), 'torch' in sys.modules, "
        "support.width(), solution.solve()]\n",
    }
    modules = {"support": "import torch\n\ndef width():\n    return int(torch.ones(3).sum())\n"}
    pool = WarmPool(size=1, start_timeout_seconds=120)
    try:
        torch_shape = pool.prewarm(gpu_image, limits, driver=driver, modules=modules)
        plain_shape = pool.prewarm(gpu_image, limits, driver={"kind": "function", "entry": "f"})
        assert torch_shape.preload == ("torch",) and plain_shape.preload == ()
        assert pool.wait_idle(torch_shape, 1, timeout=120)
        assert pool.wait_idle(plain_shape, 1, timeout=120)
        (with_torch,) = pool.idle_container_ids(torch_shape)
        (without,) = pool.idle_container_ids(plain_shape)
        assert _memory_mib(docker_client, with_torch) > _memory_mib(docker_client, without) + 60
        result = run(
            solution="def solve():\n    return 'ok'\n",
            driver=driver,
            tests=[TestInput("t", None)],
            limits=limits,
            image=gpu_image,
            modules=modules,
            pool=pool,
        )
        assert result.cold_start is False and result.run_id  # the pooled container served it
        assert result.outcomes[0].output == ["torch", True, 3, "ok"], result.outcomes[0].error
    finally:
        pool.close()
