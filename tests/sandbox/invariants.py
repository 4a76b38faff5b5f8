"""The invariants I1–I6 of /work/shared/sandbox-threats.md, checked after every adversarial run.

Each ``check_*`` returns a list of problems (empty: the invariant holds), so one attack reports
every broken invariant at once instead of stopping at the first.

* I1 nothing left alive: no container with the run's label, no host process in its cgroup.
* I2 nothing left behind: no new host file whose name carries an attack marker or a canary
  (under the paths a worker uses: /tmp, /dev/shm, the repository's var/), the container's
  directory under the Docker data root gone, the image id unchanged.
* I3 nothing leaks: the canaries never appear in what the sandbox returns for the candidate;
  a test's own input may only appear in that test's outcome.
* I4 the next honest submission still passes (``honest_spec`` + ``check_honest_passes``).
* I5 a pass is decided outside: the job sent to the container (recorded at ``encode_job`` and
  at the socket, ``Attached.execute``) holds names and inputs only, never an expected value.
* I6 healthy: the run ended within its total wall limit plus a small kill margin and the
  Docker engine still answers.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import docker
import docker.errors
import pytest

import sandbox
from grading.judge import Compare, GradeSpec, Judgement, TestSpec, TestVerdict, judge
from sandbox import docker_runner, execute
from sandbox.docker_runner import LABEL_RUN
from sandbox.types import Limits, RunResult, TestOutcome

REPO = Path(__file__).resolve().parents[2]
# Every file an attack creates carries this in its name, so a file that reaches the host is
# found by name among whatever other processes write to /tmp meanwhile.
ATTACK_MARKER = "onsite_attack"
# Host paths the worker uses (its temp dir, the repository's var/); the container's /dev/shm
# is private, the host's is checked in case that ever changes.
HOST_ROOTS = (Path("/tmp"), Path("/dev/shm"), REPO / "var")
DOCKER_ROOT = Path("/var/lib/docker")
# After the total wall limit: force-remove the container and close the socket.
KILL_MARGIN_SECONDS = 5.0
# The sandbox caps an error text at this many characters (sandbox/docker_runner.py).
MAX_ERROR_CHARS = docker_runner.MAX_ERROR_CHARS


# ------------------------------------------------------------------------------- canaries


@dataclass(frozen=True)
class Canaries:
    """Fresh secret strings for one adversarial run.

    ``env``: planted in the worker's environment (and a host file); ``hidden_input``: the
    input of a hidden test; ``expected``: an expected output that only the worker holds.
    """

    env: str
    hidden_input: str
    expected: str

    @classmethod
    def fresh(cls) -> Canaries:
        def make(kind: str) -> str:
            return f"ONSITECANARY{kind}{secrets.token_hex(10)}"

        return cls(env=make("ENV"), hidden_input=make("IN"), expected=make("EXP"))

    @property
    def never_in_container(self) -> tuple[str, str]:
        """Canaries that must never even enter the container."""
        return (self.env, self.expected)

    @property
    def markers(self) -> tuple[str, ...]:
        return (ATTACK_MARKER, self.env, self.hidden_input, self.expected)


def plant_worker_secrets(monkeypatch: pytest.MonkeyPatch, canaries: Canaries) -> Path:
    """Put the env canary where a worker keeps secrets: its environment and a host file.

    The file's name carries no marker (it is ours, not the attack's); the caller removes it.
    """
    for name in ("ONSITE_CANARY_SECRET", "DJANGO_SECRET_KEY", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, canaries.env)
    monkeypatch.setenv("ONSITE_CANARY_DATABASE_URL", f"postgres://onsite:{canaries.env}@db/x")
    planted = Path("/tmp") / f"onsite_planted_{os.getpid()}_{secrets.token_hex(4)}"
    planted.mkdir()
    (planted / "secret.txt").write_text(canaries.env + "\n")
    return planted


# ------------------------------------------------------------------------------- recorder


@dataclass
class SandboxRecorder:
    """Records what the worker creates and sends for each sandbox run of one attack.

    ``install`` wraps, for the duration of the test, ``encode_job`` (the job as a dict, and
    the nonce), ``create_container`` (run id and container id of every non-pooled container)
    and ``Attached.execute`` (the exact bytes written to the container's stdin).
    ``run_fn`` is handed to ``judge``: it runs cold (never a pooled container, so no container
    outside this attack is recorded) and records outcomes as they stream.
    """

    jobs: list[dict[str, Any]] = field(default_factory=list)
    nonces: list[str] = field(default_factory=list)
    sent: list[bytes] = field(default_factory=list)
    containers: list[tuple[str, str]] = field(default_factory=list)
    outcomes: list[TestOutcome] = field(default_factory=list)
    results: list[RunResult] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        original_encode = docker_runner.encode_job
        original_create = docker_runner.create_container
        original_execute = docker_runner.Attached.execute

        def encode_job(job: dict[str, Any]) -> tuple[bytes, str]:
            line, nonce = original_encode(job)
            with self._lock:
                self.jobs.append(json.loads(json.dumps(job)))
                self.nonces.append(nonce)
            return line, nonce

        def create_container(*args: Any, **kwargs: Any) -> str:
            container_id = original_create(*args, **kwargs)
            if not kwargs.get("pooled", False):
                run_id = str(args[2] if len(args) > 2 else kwargs["run_id"])
                with self._lock:
                    self.containers.append((run_id, container_id))
            return container_id

        def execute_job(attached: docker_runner.Attached, *, job: bytes, **kwargs: Any) -> Any:
            with self._lock:
                self.sent.append(bytes(job))
            return original_execute(attached, job=job, **kwargs)

        monkeypatch.setattr(docker_runner, "encode_job", encode_job)
        # execute.py imported the name: patch it where it is looked up too.
        monkeypatch.setattr(execute, "encode_job", encode_job, raising=False)
        monkeypatch.setattr(docker_runner, "create_container", create_container)
        monkeypatch.setattr(docker_runner.Attached, "execute", execute_job)

    def run_fn(self, **kwargs: Any) -> RunResult:
        """``sandbox.run`` with a cold container, recording every outcome."""
        downstream: Callable[[TestOutcome], None] | None = kwargs.pop("on_outcome", None)

        def on_outcome(outcome: TestOutcome) -> None:
            with self._lock:
                self.outcomes.append(outcome)
            if downstream is not None:
                downstream(outcome)

        result = sandbox.run(**kwargs, on_outcome=on_outcome, pool=_NoPool())  # type: ignore[arg-type]
        with self._lock:
            self.results.append(result)
        return result


class _NoPool:
    """A pool that never has a container ready: every recorded run starts its own, cold."""

    def acquire(self, spec: object) -> None:
        return None


# ------------------------------------------------------------------------------- I1


def _host_pids_in_cgroup(container_id: str) -> list[int]:
    """Host processes whose cgroup path names the container (cgroup v1 and v2 layouts)."""
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/cgroup").read_text()
        except OSError:
            continue
        if container_id in text:
            found.append(int(entry))
    return found


def check_nothing_alive(
    client: docker.DockerClient, recorder: SandboxRecorder, *, settle_seconds: float = 5.0
) -> list[str]:
    """I1: every recorded container is gone, and so is every process that ran in it."""
    problems: list[str] = []
    if not recorder.containers:
        problems.append("I1: no sandbox container was recorded for this run")
    for run_id, container_id in recorder.containers:
        listed = client.api.containers(all=True, filters={"label": f"{LABEL_RUN}={run_id}"})
        if listed:
            states = [c.get("State") for c in listed]
            problems.append(f"I1: container of run {run_id} still exists ({states})")
        try:
            client.api.inspect_container(container_id)
            problems.append(f"I1: container {container_id[:12]} can still be inspected")
        except docker.errors.NotFound:
            pass
        deadline = time.monotonic() + settle_seconds
        survivors = _host_pids_in_cgroup(container_id)
        while survivors and time.monotonic() < deadline:  # a kill in flight, give it a moment
            time.sleep(0.1)
            survivors = _host_pids_in_cgroup(container_id)
        if survivors:
            problems.append(f"I1: host processes of container {container_id[:12]}: {survivors}")
    return problems


# ------------------------------------------------------------------------------- I2


@dataclass(frozen=True)
class HostSnapshot:
    """What I2 compares before and after an attack."""

    marked: frozenset[str]
    image_id: str


def marked_paths(roots: Iterable[Path], markers: Sequence[str], max_depth: int = 8) -> set[str]:
    """Paths under ``roots`` whose name contains one of ``markers`` (never following links)."""
    found: set[str] = set()

    def walk(directory: str, depth: int) -> None:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            return
        for entry in entries:
            if any(marker in entry.name for marker in markers):
                found.add(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir and depth < max_depth:
                walk(entry.path, depth + 1)

    for root in roots:
        if root.is_dir():
            walk(str(root), 0)
    return found


def snapshot_host(client: docker.DockerClient, image: str, canaries: Canaries) -> HostSnapshot:
    return HostSnapshot(
        marked=frozenset(marked_paths(HOST_ROOTS, canaries.markers)),
        image_id=str(client.images.get(image).id),
    )


def check_nothing_left(
    before: HostSnapshot, after: HostSnapshot, recorder: SandboxRecorder
) -> list[str]:
    """I2: no new marked file on the host, the containers' data gone, the image unchanged."""
    problems: list[str] = []
    new = sorted(after.marked - before.marked)
    if new:
        problems.append(f"I2: new files on the host carry attack markers: {new[:10]}")
    if after.image_id != before.image_id:
        problems.append(f"I2: the image changed: {before.image_id} -> {after.image_id}")
    containers_dir = DOCKER_ROOT / "containers"
    if os.access(containers_dir, os.R_OK | os.X_OK):
        for _, container_id in recorder.containers:
            if (containers_dir / container_id).exists():
                problems.append(f"I2: {containers_dir / container_id} is still on the host")
    return problems


# ------------------------------------------------------------------------------- I3


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=True, default=repr)


def check_no_leak(
    outcomes: Sequence[TestOutcome],
    canaries: Canaries,
    nonces: Sequence[str],
    *,
    own_input_index: int,
    verdicts: Sequence[TestVerdict] = (),
) -> list[str]:
    """I3: the canaries (and the nonce) never reach what the candidate can see.

    Outcome fields (output, stdout, stderr, error, exc_type) are what the sandbox returns; the
    hidden input may only show up in the outcome of its own test (a hidden test, whose details
    the grading layer keeps from the candidate). Public verdicts' details must hold no secret.
    """
    problems: list[str] = []
    for outcome in outcomes:
        blob = _text(
            [outcome.output, outcome.stdout, outcome.stderr, outcome.error, outcome.exc_type]
        )
        for secret in canaries.never_in_container:
            if secret in blob:
                problems.append(f"I3: a worker-side secret is in the outcome of {outcome.name}")
        if outcome.index != own_input_index and canaries.hidden_input in blob:
            problems.append(f"I3: another test's hidden input is in the outcome of {outcome.name}")
        for nonce in nonces:
            if nonce in blob:
                problems.append(f"I3: the frame nonce is in the outcome of {outcome.name}")
    for verdict in verdicts:
        if verdict.hidden:
            continue
        shown = _text(dict(verdict.detail))
        for secret in canaries.never_in_container:
            if secret in shown:
                problems.append(f"I3: a secret is in the public verdict detail of {verdict.name}")
    return problems


# ------------------------------------------------------------------------------- I4

HONEST_SOLUTION = "def solve(a, b):\n    return a + b\n"


def honest_spec(image: str, limits: Limits) -> GradeSpec:
    """A plain submission that must pass on the same worker right after an attack."""
    return GradeSpec(
        solution=HONEST_SOLUTION,
        driver={"kind": "function", "entry": "solve"},
        tests=[
            TestSpec(name="sum", input={"args": [2, 3]}, expected=5),
            TestSpec(name="sum-hidden", input={"args": [-7, 10]}, expected=3, hidden=True),
        ],
        limits=limits,
        compare=Compare(),
        image=image,
    )


def check_honest_passes(
    client: docker.DockerClient, image: str, limits: Limits, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    """I4 (with I1 and I6 for that run too): an honest submission still gets AC."""
    recorder = SandboxRecorder()
    recorder.install(monkeypatch)
    spec = honest_spec(image, limits)
    started = time.monotonic()
    try:
        judgement = judge(spec, run_fn=recorder.run_fn)
    except Exception as exc:
        return [f"I4: the honest follow-up failed: {type(exc).__name__}: {exc}"]
    problems: list[str] = []
    if judgement.verdict != "AC":
        got = [(t.name, t.verdict, dict(t.detail).get("error", "")) for t in judgement.tests]
        problems.append(f"I4: the honest follow-up got {judgement.verdict}: {got}")
    problems += check_nothing_alive(client, recorder)
    problems += check_healthy(client, time.monotonic() - started, limits, len(spec.tests))
    return problems


# ------------------------------------------------------------------------------- I5


def check_expected_never_sent(
    recorder: SandboxRecorder, spec: GradeSpec, canaries: Canaries
) -> list[str]:
    """I5: the job holds each test's input by index, nothing else (no name, no expected
    value): names stay in the worker."""
    problems: list[str] = []
    if not recorder.jobs:
        problems.append("I5: no job was recorded (cannot show that expected values stay out)")
    want = [t.input for t in spec.tests]
    for job in recorder.jobs:
        inputs = job.get("inputs")
        if inputs != json.loads(json.dumps(want)) or "tests" in job:
            problems.append(f"I5: the job's tests are not exactly the inputs: {inputs!r}"[:300])
        if _has_key(job, "name"):
            problems.append("I5: the job names its tests (names stay in the worker)")
        if _has_key(job, "expected"):
            problems.append("I5: the job has an 'expected' key")
        text = json.dumps(job)
        for secret in canaries.never_in_container:
            if secret in text:
                problems.append("I5: an expected value or worker secret is in the job")
    for raw in recorder.sent:
        for secret in canaries.never_in_container:
            if secret.encode() in raw:
                problems.append("I5: an expected value or worker secret went to the container")
    for test in spec.tests:  # the literal expected JSON of tests whose expected is no input
        literal = json.dumps(test.expected)
        if test.expected in (canaries.expected, canaries.env) and any(
            literal.encode() in raw for raw in recorder.sent
        ):
            problems.append(f"I5: the expected value of {test.name} was sent")
    return problems


def _has_key(value: Any, key: str) -> bool:
    if isinstance(value, Mapping):
        return key in value or any(_has_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(_has_key(v, key) for v in value)
    return False


# ------------------------------------------------------------------------------- I6


def check_healthy(
    client: docker.DockerClient, wall_seconds: float, limits: Limits, test_count: int
) -> list[str]:
    """I6: within the total wall limit plus the kill margin, and the engine still answers."""
    problems: list[str] = []
    allowed = limits.total_wall_seconds(test_count) + KILL_MARGIN_SECONDS
    if wall_seconds > allowed:
        problems.append(f"I6: the run took {wall_seconds:.1f} s, over its {allowed:.1f} s")
    try:
        client.ping()
    except Exception as exc:
        problems.append(f"I6: the Docker engine does not answer: {exc}")
    return problems


# ------------------------------------------------------------------------------- all at once


def check_after_attack(
    *,
    client: docker.DockerClient,
    recorder: SandboxRecorder,
    spec: GradeSpec,
    canaries: Canaries,
    before: HostSnapshot,
    after: HostSnapshot,
    judgements: Sequence[Judgement],
    wall_seconds: Sequence[float],
    own_input_index: int,
) -> list[str]:
    """I1, I2, I3, I5 and I6 for one attack (I4 runs separately, after the attack)."""
    problems = check_nothing_alive(client, recorder)
    problems += check_nothing_left(before, after, recorder)
    verdicts = [v for j in judgements for v in j.tests]
    problems += check_no_leak(
        recorder.outcomes,
        canaries,
        recorder.nonces,
        own_input_index=own_input_index,
        verdicts=verdicts,
    )
    problems += check_expected_never_sent(recorder, spec, canaries)
    for wall in wall_seconds:
        problems += check_healthy(client, wall, spec.limits, len(spec.tests))
    return problems
