"""The container is locked down: checked with ``docker inspect`` and from inside."""

from __future__ import annotations

import textwrap

import docker
import pytest

from sandbox import Limits, TestInput, run
from sandbox.docker_runner import (
    ContainerSpec,
    configured_runtime,
    create_container,
    engine_runtimes,
    has_nvidia_runtime,
    new_run_id,
    remove_container,
)

pytestmark = pytest.mark.docker

LIMITS = Limits(memory_mb=200, pids=48, tmpfs_mb=32, nofile=128, cpus=0.5)


@pytest.fixture(params=["default", "runc", "crun"])
def runtime(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The same lock-down on each OCI runtime the engine has (and on the one chosen by
    default: crun where registered, see sandbox/docker_runner.py)."""
    if request.param != "default":
        if request.param not in engine_runtimes():
            pytest.skip(f"the engine has no {request.param} runtime")
        monkeypatch.setenv("ONSITE_SANDBOX_RUNTIME", request.param)
    return configured_runtime()


def test_docker_inspect_shows_every_lockdown_item(
    docker_client: docker.DockerClient, sandbox_image: str, runtime: str
) -> None:
    spec = ContainerSpec.for_run(sandbox_image, LIMITS, gpu=False)
    run_id = new_run_id()
    container_id = create_container(docker_client, spec, run_id, pooled=False, idle_seconds=60)
    try:
        info = docker_client.api.inspect_container(container_id)
    finally:
        remove_container(docker_client, container_id)
    host, config = info["HostConfig"], info["Config"]
    assert host["NetworkMode"] == "none"
    assert config.get("NetworkDisabled") is True
    assert host["ReadonlyRootfs"] is True
    assert config["User"] == "65534:65534"
    assert host["CapDrop"] == ["ALL"] and not host.get("CapAdd")
    assert host["SecurityOpt"] == ["no-new-privileges"]  # default seccomp stays on
    assert host["Privileged"] is False
    assert host["PidsLimit"] == 48
    assert host["Memory"] == host["MemorySwap"] == 200 * 1024 * 1024
    assert host["NanoCpus"] == 500_000_000
    ulimits = {u["Name"]: (u["Soft"], u["Hard"]) for u in host["Ulimits"]}
    assert ulimits == {"nofile": (128, 128), "fsize": (32 << 20, 32 << 20), "core": (0, 0)}
    assert host["Init"] is False  # the harness is PID 1 itself (see create_container)
    assert host["Runtime"] == runtime
    assert host["LogConfig"]["Type"] == "none"
    assert host["ShmSize"] == 32 * 1024 * 1024
    assert host["IpcMode"] == "private"
    for path in ("/tmp", "/work", "/dev/shm"):
        options = host["Tmpfs"][path].split(",")
        assert "size=32m" in options and "mode=1777" in options
        assert {"nosuid", "nodev", "noexec"} <= set(options)
        assert any(o.startswith("nr_inodes=") for o in options)
    assert not host.get("Binds") and not info.get("Mounts")  # no docker socket, no volume
    assert not host.get("Devices") and not host.get("DeviceRequests")
    assert config["Labels"]["onsite.sandbox"] == "1"
    assert config["Labels"]["onsite.run"] == run_id
    assert config["OpenStdin"] is True and config["StdinOnce"] is True and config["Tty"] is False
    env = dict(item.split("=", 1) for item in config["Env"])
    assert env["ONSITE_SANDBOX"] == "1"
    assert env["ONSITE_OWN_CGROUP"] == "1"  # CPU time of a test is read from its cgroup
    # Only fixed values: nothing of the worker's environment (no secrets, no DOCKER_HOST).
    assert not any(k.startswith(("DJANGO", "DATABASE", "REDIS", "CELERY", "DOCKER")) for k in env)


def test_inside_view_is_locked_down(sandbox_image: str, runtime: str) -> None:
    solution = """
        import os, socket

        def status_field(name):
            for line in open("/proc/self/status"):
                if line.startswith(name + ":"):
                    return line.split(":", 1)[1].strip()

        def can_write(path):
            try:
                with open(path, "w") as handle:
                    handle.write("x")
                return True
            except OSError:
                return False

        def mounts():
            return {line.split()[1]: line.split()[3] for line in open("/proc/mounts")}

        def solve():
            try:
                socket.create_connection(("1.1.1.1", 53), timeout=1)
                network = "reachable"
            except OSError:
                network = "unreachable"
            m = mounts()
            return {
                "uid": os.getuid(), "gid": os.getgid(),
                "cap_eff": status_field("CapEff"), "cap_bnd": status_field("CapBnd"),
                "no_new_privs": status_field("NoNewPrivs"), "seccomp": status_field("Seccomp"),
                "interfaces": sorted(os.listdir("/sys/class/net")),
                "network": network,
                "write_root": can_write("/etc/evil"), "write_usr": can_write("/usr/evil"),
                "write_site": can_write("/usr/local/lib/python3.11/dist-packages/evil.py"),
                "write_harness": can_write("/opt/onsite/harness/evil.py"),
                "write_work": can_write("/work/ok"), "write_tmp": can_write("/tmp/ok"),
                "docker_sock": os.path.exists("/var/run/docker.sock"),
                "env": sorted(os.environ),
                "tmp_mount": m.get("/tmp", ""), "work_mount": m.get("/work", ""),
                "root_mount": m.get("/", ""),
                "cwd": os.getcwd(),
                "pid1_mem": can_open("/proc/1/mem", "rb"),
                "pid1_stdout": can_open("/proc/1/fd/1", "w"),
                "pid1_environ": can_open("/proc/1/environ", "rb"),
            }

        def can_open(path, mode):
            try:
                open(path, mode).close()
                return True
            except OSError:
                return False
    """
    result = run(
        solution=textwrap.dedent(solution),
        driver={"kind": "function", "entry": "solve"},
        tests=[TestInput("inside", {"args": []})],
        limits=LIMITS,
        image=sandbox_image,
    )
    (outcome,) = result.outcomes
    assert outcome.status == "ok", outcome.error
    seen = outcome.output
    assert (seen["uid"], seen["gid"]) == (65534, 65534)
    assert int(seen["cap_eff"], 16) == 0 and int(seen["cap_bnd"], 16) == 0
    assert seen["no_new_privs"] == "1"
    assert seen["seccomp"] == "2"  # filter mode: Docker's default profile is on
    assert seen["interfaces"] == ["lo"] and seen["network"] == "unreachable"
    assert not any(seen[k] for k in ("write_root", "write_usr", "write_site", "write_harness"))
    assert seen["write_work"] and seen["write_tmp"]
    assert not seen["docker_sock"]
    assert seen["root_mount"].startswith("ro,")
    assert "size=32768k" in seen["tmp_mount"] and "noexec" in seen["work_mount"]
    assert seen["cwd"] == "/work"
    # PID 1 is the non-dumpable harness: its memory, stdout and environment are out of reach.
    assert not (seen["pid1_mem"] or seen["pid1_stdout"] or seen["pid1_environ"])
    allowed = {
        "ONSITE_SANDBOX",
        "ONSITE_WORKDIR",
        "ONSITE_IDLE_SECONDS",
        "ONSITE_OWN_CGROUP",
        "HOME",
        "LANG",
        "PATH",
        "OMP_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "MKL_NUM_THREADS",
        "NUMEXPR_MAX_THREADS",
        "HOSTNAME",
    }
    assert set(seen["env"]) <= allowed


def test_gpu_devices_only_with_the_nvidia_runtime(
    docker_client: docker.DockerClient, sandbox_image: str
) -> None:
    spec = ContainerSpec.for_run(sandbox_image, LIMITS, gpu=True)
    container_id = create_container(
        docker_client, spec, new_run_id(), pooled=False, idle_seconds=60
    )
    try:
        info = docker_client.api.inspect_container(container_id)
    finally:
        remove_container(docker_client, container_id)
    requests = info["HostConfig"].get("DeviceRequests") or []
    if has_nvidia_runtime(docker_client):
        assert requests and requests[0]["Count"] == -1 and requests[0]["Capabilities"] == [["gpu"]]
    else:
        assert requests == []  # no GPU on this engine: the CPU path, no device at all
    assert not info["HostConfig"].get("Devices")
    assert "ONSITE_PRELOAD=torch" in info["Config"]["Env"]


def test_auto_prefers_crun_but_not_for_gpu_containers_on_an_nvidia_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sandbox import docker_runner

    engine = "unix:///nowhere-but-the-cache.sock"

    def engine_has(*names: str) -> None:
        monkeypatch.setitem(docker_runner._ENGINE_RUNTIMES, engine, frozenset(names))

    monkeypatch.delenv("ONSITE_SANDBOX_RUNTIME", raising=False)
    monkeypatch.setenv("DOCKER_HOST", engine)
    engine_has("runc", "crun")
    assert configured_runtime() == configured_runtime(gpu=True) == "crun"
    engine_has("runc", "crun", "nvidia")
    assert (configured_runtime(), configured_runtime(gpu=True)) == ("crun", "runc")
    engine_has("runc")
    assert configured_runtime() == "runc"
    monkeypatch.setenv("ONSITE_SANDBOX_RUNTIME", "runc")
    engine_has("runc", "crun")
    assert configured_runtime() == "runc"
