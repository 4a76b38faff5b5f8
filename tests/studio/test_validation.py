"""Validation of a problem version: the report's logic (pure), the service grading for real in
the sandbox (in process), and the Celery job on the problem's queue (a real worker)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from grading import service_times
from grading.judge import Compare, GradeSpec, TestSpec, TestVerdict, judgement_from
from problems.models import Problem, ProblemVersion
from problems.services import BANK_DIR, problem_load_folder
from sandbox import Limits
from studio import validation
from studio.services.errors import ProblemActionError
from studio.services.publishing import problem_publish
from studio.services.validations import (
    version_is_validated,
    version_solutions,
    version_validate,
    version_validation_request,
    version_validation_state,
)
from tests.factories import ADD_ONE, tiny_problem
from tests.processes import kind_queues, wait_for, worker

OFF_BY_TWO = "def solve(x):\n    return x + 2\n"
CRASHES = "def solve(x):\n    raise ValueError('no')\n"


def verdict(
    name: str,
    v: str = "AC",
    time_ms: float = 1.0,
    hidden: bool = False,
    *,
    wall_ms: float | None = None,
) -> TestVerdict:
    """A verdict whose CPU time is `time_ms` (its wall time `wall_ms`, the same by default)."""
    wall = time_ms if wall_ms is None else wall_ms
    return TestVerdict(0, name, v, wall, "correctness", hidden, {"message": ""}, cpu_ms=time_ms)


def wrong(file: str, verdict_: str, code: str) -> dict[str, Any]:
    return {"file": file, "verdict": verdict_, "why": "because", "code": code}


def with_content(problem: Problem, **content: Any) -> Problem:
    """Change the problem's content as a package load would: on it and on its live version
    (which is what a validation grades)."""
    version = problem.live_version
    assert version is not None
    for name, value in content.items():
        setattr(problem, name, value)
        setattr(version, name, value)
    problem.save()
    version.save()
    return problem


def with_wrong(problem: Problem, *solutions: dict[str, Any]) -> Problem:
    return with_content(problem, wrong_solutions=list(solutions))


def check(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in report["checks"] if c["name"] == name)


# ---------------------------------------------------------------- pure report logic


def test_reference_must_pass_and_starter_must_not() -> None:
    ref = validation.Solution("reference", "reference.py", "", "AC")
    starter = validation.Solution("starter", "starter.py", "", "not AC")
    passing = judgement_from([verdict("a"), verdict("b")])
    failing = judgement_from([verdict("a"), verdict("b", "WA")])
    assert validation.check_solution(ref, passing)["status"] == "pass"
    failed_ref = validation.check_solution(ref, failing)
    assert failed_ref["status"] == "fail" and failed_ref["tests"][0]["name"] == "b"
    assert validation.check_solution(starter, failing)["status"] == "pass"
    assert validation.check_solution(starter, passing)["message"] == (
        "the starter code passes every test"
    )
    internal = judgement_from([verdict("a", "IE")])
    assert validation.check_solution(starter, internal)["status"] == "fail"


def test_a_known_wrong_solution_must_get_exactly_its_declared_verdict() -> None:
    tle = validation.Solution("wrong", "wrong/slow.py", "", "TLE")
    got_wa = judgement_from([verdict("a"), verdict("b", "WA")])
    got_tle = judgement_from([verdict("a", "TLE"), verdict("b", "WA")])
    result = validation.check_solution(tle, got_wa)
    assert (result["status"], result["expected"], result["got"]) == ("fail", "TLE", "WA")
    assert result["message"] == "declared TLE, got WA"
    assert [t["name"] for t in result["tests"]] == ["b"]
    assert validation.check_solution(tle, got_tle)["status"] == "pass"


def test_a_known_wrong_solution_must_fail_the_groups_and_say_the_words_it_declares() -> None:
    declared = validation.Solution(
        "wrong", "wrong/leak.py", "", "WA", groups=("blocks",), says="shared block"
    )

    def graded(group: str, message: str) -> TestVerdict:
        return TestVerdict(0, "h", "WA", 1.0, "correctness", True, {"message": message}, group)

    ok_tests = [verdict("a", hidden=True)]
    shows_both = judgement_from([*ok_tests, graded("blocks", "a shared block at step 3")])
    other_group = judgement_from([*ok_tests, graded("budget", "a shared block at step 3")])
    other_words = judgement_from([*ok_tests, graded("blocks", "wrong tokens")])

    assert validation.check_solution(declared, shows_both)["status"] == "pass"
    missed = validation.check_solution(declared, other_group)
    assert missed["status"] == "fail"
    assert missed["message"] == "declared to fail hidden group blocks, which has no tests"
    blocks_ac = TestVerdict(1, "h2", "AC", 1.0, "correctness", True, {}, "blocks")
    passes_it = judgement_from([blocks_ac, graded("budget", "a shared block")])
    assert validation.check_solution(declared, passes_it)["message"] == (
        "declared to fail hidden group blocks, but passed it"
    )
    assert validation.check_solution(declared, other_words)["message"] == (
        "no failed hidden test says 'shared block'"
    )
    assert validation.solutions_for(
        reference="", starter="", wrong=[wrong("wrong/leak.py", "WA", "") | {"groups": ["x"]}]
    )[-1].groups == ("x",)


def test_suggested_limit_is_a_multiple_of_the_slowest_test_above_a_floor() -> None:
    assert validation.suggested_limit_seconds(5.0) == validation.TIME_FLOOR_SECONDS
    assert validation.suggested_limit_seconds(400.0) == 1.2  # 3 × 0.4 s
    assert validation.suggested_limit_seconds(401.0) == 1.3  # rounded up, never down
    assert validation.suggested_limit_seconds(10_000_000.0) == validation.TIME_CEILING_SECONDS


def test_timing_flags_tests_over_half_the_limit() -> None:
    judgement = judgement_from(
        [verdict("fast", time_ms=10.0), verdict("slow", time_ms=1200.0, hidden=True)]
    )
    timing = validation.timing_calibrate(
        judgement, {"test_wall_seconds": 3.0, "test_cpu_seconds": 2.0}
    )
    assert timing["limit_ms"] == 2000.0  # the tighter of wall and CPU
    assert timing["flagged"] == ["slow"] and timing["slowest_test"] == "slow"
    assert timing["suggested_limit_seconds"] == 3.6
    assert timing["status"] == "warn" and len(timing["warnings"]) == 2
    rows = {r["name"]: r for r in timing["tests"]}
    assert rows["slow"]["percent_of_limit"] == 60.0 and not rows["fast"]["flagged"]
    relaxed = validation.timing_calibrate(judgement, {"test_wall_seconds": 10.0})
    assert relaxed["status"] == "pass" and relaxed["flagged"] == []


def test_the_slowest_tests_are_retimed_and_count_for_their_least_cpu_time() -> None:
    """Issue 36.7: one grading's CPU time of the slowest test set the limit, and a loaded
    machine moved it by a third. The slowest tests are graded again and each counts for the
    least CPU time it took (noise and load only add): a spike in one grading moves nothing."""
    first = judgement_from(
        [verdict("a", time_ms=5.0), verdict("b", time_ms=300.0), verdict("c", time_ms=410.0),
         verdict("d", time_ms=200.0), verdict("e", time_ms=90.0)]
    )
    spec = GradeSpec(
        solution="", driver={}, image="", limits=Limits(), compare=Compare(),
        tests=[TestSpec(name, 1, 2) for name in "abcde"],
    )
    again = validation.retime_spec(spec, first)
    assert again is not None and [t.name for t in again.tests] == ["b", "c", "d"]
    retimed = [
        judgement_from([verdict("b", time_ms=310.0), verdict("c", time_ms=305.0),
                        verdict("d", time_ms=190.0)]),
        judgement_from([verdict("b", time_ms=295.0), verdict("c", time_ms=320.0),
                        verdict("d", time_ms=220.0)]),
    ]
    timing = validation.timing_calibrate(first, {"test_wall_seconds": 2.0}, retimed)
    # c's 410 ms was a spike: its least is 305 ms, and b (295 ms) is not the slowest either.
    assert (timing["slowest_test"], timing["slowest_ms"]) == ("c", 305.0)
    assert timing["suggested_limit_seconds"] == 1.0  # 3 × 0.305 s = 0.915 s, the 1 s floor
    rows = {row["name"]: row for row in timing["tests"]}
    assert rows["c"]["cpu_samples_ms"] == [410.0, 305.0, 320.0] and rows["c"]["cpu_ms"] == 305.0
    assert "cpu_samples_ms" not in rows["a"] and rows["a"]["cpu_ms"] == 5.0
    assert timing["retimes"] == 2
    # A failed re-run (a platform hiccup, a crash) never lowers a time.
    crashed = judgement_from([verdict("c", "RE", time_ms=1.0)])
    assert validation.least_cpu_ms([first, crashed])["c"] == 410.0
    # Nothing to retime for a reference that failed.
    assert validation.retime_spec(spec, judgement_from([verdict("a", "WA")])) is None


def test_timing_is_calibrated_on_cpu_time_so_a_busy_machine_moves_no_suggestion() -> None:
    """The studio's own report of the issue: a 5-value test "took" 4.7 s of wall time on a
    loaded machine (236 % of its 2 s limit) and the suggestion became 21.7 s. Its CPU time did
    not move; the suggestion, the flags and the share of the limit follow the CPU time."""
    limits = {"test_wall_seconds": 2.0, "test_cpu_seconds": 2.0}
    quiet = validation.timing_calibrate(
        judgement_from([verdict("five", time_ms=40.0, wall_ms=60.0)]), limits
    )
    loaded = validation.timing_calibrate(
        judgement_from([verdict("five", time_ms=42.0, wall_ms=4700.0)]), limits
    )
    assert quiet["suggested_limit_seconds"] == loaded["suggested_limit_seconds"] == 1.0
    assert loaded["status"] == "pass" and loaded["flagged"] == [] and loaded["warnings"] == []
    [row] = loaded["tests"]
    assert row["percent_of_limit"] == 2.1 and row["time_ms"] == 4700.0 and row["cpu_ms"] == 42.0
    assert loaded["slowest_ms"] == 42.0


def test_a_report_passes_only_when_no_solution_check_failed() -> None:
    ok = {"name": "reference.py", "status": "pass"}
    bad = {"name": "wrong/x.py", "status": "fail"}
    common: dict[str, Any] = {
        "version_number": 1,
        "timing": None,
        "lint": validation.lint_check(["needs at least 12 hidden tests"]),
        "solutions_hash": "h",
        "started_at": "",
        "finished_at": "",
    }
    assert validation.report_build(checks=[ok], **common)["passed"] is True
    failed = validation.report_build(checks=[ok, bad], **common)
    assert failed["passed"] is False and failed["failed_checks"] == ["wrong/x.py"]
    assert validation.validation_state("passed", {"solutions_hash": "h"}, "h") == "passed"
    assert validation.validation_state("passed", {"solutions_hash": "h"}, "other") == "stale"


# ---------------------------------------------------------------- publishing rules (no sandbox)


@pytest.mark.django_db
def test_publishing_needs_a_validated_live_version_that_is_not_stale() -> None:
    problem = tiny_problem(published=False)
    with pytest.raises(ProblemActionError, match=r"v1 has not passed validation \(pending\)"):
        problem_publish(problem=problem)
    live = problem.live_version
    assert live is not None
    current = validation.solutions_hash(version_solutions(live))
    ProblemVersion.objects.filter(pk=live.pk).update(
        validation="passed", validation_report={"solutions_hash": current}
    )
    assert problem_publish(problem=problem).published
    # The reference changes under the report (a version edited in place, as the admin or a
    # migration could): the report no longer speaks for it.
    ProblemVersion.objects.filter(pk=live.pk).update(reference_code=OFF_BY_TWO)
    Problem.objects.filter(pk=problem.pk).update(published=False)
    problem.refresh_from_db()
    assert version_validation_state(problem.live_version) == "stale"  # type: ignore[arg-type]
    with pytest.raises(ProblemActionError, match="stale"):
        problem_publish(problem=problem)


@pytest.mark.django_db
def test_loading_the_bank_still_publishes_without_a_validation_run() -> None:
    [(problem, created)] = problem_load_folder(root=BANK_DIR / "token-bucket")
    assert created and problem.published
    assert problem.live_version is not None and problem.live_version.validation == "pending"


# ---------------------------------------------------------------- the service, in the sandbox


@pytest.mark.django_db
@pytest.mark.docker
def test_a_bank_problem_validates_with_every_check_passing() -> None:
    [(problem, _)] = problem_load_folder(root=BANK_DIR / "token-bucket")
    version = problem.live_version
    assert version is not None
    service_times.forget_all()
    assert version_validate(version=version) == "done"
    version.refresh_from_db()
    # The live reference's grading is the queue's first measure of the problem's Submits
    # (issue 36.5: before any candidate submits, an estimate no longer starts from a guess).
    measured = service_times.read(kind=problem.queue, mode="submit", problem_id=problem.pk)
    assert measured.n == 1 and measured.mean > 0
    report = version.validation_report
    assert version.validation == "passed" and version.validated_at is not None
    names = [c["name"] for c in report["checks"]]
    assert names[:2] == ["reference.py", "starter.py"]
    assert len(names) == 2 + len(problem.wrong_solutions)
    assert all(c["status"] == "pass" for c in report["checks"]), report["failed_checks"]
    for declared in problem.wrong_solutions:
        wrong_check = check(report, declared["file"])
        assert wrong_check["expected"] == wrong_check["got"] == declared["verdict"]
    reference = check(report, "reference.py")
    assert reference["passed_tests"] == reference["total_tests"] == len(version.tests_for("submit"))
    timing = report["timing"]
    assert len(timing["tests"]) == reference["total_tests"]
    assert timing["suggested_limit_seconds"] >= validation.TIME_FLOOR_SECONDS
    assert version_is_validated(version)
    problem_publish(problem=problem)  # allowed now


@pytest.mark.django_db
@pytest.mark.docker
def test_a_broken_package_fails_and_the_report_says_what_and_why() -> None:
    problem = tiny_problem(published=False)
    with_content(problem, starter_code=ADD_ONE)  # a starter that already passes
    with_wrong(
        problem,
        wrong("wrong/off_by_two.py", "WA", OFF_BY_TWO),  # right: gets WA
        wrong("wrong/crashes.py", "TLE", CRASHES),  # declared TLE, really RE
        wrong("wrong/not_wrong.py", "WA", ADD_ONE),  # declared WA, really AC
    )
    version = problem.live_version
    assert version is not None
    assert version_validate(version=version) == "done"  # the job's outcome; the verdict:
    version.refresh_from_db()
    report = version.validation_report
    assert version.validation == "failed"
    assert report["failed_checks"] == ["starter.py", "wrong/crashes.py", "wrong/not_wrong.py"]
    assert check(report, "reference.py")["status"] == "pass"
    assert check(report, "wrong/off_by_two.py")["got"] == "WA"
    crashes = check(report, "wrong/crashes.py")
    assert (crashes["expected"], crashes["got"]) == ("TLE", "RE")
    assert crashes["tests"][0]["message"] == "raised ValueError"
    assert check(report, "wrong/not_wrong.py")["message"] == "declared WA, got AC"
    with pytest.raises(ProblemActionError, match="failed"):
        problem_publish(problem=problem)


@pytest.mark.django_db
@pytest.mark.docker
def test_a_slow_reference_test_is_flagged_and_a_limit_suggested() -> None:
    problem = tiny_problem(published=False)
    # Hidden tests take x >= 100: 0.6 s of CPU there (what a time limit is judged on, so a
    # sleep would not count) is over half of a 1 s limit.
    with_content(
        problem,
        reference_code=(
            "import time\n\n"
            "def solve(x):\n"
            "    if x >= 100:\n"
            "        start = time.process_time()\n"
            "        while time.process_time() - start < 0.6:\n"
            "            pass\n"
            "    return x + 1\n"
        ),
    )
    version = problem.live_version
    assert version is not None
    version.limits = dict(version.limits, test_wall_seconds=3.0, test_cpu_seconds=1.0)
    version.save()
    assert version_validate(version=version) == "done"
    version.refresh_from_db()
    assert version.validation == "passed"  # timing warns, it does not fail
    timing = version.validation_report["timing"]
    assert timing["status"] == "warn"
    assert timing["flagged"] == ["secret 0", "secret 1", "secret 2"]
    assert timing["suggested_limit_seconds"] >= 1.8  # 3 × at least 0.6 s
    # The slowest tests were graded twice more; each counts for its least CPU time.
    assert timing["retimes"] == validation.RETIMES
    rows = {row["name"]: row for row in timing["tests"]}
    for name in timing["flagged"]:
        samples = rows[name]["cpu_samples_ms"]
        assert len(samples) == 1 + validation.RETIMES and rows[name]["cpu_ms"] == min(samples)


@pytest.mark.django_db
def test_a_second_validation_is_not_queued_while_one_runs() -> None:
    problem = tiny_problem()
    version = problem.live_version
    assert version is not None
    ProblemVersion.objects.filter(pk=version.pk).update(
        validation="running", validation_started_at=timezone.now()
    )
    assert version_validation_request(version=version) is False
    assert version_validate(version=version) == "skipped"


# ---------------------------------------------------------------- the Celery job


@pytest.mark.django_db(transaction=True)
@pytest.mark.docker
def test_the_validation_job_runs_on_the_problem_queue(tmp_path: Path) -> None:
    problem = with_wrong(tiny_problem(), wrong("wrong/off_by_two.py", "WA", OFF_BY_TWO))
    version = problem.live_version
    assert version is not None
    with worker(tmp_path / "worker.log", queues=kind_queues("cpu")):
        assert version_validation_request(version=version)
        wait_for(
            lambda: ProblemVersion.objects.filter(pk=version.pk, validation="passed").exists(),
            timeout=120,
            what="the validation to pass",
        )
    version.refresh_from_db()
    assert check(version.validation_report, "wrong/off_by_two.py")["got"] == "WA"


@pytest.mark.django_db(transaction=True)
@pytest.mark.docker
def test_docker_down_leaves_the_validation_pending_until_the_grader_is_back(
    tmp_path: Path,
) -> None:
    problem = tiny_problem()
    version = problem.live_version
    assert version is not None
    dead_engine = f"unix://{tmp_path}/no-docker.sock"
    with worker(tmp_path / "down.log", queues=kind_queues("cpu"), DOCKER_HOST=dead_engine):
        version_validation_request(version=version)
        wait_for(
            lambda: ProblemVersion.objects.filter(
                pk=version.pk, validation="pending", validation_report__retrying=True
            ).exists(),
            what="a retrying report",
        )
    version.refresh_from_db()
    error = version.validation_report["error"]
    # What failed, not the server's internals: the dead socket's path stays in the log.
    assert error.startswith("sandbox failed") and str(tmp_path) not in error
    with worker(tmp_path / "up.log", queues=kind_queues("cpu")):
        wait_for(
            lambda: ProblemVersion.objects.filter(pk=version.pk, validation="passed").exists(),
            timeout=120,
            what="the validation to pass once Docker is back",
        )
