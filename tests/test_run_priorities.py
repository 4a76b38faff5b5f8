"""Keystrokes first (issue 42.1): the processes a keystroke goes through (the web server and
Redis; nginx in the production shape) get a higher CPU priority than the workers, the beat and
anything else on the host, set by the platform's own start-up: `platform/run.py` for
`make run` (nice values), the compose files for the production shape (`cpu_shares`)."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import sys
from typing import Any

import yaml

from tests.processes import ROOT

DOCKER_DEFAULT_SHARES = 1024  # what a container gets when its service names none


def load_run_module() -> Any:
    spec = importlib.util.spec_from_file_location("onsite_run", ROOT / "platform" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["onsite_run"] = module  # dataclasses looks the module up by name
    spec.loader.exec_module(module)
    return module


def test_make_run_starts_the_web_and_redis_above_every_worker_and_the_default() -> None:
    """Every process `make run` starts, started for real with the priority it declares (each
    argv swapped for a sleep): the nice values the kernel reports are ordered web = Redis <
    the default (where raising a priority is allowed: root here) < every worker."""
    run = load_run_module()
    children = [
        run.Child("redis", ["redis-server"], nice=run.REDIS_NICE),
        *run.worker_children(["celery"], "/onsite-sandboxes"),
        run.web_child(),
    ]
    # The restart path builds the same Child: what main() starts is what is declared here.
    assert run.web_child().nice == run.WEB_NICE
    started = []
    try:
        for child in children:
            child.argv = ["sleep", "60"]
            child.start()
            started.append(child)
        nice = {child.name: run.child_nice(child.proc.pid) for child in started}
    finally:
        for child in started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.proc.pid, signal.SIGKILL)
            child.proc.wait()
    ours = os.nice(0)
    workers = {name: value for name, value in nice.items() if name.startswith("worker-")}
    assert set(workers) >= {"worker-cpu", "worker-cpu-interactive", "worker-cpu-background",
                            "worker-gpu", "worker-gpu-background", "worker-io"}
    assert nice["web"] == nice["redis"]
    assert all(nice["web"] < value for value in workers.values()), nice
    assert min(workers.values()) > ours  # below anything started at the default
    if os.geteuid() == 0:
        assert nice["web"] < ours, nice  # above anything at the default, the host's too
    else:
        assert nice["web"] == ours  # no CAP_SYS_NICE: the default, still above the workers
    # Background work below foreground work.
    assert workers["worker-cpu-background"] > workers["worker-cpu"]
    assert workers["worker-gpu-background"] > workers["worker-gpu"]


def services(*files: str) -> dict[str, dict[str, Any]]:
    """The services of the compose files, each later file's keys over the earlier's (what
    docker-compose does for the keys read here)."""
    merged: dict[str, dict[str, Any]] = {}
    for name in files:
        data = yaml.safe_load((ROOT / name).read_text())
        for service, spec in data["services"].items():
            merged.setdefault(service, {}).update(spec or {})
    return merged


def shares(spec: dict[str, Any]) -> int:
    return int(spec.get("cpu_shares", DOCKER_DEFAULT_SHARES))


def check_weights(stack: dict[str, dict[str, Any]], keystroke_path: set[str]) -> None:
    started = {name: spec for name, spec in stack.items() if "bridge-network" not in
               spec.get("profiles", [])}
    path = {name: shares(spec) for name, spec in started.items() if name in keystroke_path}
    assert set(path) == keystroke_path
    others = {name: shares(spec) for name, spec in started.items()
              if name not in keystroke_path and name not in ("postgres", "migrate")}
    assert any(name.startswith("worker-") for name in others) and "beat" in others
    lowest = min(path.values())
    assert lowest > DOCKER_DEFAULT_SHARES, path  # above any container that names no weight
    assert all(value < lowest for value in others.values()), (path, others)
    # Background workers below the foreground ones, and their sandboxes lighter too.
    assert shares(started["worker-cpu-background"]) < shares(started["worker-cpu"])
    sandbox = {name: int(spec["environment"]["ONSITE_SANDBOX_CPU_SHARES"])
               for name, spec in started.items()
               if "ONSITE_SANDBOX_CPU_SHARES" in (spec.get("environment") or {})}
    assert sandbox["worker-cpu-background"] < sandbox["worker-cpu"]


def test_the_production_shape_weighs_the_keystroke_path_above_everything_else() -> None:
    check_weights(services("docker-compose.yml"), {"web", "redis", "nginx"})


def test_the_single_host_shape_does_too() -> None:
    stack = services("docker-compose.yml", "platform/prod/compose.single-host.yml")
    check_weights(stack, {"web", "web-2", "redis", "proxy"})


def test_run_reads_a_process_nice_value_from_proc() -> None:
    run = load_run_module()
    assert run.child_nice(os.getpid()) == os.nice(0)
    assert run.child_nice(2**22 + 1) is None  # no such process
