"""The adversarial suite: every program under attacks/ is graded for real, then I1–I6 are checked.

One folder per attack (DMOJ-style): ``solution.py`` (``solve(tag, *args)``), ``expect.toml``
(``class``, the acceptable ``verdict`` list, ``description``; optional ``[limits]`` overrides,
``[run] mode = "concurrent" | "kill_worker"``, ``compare = "float" | "unordered"`` and
``tests = [[...], [...], [...]]``, the acceptable verdicts of t0, t1 and t2 one by one),
optionally ``input.json`` (extra args per test: ``{"t0": [...], "t1": [...], "t2": [...]}``)
and optionally ``driver.py`` (the attack is then graded through that custom driver instead
of the function driver).
``attacks/support_kit.py`` is sent with every attack as the module ``support``.

Inverted tests (CMS-style): each attack is graded by ``grading.judge.judge`` on three tests
whose expected outputs are canaries no honest program can compute:

    t0  hidden  input holds the hidden-input canary   expected: the worker-secret canary
    t1  public                                        expected: t0's hidden input
    t2  hidden                                        expected: a canary only the worker holds

So any test that passes is a stolen or forged answer. Attacks with nothing to steal return a
breach marker when they got somewhere they must not; the marker anywhere is a failure too.

A weakness whose fix belongs in sandbox/ is listed in ``FINDINGS``: its test stays as strict
as the others and is marked ``xfail(strict=True)``, so the fix turns it into an XPASS failure
that asks for the mark to go. Set ``ONSITE_ATTACK_REPORT=<path>`` to get the verdicts as JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import tomllib
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import docker
import pytest

from grading.judge import Compare, GradeSpec, JudgeError, Judgement, TestSpec, judge
from sandbox import Limits, TestOutcome, reap
from sandbox.docker_runner import LABEL_RUN
from tests.sandbox.invariants import (
    REPO,
    Canaries,
    SandboxRecorder,
    check_after_attack,
    check_expected_never_sent,
    check_healthy,
    check_honest_passes,
    check_no_leak,
    marked_paths,
    plant_worker_secrets,
    snapshot_host,
)

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ATTACKS_DIR = Path(__file__).parent / "attacks"
KIT = ATTACKS_DIR / "support_kit.py"
CLASSES = (
    "processes", "memory", "disk", "cpu", "exits", "output", "forgery", "secrets", "integrity",
    "network", "kernel", "side_channels", "concurrency", "gpu",
)  # fmt: skip
VERDICTS = ("IE", "TLE", "MLE", "OLE", "RE", "WA", "AC")
MODES = ("single", "concurrent", "kill_worker")
BREACH = "ONSITE-BREACH"
MIN_ATTACKS = 45
# Small limits keep ~90 attacks inside a few minutes on two shared cores.
SUITE_LIMITS = Limits(
    test_wall_seconds=2.0,
    test_cpu_seconds=1.0,
    memory_mb=128,
    output_bytes=65536,
    result_bytes=262144,
    pids=32,
    tmpfs_mb=32,
    nofile=64,
    cpus=1.0,
    startup_margin_seconds=10.0,
)
HIDDEN_INPUT_INDEX = 0  # t0 carries the hidden-input canary

# Weaknesses found by this suite whose fix belongs in sandbox/ (see the report for each fix).
# None open: replace_custom_driver was fixed by loading the driver before the solution.
FINDINGS: dict[str, str] = {}


@dataclass(frozen=True)
class Attack:
    name: str
    klass: str
    verdicts: frozenset[str]
    description: str
    solution: str
    limits: Limits
    extra_args: dict[str, list[Any]] = field(default_factory=dict)
    mode: str = "single"
    copies: int = 1
    driver_source: str | None = None
    compare: str = "exact"
    per_test: tuple[frozenset[str], ...] = ()


def load_attack(folder: Path) -> Attack:
    """One attack folder; ValueError when it does not follow the format."""
    expect = tomllib.loads((folder / "expect.toml").read_text())
    klass, verdicts = expect.get("class"), expect.get("verdict")
    if klass not in CLASSES:
        raise ValueError(f"{folder.name}: class {klass!r} is not one of {CLASSES}")
    if not (isinstance(verdicts, list) and verdicts and set(verdicts) <= set(VERDICTS)):
        raise ValueError(f"{folder.name}: verdict must be a non-empty list of {VERDICTS}")
    if "AC" in verdicts or "IE" in verdicts:
        raise ValueError(f"{folder.name}: an attack can never be allowed AC or IE")
    description = expect.get("description")
    if not (isinstance(description, str) and description.strip()):
        raise ValueError(f"{folder.name}: needs a one-line description")
    run_options = expect.get("run", {})
    mode = run_options.get("mode", "single")
    if mode not in MODES:
        raise ValueError(f"{folder.name}: run.mode must be one of {MODES}")
    compare = expect.get("compare", "exact")
    if compare not in ("exact", "float", "unordered"):
        raise ValueError(f"{folder.name}: compare must be exact, float or unordered")
    per_test = expect.get("tests", [])
    if not (
        isinstance(per_test, list)
        and len(per_test) in (0, 3)
        and all(isinstance(v, list) and set(v) <= set(VERDICTS) - {"AC", "IE"} for v in per_test)
    ):
        raise ValueError(f"{folder.name}: tests lists the verdicts allowed for t0, t1 and t2")
    extra: dict[str, list[Any]] = {}
    if (folder / "input.json").exists():
        extra = json.loads((folder / "input.json").read_text())
        if not (isinstance(extra, dict) and set(extra) <= {"t0", "t1", "t2"}):
            raise ValueError(f"{folder.name}: input.json maps t0/t1/t2 to lists of extra args")
    return Attack(
        name=folder.name,
        klass=klass,
        verdicts=frozenset(verdicts),
        description=description.strip(),
        solution=(folder / "solution.py").read_text(),
        limits=replace(SUITE_LIMITS, **expect.get("limits", {})),
        extra_args=extra,
        mode=mode,
        copies=int(run_options.get("copies", 1)),
        driver_source=(
            (folder / "driver.py").read_text() if (folder / "driver.py").exists() else None
        ),
        compare=compare,
        per_test=tuple(frozenset(v) for v in per_test),
    )


def load_attacks() -> list[Attack]:
    return [
        load_attack(folder)
        for folder in sorted(ATTACKS_DIR.iterdir())
        if folder.is_dir() and (folder / "solution.py").exists()
    ]


ATTACKS = load_attacks()


def _param(attack: Attack) -> Any:
    marks = []
    if attack.name in FINDINGS:
        marks.append(pytest.mark.xfail(strict=True, reason=FINDINGS[attack.name]))
    return pytest.param(attack, id=attack.name, marks=marks)


def attack_spec(attack: Attack, canaries: Canaries, image: str) -> GradeSpec:
    """The inverted problem: expected outputs only a successful attack could produce."""

    def args(tag: str, *head: Any) -> dict[str, Any]:
        return {"args": [tag, *head, *attack.extra_args.get(tag, [])]}

    # Each test its own group: a time limit in one stops no other (grading/judge.py, STOP_*),
    # so all three run whatever the one before did, and the invariants hold for each.
    tests = [
        TestSpec("t0", args("t0", canaries.hidden_input), canaries.env, hidden=True, group="t0"),
        TestSpec("t1", args("t1"), canaries.hidden_input, hidden=False, group="t1"),
        TestSpec("t2", args("t2"), canaries.expected, hidden=True, group="t2"),
    ]
    driver: dict[str, str] = {"kind": "function", "entry": "solve"}
    if attack.driver_source is not None:
        driver = {"kind": "custom", "source": attack.driver_source}
    return GradeSpec(
        solution=attack.solution,
        driver=driver,
        tests=tests,
        limits=attack.limits,
        compare=Compare(mode=attack.compare),
        image=image,
        support_code=KIT.read_text(),
    )


# ------------------------------------------------------------------------------- running


@dataclass
class Graded:
    """What grading one attack produced (several judgements in the concurrent mode)."""

    judgements: list[Judgement] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)  # "IE" where judge raised
    errors: list[str] = field(default_factory=list)  # parallel to verdicts: why IE, else ""
    walls: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def grade_once(spec: GradeSpec, recorder: SandboxRecorder, graded: Graded) -> None:
    started = time.monotonic()
    try:
        judgement = judge(spec, run_fn=recorder.run_fn)
    except JudgeError as exc:  # a platform fault: never acceptable for candidate behaviour
        graded.verdicts.append("IE")
        graded.errors.append(str(exc)[:500])
    else:
        graded.judgements.append(judgement)
        graded.verdicts.append(judgement.verdict)
        graded.errors.append("")
    graded.walls.append(time.monotonic() - started)


def grade_concurrently(attack: Attack, spec: GradeSpec, recorder: SandboxRecorder) -> Graded:
    graded = Graded()
    with ThreadPoolExecutor(max_workers=attack.copies) as executor:
        for future in [
            executor.submit(grade_once, spec, recorder, graded) for _ in range(attack.copies)
        ]:
            future.result()
    run_ids = [run_id for run_id, _ in recorder.containers]
    if len(run_ids) != attack.copies or len(set(run_ids)) != attack.copies:
        graded.problems.append(f"concurrency: {attack.copies} runs used run ids {run_ids}")
    return graded


KILLED_WORKER = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from sandbox import Limits, TestInput, docker_runner, run

    job = json.loads(sys.stdin.read())
    create = docker_runner.create_container

    def announce(*args, **kwargs):
        container_id = create(*args, **kwargs)
        print("RUN", args[2], container_id, flush=True)
        return container_id

    docker_runner.create_container = announce
    run(solution=job["solution"], driver=job["driver"],
        tests=[TestInput(t["name"], t["input"]) for t in job["tests"]],
        limits=Limits(**job["limits"]), image=job["image"], modules={"support": job["support"]})
    """
)


def kill_worker_mid_run(
    client: docker.DockerClient, spec: GradeSpec, recorder: SandboxRecorder
) -> list[str]:
    """Start a worker process, SIGKILL it once its container runs, then reap what it left.

    The container must stop on its own (its harness finishes or loses stdin) within the run's
    wall limit, and ``reap`` must remove it: nothing may stay behind a dead worker.
    """
    limits = spec.limits
    job = {
        "solution": spec.solution,
        "driver": dict(spec.driver),
        "support": spec.support_code,
        "tests": [{"name": t.name, "input": t.input} for t in spec.tests],
        "limits": {k: getattr(limits, k) for k in limits.__dataclass_fields__},
        "image": spec.image,
    }
    worker = subprocess.Popen(
        [sys.executable, "-c", KILLED_WORKER, str(REPO)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(json.dumps(job))
    worker.stdin.close()
    announced = worker.stdout.readline().split()
    problems: list[str] = []
    if len(announced) != 3 or announced[0] != "RUN":
        worker.kill()
        worker.wait()
        return [f"kill_worker: the worker never created a container ({announced})"]
    _, run_id, container_id = announced
    recorder.containers.append((run_id, container_id))
    time.sleep(1.0)  # the harness is inside t0 now (the solution sleeps there)
    os.kill(worker.pid, signal.SIGKILL)  # our own child, by pid
    worker.wait()
    worker.stdout.close()
    try:
        client.api.wait(container_id, timeout=limits.total_wall_seconds(len(spec.tests)) + 5)
    except Exception as exc:
        problems.append(f"kill_worker: the orphaned container did not stop by itself: {exc}")
    removed = reap(
        max_age_seconds=0, idle_max_age_seconds=0, client=client, label=f"{LABEL_RUN}={run_id}"
    )
    if container_id not in removed:
        problems.append(f"kill_worker: reap() did not remove {container_id[:12]} ({removed})")
    return problems


# ------------------------------------------------------------------------------- checks


def verdict_problems(attack: Attack, graded: Graded, outcomes: list[TestOutcome]) -> list[str]:
    """The verdict is acceptable; nothing passed; no breach marker; outcomes are well-formed."""
    problems: list[str] = []
    for verdict, error in zip(graded.verdicts, graded.errors, strict=True):
        if verdict not in attack.verdicts:
            detail = f": {error}" if verdict == "IE" else ""
            problems.append(f"verdict {verdict}, expected one of {sorted(attack.verdicts)}{detail}")
    for judgement in graded.judgements:
        for test, allowed in zip(judgement.tests, attack.per_test, strict=False):
            if test.verdict not in allowed:
                problems.append(
                    f"test {test.name}: {test.verdict}, expected one of {sorted(allowed)}"
                )
        for test in judgement.tests:
            if test.verdict == "AC":
                problems.append(f"test {test.name} passed: its canary was stolen or forged")
            try:  # the grader's detail must stay storable as JSON, whatever the output was
                json.dumps(dict(test.detail), allow_nan=True)
            except (TypeError, ValueError) as exc:
                problems.append(f"test {test.name}: its detail is not JSON: {exc}")
    for outcome in outcomes:
        blob = json.dumps(
            [outcome.output, outcome.stdout, outcome.stderr, outcome.error], ensure_ascii=False
        )
        if BREACH in blob:
            problems.append(f"breach in {outcome.name}: {_breach_text(blob)}")
        if len(outcome.stdout) > attack.limits.output_bytes:
            problems.append(f"{outcome.name}: stdout over the output cap ({len(outcome.stdout)})")
        if len(outcome.error) > 8000:
            problems.append(f"{outcome.name}: error text over its cap ({len(outcome.error)})")
    return problems


def _breach_text(blob: str) -> str:
    start = blob.index(BREACH)
    return blob[start : start + 240]


@pytest.fixture(scope="module")
def attack_report(request: pytest.FixtureRequest) -> Iterator[dict[str, dict[str, Any]]]:
    """Collects each attack's verdicts; printed after the module, optionally saved as JSON."""
    report: dict[str, dict[str, Any]] = {}
    started = time.monotonic()
    yield report
    elapsed = time.monotonic() - started
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None and report:
        with capture.global_and_fixture_disabled():
            _print_report(reporter, report, elapsed)
    path = os.environ.get("ONSITE_ATTACK_REPORT")
    if path:
        Path(path).write_text(json.dumps({"seconds": elapsed, "attacks": report}, indent=2))


def _print_report(reporter: Any, report: dict[str, dict[str, Any]], elapsed: float) -> None:
    reporter.write_line("")
    reporter.write_line(f"adversarial suite: {len(report)} attacks in {elapsed:.0f} s")
    for name, row in sorted(report.items(), key=lambda kv: (kv[1]["class"], kv[0])):
        status = "ok " if not row["problems"] else "XF " if name in FINDINGS else "BAD"
        reporter.write_line(
            f"  {status} {row['class']:<13} {name:<28} {'/'.join(row['verdicts']):<8} "
            f"(allowed {'/'.join(row['allowed'])})"
        )


# ------------------------------------------------------------------------------- tests


def test_attack_folders_cover_every_threat_class() -> None:
    counts = Counter(attack.klass for attack in ATTACKS)
    assert len(ATTACKS) >= MIN_ATTACKS, f"only {len(ATTACKS)} attacks"
    assert set(counts) == set(CLASSES), f"classes without an attack: {set(CLASSES) - set(counts)}"
    folders = [p for p in ATTACKS_DIR.iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert len(folders) == len(ATTACKS), "a folder without solution.py"
    assert set(FINDINGS) <= {a.name for a in ATTACKS}


@pytest.mark.parametrize("attack", [_param(a) for a in ATTACKS])
def test_attack(
    attack: Attack,
    sandbox_image: str,
    docker_client: docker.DockerClient,
    monkeypatch: pytest.MonkeyPatch,
    attack_report: dict[str, dict[str, Any]],
) -> None:
    canaries = Canaries.fresh()
    planted = plant_worker_secrets(monkeypatch, canaries)
    problems: list[str] = []
    graded = Graded()
    try:
        before = snapshot_host(docker_client, sandbox_image, canaries)
        with monkeypatch.context() as patch:
            recorder = SandboxRecorder()
            recorder.install(patch)
            spec = attack_spec(attack, canaries, sandbox_image)
            if attack.mode == "concurrent":
                graded = grade_concurrently(attack, spec, recorder)
            elif attack.mode == "kill_worker":
                problems += kill_worker_mid_run(docker_client, spec, recorder)
                grade_once(spec, recorder, graded)  # graded again, once
            else:
                grade_once(spec, recorder, graded)
            after = snapshot_host(docker_client, sandbox_image, canaries)
        problems += graded.problems
        problems += verdict_problems(attack, graded, recorder.outcomes)
        problems += check_after_attack(
            client=docker_client,
            recorder=recorder,
            spec=spec,
            canaries=canaries,
            before=before,
            after=after,
            judgements=graded.judgements,
            wall_seconds=graded.walls,
            own_input_index=HIDDEN_INPUT_INDEX,
        )
        with monkeypatch.context() as patch:  # I4: right after, on the same worker
            problems += check_honest_passes(docker_client, sandbox_image, attack.limits, patch)
    finally:
        shutil.rmtree(planted, ignore_errors=True)
        attack_report[attack.name] = {
            "class": attack.klass,
            "verdicts": graded.verdicts,
            "allowed": sorted(attack.verdicts),
            "tests": [[(t.name, t.verdict) for t in j.tests] for j in graded.judgements],
            "problems": problems,
        }
    assert not problems, f"{attack.name} ({attack.description}):\n  " + "\n  ".join(problems)


def test_invariant_checks_are_not_vacuous() -> None:
    """Each checker reports what it guards against (so a quiet check means something)."""
    canaries = Canaries.fresh()
    leak = TestOutcome(1, "t1", "ok", canaries.hidden_input, 1.0, 1.0, canaries.env, "", "")
    own = TestOutcome(0, "t0", "ok", canaries.hidden_input, 1.0, 1.0, "", "", "")
    problems = check_no_leak([own, leak], canaries, ["f" * 32], own_input_index=0)
    assert len(problems) == 2  # the worker secret, and another test's hidden input
    assert check_no_leak([own], canaries, [], own_input_index=0) == []
    spec = attack_spec(ATTACKS[0], canaries, "unused")
    recorder = SandboxRecorder()
    recorder.jobs.append({"tests": [{"name": "t0", "input": {}, "expected": canaries.expected}]})
    recorder.sent.append(canaries.expected.encode())
    assert len(check_expected_never_sent(recorder, spec, canaries)) >= 3
    assert check_expected_never_sent(SandboxRecorder(), spec, canaries)  # nothing recorded
    assert marked_paths([ATTACKS_DIR.parent], ["test_attacks"]) == {str(Path(__file__))}


def test_docker_engine_still_healthy_after_the_suite(docker_client: docker.DockerClient) -> None:
    """I6 once more at the end: after every attack the Docker engine still answers."""
    assert not check_healthy(docker_client, 0.0, SUITE_LIMITS, 0)
