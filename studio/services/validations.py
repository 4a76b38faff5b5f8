"""Validation: one background job (grading.jobs' lifecycle) that takes the steps the version's
kind declares (problems.kinds): a code problem's reference, starter and known-wrong solutions
graded on all of its tests in the sandbox, then its lint; a design problem's package checks."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from grading import jobs, service_times
from grading.judge import GradeSpec, JudgeError, Judgement, judge
from grading.lanes import Lane
from grading.sandboxing import job_budget_seconds
from grading.services import grade_spec_for
from problems import kinds
from problems.models import ProblemVersion
from problems.package import package_lint
from problems.services import problem_to_package
from studio import validation

log = logging.getLogger(__name__)


# ---------------------------------------------------------------- validation


def version_solutions(version: ProblemVersion) -> list[validation.Solution]:
    """The programs a validation of `version` grades: its reference, starter and wrong ones
    (none for a kind whose code does not run: a design problem)."""
    if kinds.GRADE_SOLUTIONS not in version.kind_spec.validation_steps:
        return []
    return validation.solutions_for(
        reference=version.reference_code,
        starter=version.starter_code,
        wrong=version.wrong_solutions,
    )


def version_validation_state(version: ProblemVersion) -> str:
    """pending | running | passed | failed | stale (see validation.validation_state)."""
    current = validation.solutions_hash(version_solutions(version))
    return validation.validation_state(version.validation, version.validation_report, current)


def version_is_validated(version: ProblemVersion) -> bool:
    return version_validation_state(version) == ProblemVersion.Validation.PASSED


VALIDATIONS = jobs.JobTable(
    model=ProblemVersion,
    status_field="validation",
    waiting=(ProblemVersion.Validation.PENDING,),
    running=ProblemVersion.Validation.RUNNING,
    retrying=ProblemVersion.Validation.PENDING,
    failed=ProblemVersion.Validation.FAILED,
)


def _validation_budget_seconds(version: ProblemVersion) -> float:
    """The longest a whole validation may take: every solution run to its wall limit, and the
    reference's slowest tests graded again (studio.validation.RETIMES, at most a run each)."""
    return job_budget_seconds(version.limits, len(version.tests_for("submit")),
                              runs=len(version_solutions(version)) + validation.RETIMES,
                              batch=True)


def version_validation_request(*, version: ProblemVersion) -> bool:
    """Queue a validation of `version` on its problem's background lane, after the
    transaction commits. Returns False (and queues nothing) while a worker holds one of it."""
    with transaction.atomic():
        reset = VALIDATIONS.reset(version.pk, validation_started_at=None)
        if reset:
            VALIDATION_JOBS.enqueue_on_commit(version)
    return reset


# A validation is background work. The sweep also hands out the versions `loadproblems` left
# pending (it runs before the broker may be up, so it only marks them); drafts are not
# waiting for anything (their status is not pending) and are left alone.
VALIDATION_JOBS = jobs.register(
    jobs.JobKind(
        name="validation",
        table=VALIDATIONS,
        task="studio.tasks.validate_version",
        queue_kind=lambda version: version.problem.queue,
        lane=lambda version: Lane.BACKGROUND,
        budget_seconds=_validation_budget_seconds,
        related=("problem",),
    )
)


def version_validate(*, version: ProblemVersion) -> jobs.Outcome:
    """Take every validation step `version`'s kind declares (grade the reference, the starter
    and every known-wrong solution on all of its tests and calibrate the time limit; check
    the package) and store the report, whose state says passed or failed.

    Returns DONE once the report is stored; SKIPPED when another worker holds it or it is
    not pending; RETRY after a platform fault (Docker down) that a later attempt may get
    past, leaving the version pending; FAILED past the attempt cap (the validation failed).
    """
    now = timezone.now()
    claim = VALIDATIONS.claim(version.pk, validation_started_at=now)
    if claim is jobs.Outcome.FAILED:
        report = validation.report_error(
            version_number=version.number, message="too many attempts", retrying=False
        )
        VALIDATIONS.give_up(version.pk, validation_report=report)
        return jobs.Outcome.FAILED
    if not isinstance(claim, jobs.Claim):
        return jobs.Outcome.SKIPPED  # busy (a duplicate delivery) or nothing to do
    try:
        with VALIDATIONS.heartbeat(claim):
            return _validation_run(version, claim, started_at=now)
    except Exception as exc:
        # A platform fault, a bug or Celery's soft time limit: never left "running". The author
        # reads what failed, never the server's own words (socket paths, tracebacks): the log
        # keeps those.
        log.exception("validation of version %s failed", version.pk)
        return _validation_fault(version, claim, _fault_message(exc))


def _fault_message(exc: Exception) -> str:
    """What the author's report says of a fault that is not the package's."""
    if isinstance(exc, JudgeError) and exc.platform:
        return "sandbox failed: the grading sandbox is unavailable (details in the server log)"
    return "the validation failed inside the platform (details in the server log)"


def reference_retimed(spec: GradeSpec, judgement: Judgement) -> list[Judgement]:
    """The reference's slowest tests graded again (studio.validation.retime_spec): one
    grading's CPU time is too noisy, and too easily stretched by load, to set a limit by."""
    again = validation.retime_spec(spec, judgement)
    retimed: list[Judgement] = []
    if again is None:
        return retimed
    for _ in range(validation.RETIMES):
        try:
            retimed.append(judge(again))
        except JudgeError:  # the timing is a warning: it makes do with the gradings it has
            log.warning("a timing re-run of the reference failed", exc_info=True)
            break
    return retimed


@dataclass
class _Findings:
    """What the steps found, for the report."""

    version: ProblemVersion
    issues: list[str]  # the package's unmet rules (package_lint)
    checks: list[dict[str, Any]] = field(default_factory=list)
    timing: dict[str, Any] | None = None
    lint: dict[str, Any] = field(default_factory=lambda: validation.lint_check([]))


def _grade_solutions(found: _Findings) -> None:
    """Grade each solution on every test; calibrate the time limit on the reference."""
    version = found.version
    for solution in version_solutions(version):
        spec = grade_spec_for(version=version, code=solution.code, mode="submit")
        started = time.monotonic()
        try:
            judgement = judge(spec)
        except JudgeError as exc:
            if exc.platform:
                raise  # the platform, not the package: retry the whole validation
            found.checks.append(validation.check_error(solution, str(exc)))
            continue
        found.checks.append(validation.check_solution(solution, judgement))
        if solution.role == "reference":
            _submit_time_record(version, seconds=time.monotonic() - started)
            found.timing = validation.timing_calibrate(
                judgement, version.limits, reference_retimed(spec, judgement)
            )


def _submit_time_record(version: ProblemVersion, *, seconds: float) -> None:
    """The live version's reference, graded on every test, is what a Submit of the problem
    costs: its time is the queue's first measure of the problem's Submits, before any candidate
    has submitted (grading/service_times.py; a draft's tests may differ, so only the live)."""
    problem = version.problem
    if problem.live_version_id == version.pk:
        service_times.record(kind=problem.queue, mode="submit", problem_id=problem.pk,
                             seconds=seconds)


def _package_checks(found: _Findings) -> None:
    """The package's rules as one check: all a version has when nothing of it runs."""
    found.checks.append(validation.design_check(found.issues))


def _lint(found: _Findings) -> None:
    found.lint = validation.lint_check(found.issues)


# The steps a kind may declare (problems.kinds), by name.
STEPS: dict[str, Callable[[_Findings], None]] = {
    kinds.GRADE_SOLUTIONS: _grade_solutions,
    kinds.PACKAGE_CHECKS: _package_checks,
    kinds.LINT: _lint,
}


def _validation_run(
    version: ProblemVersion, claim: jobs.Claim, *, started_at: datetime
) -> jobs.Outcome:
    version = ProblemVersion.objects.select_related("problem").get(pk=version.pk)
    package = problem_to_package(problem=version.problem, version=version)
    found = _Findings(version=version, issues=package_lint(package))
    for step in version.kind_spec.validation_steps:
        STEPS[step](found)
    report = validation.report_build(
        version_number=version.number,
        checks=found.checks,
        timing=found.timing,
        lint=found.lint,
        solutions_hash=validation.solutions_hash(version_solutions(version)),
        started_at=started_at.isoformat(),
        finished_at=timezone.now().isoformat(),
    )
    states = ProblemVersion.Validation
    state = states.PASSED if report["passed"] else states.FAILED
    VALIDATIONS.finish(
        claim, validation=state, validation_report=report, validated_at=timezone.now()
    )
    return jobs.Outcome.DONE


def _validation_fault(version: ProblemVersion, claim: jobs.Claim, message: str) -> jobs.Outcome:
    final = claim.attempt >= jobs.max_attempts()
    report = validation.report_error(
        version_number=version.number, message=message, retrying=not final
    )
    return VALIDATIONS.release(
        claim,
        error=message,
        retry_fields={"validation_report": report, "validation_started_at": None},
        failed_fields={"validation_report": report},
    )
