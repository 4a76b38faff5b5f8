"""Validation: the reference, starter and known-wrong solutions of a version graded on all
of its tests in the sandbox, as a background job (grading.jobs' lifecycle)."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from grading import jobs
from grading.judge import GradeSpec, JudgeError, Judgement, judge
from grading.lanes import Lane
from grading.sandboxing import run_budget_seconds
from grading.services import grade_spec_for
from problems.models import DESIGN, ProblemVersion
from problems.package import package_lint
from problems.services import problem_to_package
from studio import validation

log = logging.getLogger(__name__)


# ---------------------------------------------------------------- validation


def version_solutions(version: ProblemVersion) -> list[validation.Solution]:
    """The programs a validation of `version` grades: its reference, starter and wrong ones
    (none for a design problem: nothing of it runs)."""
    if version.kind == DESIGN:
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


def per_run_seconds(version: ProblemVersion) -> float:
    return run_budget_seconds(version.limits, len(version.tests_for("submit")))


def _validation_budget_seconds(version: ProblemVersion) -> float:
    """The longest a whole validation may take: every solution run to its wall limit, and the
    reference's slowest tests graded again (studio.validation.RETIMES, at most a run each)."""
    runs = len(version_solutions(version)) + validation.RETIMES
    return runs * per_run_seconds(version) + 60.0


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


def version_validate(*, version: ProblemVersion) -> jobs.Outcome | str:
    """Grade the reference, the starter and every known-wrong solution on all of `version`'s
    tests, calibrate the time limit, and store the report.

    Returns "passed" or "failed"; "skipped" when another worker holds it or it is not
    pending; RETRY after a platform fault (Docker down) that a later attempt may get past,
    leaving the version pending; past the attempt cap a platform fault fails the validation.
    """
    now = timezone.now()
    claim = VALIDATIONS.claim(version.pk, validation_started_at=now)
    if claim is jobs.Outcome.FAILED:
        report = validation.report_error(
            version_number=version.number, message="too many attempts", retrying=False
        )
        VALIDATIONS.give_up(version.pk, validation_report=report)
        return "failed"
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


def _validation_run(version: ProblemVersion, claim: jobs.Claim, *, started_at: datetime) -> str:
    version = ProblemVersion.objects.select_related("problem").get(pk=version.pk)
    problem = version.problem
    if version.kind == DESIGN:
        return _design_validation_run(version, claim, started_at=started_at)
    solutions = version_solutions(version)
    checks: list[dict[str, Any]] = []
    timing: dict[str, Any] | None = None
    for solution in solutions:
        spec = grade_spec_for(version=version, code=solution.code, mode="submit")
        try:
            judgement = judge(spec)
        except JudgeError as exc:
            if exc.platform:
                raise  # the platform, not the package: retry the whole validation
            checks.append(validation.check_error(solution, str(exc)))
            continue
        checks.append(validation.check_solution(solution, judgement))
        if solution.role == "reference":
            timing = validation.timing_calibrate(
                judgement, version.limits, reference_retimed(spec, judgement)
            )
    lint = validation.lint_check(package_lint(problem_to_package(problem=problem, version=version)))
    report = validation.report_build(
        version_number=version.number,
        checks=checks,
        timing=timing,
        lint=lint,
        solutions_hash=validation.solutions_hash(solutions),
        started_at=started_at.isoformat(),
        finished_at=timezone.now().isoformat(),
    )
    states = ProblemVersion.Validation
    state = states.PASSED if report["passed"] else states.FAILED
    VALIDATIONS.finish(
        claim, validation=state, validation_report=report, validated_at=timezone.now()
    )
    return str(state)


def _design_validation_run(
    version: ProblemVersion, claim: jobs.Claim, *, started_at: datetime
) -> str:
    """A design version has nothing to run: it passes when its package checks pass (the
    rubric's design criteria anchored, clarifications, statement, reference text and board),
    through the same job lifecycle, so the studio shows it passed or failed like any other."""
    package = problem_to_package(problem=version.problem, version=version)
    issues = package_lint(package)
    report = validation.report_build(
        version_number=version.number,
        checks=[validation.design_check(issues)],
        timing=None,
        lint=validation.lint_check(issues),
        solutions_hash=validation.solutions_hash([]),
        started_at=started_at.isoformat(),
        finished_at=timezone.now().isoformat(),
    )
    states = ProblemVersion.Validation
    state = states.PASSED if report["passed"] else states.FAILED
    VALIDATIONS.finish(
        claim, validation=state, validation_report=report, validated_at=timezone.now()
    )
    return str(state)


def _validation_fault(version: ProblemVersion, claim: jobs.Claim, message: str) -> str:
    final = claim.attempt >= jobs.max_attempts()
    report = validation.report_error(
        version_number=version.number, message=message, retrying=not final
    )
    outcome = VALIDATIONS.release(
        claim,
        error=message,
        retry_fields={"validation_report": report, "validation_started_at": None},
        failed_fields={"validation_report": report},
    )
    return str(outcome)
