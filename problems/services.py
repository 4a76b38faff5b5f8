"""Loading problem packages into the database and exporting them back; authoring actions
(edits that create versions, validation, regrade previews, going live, publishing)."""

from __future__ import annotations

import hashlib
import logging
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from grading.judge import JudgeError, judge
from grading.models import Submission
from grading.services import grade_spec_for
from problems import validation
from problems.models import Problem, ProblemVersion, Regrade, RegradeItem
from problems.package import (
    MAX_SOURCE_BYTES,
    Clarification,
    Grading,
    Limits,
    Package,
    RubricCriterion,
    TestCase,
    WrongSolution,
    package_lint,
    package_read,
    package_write,
    test_as_json,
)
from sandbox import SandboxError
from sandbox.django_adapter import sandbox_limits

log = logging.getLogger(__name__)
BANK_DIR = Path(__file__).resolve().parent / "bank"


def _problem_fields(package: Package) -> dict[str, Any]:
    return {
        "title": package.title,
        "difficulty": package.difficulty,
        "queue": package.queue,
        "kind": package.kind,
        "topics": list(package.topics),
        "hints": list(package.hints),
        "follow_ups": list(package.follow_ups),
        "clarifications": [asdict(c) for c in package.clarifications],
        "rubric": [asdict(r) | {"levels": list(r.levels)} for r in package.rubric],
        "wrong_solutions": [asdict(w) for w in package.wrong],
        "statement_md": package.statement_md,
        "starter_code": package.starter_code,
        "reference_code": package.reference_code,
    }


def _version_fields(package: Package) -> dict[str, Any]:
    grading = package.grading
    return {
        "tests_hash": package.tests_hash,
        "driver": {"kind": grading.driver, "entry": grading.entry},
        "driver_code": package.driver_code,
        "checker_code": package.checker_code,
        "support_code": package.support_code,
        "compare": {
            "mode": grading.compare,
            "float_rel": grading.float_rel,
            "float_abs": grading.float_abs,
        },
        "limits": asdict(package.limits),
        "public_tests": [test_as_json(t) for t in package.public_tests],
        "hidden_tests": [test_as_json(t) for t in package.hidden_tests],
    }


@transaction.atomic
def problem_load(*, package: Package, publish: bool = True) -> tuple[Problem, bool]:
    """Create or update the problem; add a version only when graded behaviour changed.

    Returns the problem and whether a new version was created. The first version goes live at
    once; a later one is left for the author to review (regrade, then make live).
    """
    problem, _ = Problem.objects.update_or_create(
        slug=package.slug, defaults=_problem_fields(package)
    )
    latest = problem.versions.order_by("-number").first()
    if latest is not None and latest.tests_hash == package.tests_hash:
        created = False
    else:
        number = latest.number + 1 if latest else 1
        latest = ProblemVersion.objects.create(
            problem=problem, number=number, **_version_fields(package)
        )
        created = True
    if problem.live_version_id is None:
        problem.live_version = latest
    if publish:
        problem.published = True
    problem.save()
    return problem, created


def problem_load_folder(*, root: Path, publish: bool = True) -> list[tuple[Problem, bool]]:
    """Load one package folder, or every package folder under `root`.

    Every package is read and validated before anything is written, so a malformed package
    anywhere leaves the database untouched.
    """
    folders = (
        [root]
        if (root / "problem.toml").exists()
        else sorted(p for p in root.iterdir() if (p / "problem.toml").exists())
    )
    packages = [package_read(folder) for folder in folders]
    with transaction.atomic():
        return [problem_load(package=package, publish=publish) for package in packages]


def problem_to_package(*, problem: Problem, version: ProblemVersion | None = None) -> Package:
    """The package that `problem` (at `version`, default live) was loaded from."""
    version = version or problem.live_version or problem.versions.order_by("-number").first()
    if version is None:
        raise ValueError(f"problem {problem.slug} has no version")

    def tests(raw: list[dict[str, Any]], hidden: bool) -> tuple[TestCase, ...]:
        return tuple(
            TestCase(
                t["name"],
                t["input"],
                t["expected"],
                t["tag"],
                hidden,
                t.get("compare"),
                t.get("group"),
            )
            for t in raw
        )

    return Package(
        slug=problem.slug,
        title=problem.title,
        difficulty=problem.difficulty,
        queue=problem.queue,
        kind=problem.kind,
        topics=tuple(problem.topics),
        hints=tuple(problem.hints),
        follow_ups=tuple(problem.follow_ups),
        statement_md=problem.statement_md,
        starter_code=problem.starter_code,
        reference_code=problem.reference_code,
        limits=Limits(**version.limits),
        grading=Grading(
            driver=version.driver["kind"],
            entry=version.driver.get("entry", ""),
            compare=version.compare["mode"],
            float_rel=version.compare.get("float_rel", 1e-6),
            float_abs=version.compare.get("float_abs", 1e-9),
        ),
        public_tests=tests(version.public_tests, False),
        hidden_tests=tests(version.hidden_tests, True),
        wrong=tuple(WrongSolution(**w) for w in problem.wrong_solutions),
        clarifications=tuple(Clarification(**c) for c in problem.clarifications),
        rubric=tuple(
            RubricCriterion(r["criterion"], r["weight"], r["strong"], tuple(r["levels"]))
            for r in problem.rubric
        ),
        driver_code=version.driver_code,
        checker_code=version.checker_code,
        support_code=version.support_code,
    )


def package_from_path(path: Path) -> Package:
    return package_read(path)


# ---------------------------------------------------------------- authoring: errors and edits


class ProblemActionError(Exception):
    """An authoring action the rules refuse; `code` says why (not_validated, no_version...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def problem_statement_update(*, problem: Problem, statement_md: str) -> Problem:
    """Replace the statement. Statements are not graded behaviour, so no new version."""
    if len(statement_md.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise ProblemActionError(
            "too_large", f"the statement is larger than {MAX_SOURCE_BYTES} bytes"
        )
    Problem.objects.filter(pk=problem.pk).update(
        statement_md=statement_md, updated_at=timezone.now()
    )
    problem.statement_md = statement_md
    return problem


def version_create(
    *,
    problem: Problem,
    base: ProblemVersion | None = None,
    public_json: str | None = None,
    hidden_json: str | None = None,
    limits: Mapping[str, Any] | None = None,
) -> tuple[ProblemVersion, bool]:
    """A new version from `base` (default: the newest) with new tests and/or limits.

    The edit goes through the very validation a package on disk goes through: the package is
    written to a scratch folder with the new files and read back with `package_read`, so a
    malformed edit raises `PackageError` naming the file and field, and nothing is written.
    Returns the version holding those tests and whether it is new (identical graded behaviour
    to the newest version creates nothing). The live version never changes here.
    """
    base = base or problem.versions.order_by("-number").first()
    if base is None:
        raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
    package = problem_to_package(problem=problem, version=base)
    if limits:
        package = replace(package, limits=replace(package.limits, **dict(limits)))
    with tempfile.TemporaryDirectory(prefix="onsite-edit-") as scratch:
        folder = package_write(package, scratch)
        for name, text in (("public.json", public_json), ("hidden.json", hidden_json)):
            if text is not None:
                (folder / "tests" / name).write_text(text, encoding="utf-8")
        edited = package_read(folder)
    try:
        return _version_add(problem=problem, package=edited)
    except IntegrityError as exc:
        # Two saves raced for the same version number; the unique constraint kept one.
        raise ProblemActionError(
            "conflict", "another edit was saved at the same moment; reload and try again"
        ) from exc


@transaction.atomic
def _version_add(*, problem: Problem, package: Package) -> tuple[ProblemVersion, bool]:
    """Add a version for `package`'s graded behaviour unless the newest already has it.

    Unlike problem_load, this touches only versions: a statement saved meanwhile by another
    author is not overwritten with the copy this edit started from.
    """
    latest = problem.versions.order_by("-number").first()
    if latest is not None and latest.tests_hash == package.tests_hash:
        return latest, False
    version = ProblemVersion.objects.create(
        problem=problem,
        number=latest.number + 1 if latest else 1,
        **_version_fields(package),
    )
    return version, True


# ---------------------------------------------------------------- validation


def problem_solutions(problem: Problem) -> list[validation.Solution]:
    """The programs a validation of any of `problem`'s versions grades."""
    return validation.solutions_for(
        reference=problem.reference_code,
        starter=problem.starter_code,
        wrong=problem.wrong_solutions,
    )


def version_validation_state(version: ProblemVersion, problem: Problem | None = None) -> str:
    """pending | running | passed | failed | stale (see validation.validation_state)."""
    problem = problem or version.problem
    current = validation.solutions_hash(problem_solutions(problem))
    return validation.validation_state(version.validation, version.validation_report, current)


def version_is_validated(version: ProblemVersion) -> bool:
    return version_validation_state(version) == ProblemVersion.Validation.PASSED


def _validation_budget_seconds(version: ProblemVersion) -> float:
    """The longest a whole validation may take: every solution run to its wall limit."""
    runs = len(problem_solutions(version.problem))
    per_run = sandbox_limits(version.limits).total_wall_seconds(len(version.tests_for("submit")))
    return runs * per_run + 60.0


def version_validation_request(*, version: ProblemVersion) -> bool:
    """Queue a validation of `version` on its problem's queue, after the transaction commits.

    Returns False (and queues nothing) while a validation of it is already running.
    """
    stale = timezone.now() - timedelta(seconds=_validation_budget_seconds(version))
    with transaction.atomic():
        reset = (
            ProblemVersion.objects.filter(pk=version.pk)
            .exclude(validation=ProblemVersion.Validation.RUNNING, validation_started_at__gte=stale)
            .update(validation=ProblemVersion.Validation.PENDING, validation_started_at=None)
        )
        if reset:
            transaction.on_commit(lambda: _validation_enqueue(version))
    return bool(reset)


def _validation_enqueue(version: ProblemVersion) -> None:
    from problems.tasks import validate_version

    budget = _validation_budget_seconds(version)
    try:
        validate_version.apply_async(
            args=[version.pk],
            queue=version.problem.queue,
            soft_time_limit=budget + 30,
            time_limit=budget + 60,
        )
    except Exception:  # kombu/redis raise many types; the version stays pending, retryable
        log.exception("could not enqueue the validation of version %s", version.pk)


def _validation_claim(version: ProblemVersion) -> datetime | None:
    """Take the validation with one conditional UPDATE; the start time is the claim token.

    A pending validation can be claimed, and so can a running one whose budget ran out (its
    worker died), so a redelivered task finishes the job instead of leaving it running forever.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=_validation_budget_seconds(version))
    claimed = (
        ProblemVersion.objects.filter(pk=version.pk)
        .filter(
            Q(validation=ProblemVersion.Validation.PENDING)
            | Q(validation=ProblemVersion.Validation.RUNNING, validation_started_at__lt=stale)
        )
        .update(validation=ProblemVersion.Validation.RUNNING, validation_started_at=now)
    )
    return now if claimed == 1 else None


def version_validate(*, version: ProblemVersion, final_attempt: bool = True) -> str:
    """Grade the reference, the starter and every known-wrong solution on all of `version`'s
    tests, calibrate the time limit, and store the report.

    Returns "passed" or "failed"; "skipped" when the version is not pending (another worker
    has it); "retry" after a platform fault (Docker down) that a later attempt may get past,
    leaving the version pending. On the final attempt a platform fault fails the validation.
    """
    token = _validation_claim(version)
    if token is None:
        return "skipped"
    try:
        return _validation_run(version, token, final_attempt=final_attempt)
    except Exception as exc:
        # A bug or Celery's soft time limit: never leave the version "running" for good.
        _validation_fault(version, token, f"internal error: {exc!r}", final_attempt=True)
        raise


def _validation_run(version: ProblemVersion, token: datetime, *, final_attempt: bool) -> str:
    version = ProblemVersion.objects.select_related("problem").get(pk=version.pk)
    problem = version.problem
    solutions = problem_solutions(problem)
    checks: list[dict[str, Any]] = []
    timing: dict[str, Any] | None = None
    try:
        for solution in solutions:
            spec = grade_spec_for(version=version, code=solution.code, mode="submit")
            try:
                judgement = judge(spec)
            except JudgeError as exc:
                if isinstance(exc.__cause__, SandboxError):
                    raise  # the platform, not the package: retry the whole validation
                checks.append(validation.check_error(solution, str(exc)))
                continue
            checks.append(validation.check_solution(solution, judgement))
            if solution.role == "reference":
                timing = validation.timing_calibrate(judgement, version.limits)
    except JudgeError as exc:
        return _validation_fault(version, token, str(exc), final_attempt=final_attempt)
    lint = validation.lint_check(package_lint(problem_to_package(problem=problem, version=version)))
    report = validation.report_build(
        version_number=version.number,
        checks=checks,
        timing=timing,
        lint=lint,
        solutions_hash=validation.solutions_hash(solutions),
        started_at=token.isoformat(),
        finished_at=timezone.now().isoformat(),
    )
    passed = report["passed"]
    state = ProblemVersion.Validation.PASSED if passed else ProblemVersion.Validation.FAILED
    # Only the holder of the claim may store: a worker that outlived its budget and was taken
    # over must not overwrite the newer run's report.
    ProblemVersion.objects.filter(pk=version.pk, validation_started_at=token).update(
        validation=state, validation_report=report, validated_at=timezone.now()
    )
    return str(state)


def _validation_fault(
    version: ProblemVersion, token: datetime, message: str, *, final_attempt: bool
) -> str:
    report = validation.report_error(
        version_number=version.number, message=message, retrying=not final_attempt
    )
    state = ProblemVersion.Validation.FAILED if final_attempt else ProblemVersion.Validation.PENDING
    ProblemVersion.objects.filter(pk=version.pk, validation_started_at=token).update(
        validation=state, validation_report=report, validation_started_at=None
    )
    log.warning("validation of %s: platform fault (%s)", version, message)
    return "failed" if final_attempt else "retry"


# ---------------------------------------------------------------- going live


def version_make_live(*, version: ProblemVersion) -> Problem:
    """Switch the problem's live version to `version`; only a validated version may go live.

    New submissions grade against it; past ones keep pointing at the version that graded them.
    """
    with transaction.atomic():
        version = (
            ProblemVersion.objects.select_for_update().select_related("problem").get(pk=version.pk)
        )
        state = version_validation_state(version)
        if state != ProblemVersion.Validation.PASSED:
            raise ProblemActionError(
                "not_validated", f"v{version.number} has not passed validation ({state})"
            )
        problem = version.problem
        Problem.objects.filter(pk=problem.pk).update(
            live_version=version, updated_at=timezone.now()
        )
        problem.live_version = version
    return problem


def problem_publish(*, problem: Problem) -> Problem:
    """Show the problem to candidates; its live version must have passed validation.

    (`loadproblems` publishes the bank directly: the test suite validates the bank.)
    """
    with transaction.atomic():
        problem = Problem.objects.select_for_update().get(pk=problem.pk)
        live = problem.live_version
        if live is None:
            raise ProblemActionError("no_version", f"{problem.slug} has no live version")
        state = version_validation_state(live, problem)
        if state != ProblemVersion.Validation.PASSED:
            raise ProblemActionError(
                "not_validated",
                f"the live version v{live.number} has not passed validation ({state})",
            )
        problem.published = True
        problem.save(update_fields=["published", "updated_at"])
    return problem


def problem_unpublish(*, problem: Problem) -> Problem:
    """Hide the problem from candidates (sessions already using it keep their copy)."""
    Problem.objects.filter(pk=problem.pk).update(published=False, updated_at=timezone.now())
    problem.published = False
    return problem


# ---------------------------------------------------------------- regrade preview

MAX_REGRADE_SUBMISSIONS = 500  # the most recent ones; older ones rarely change a decision
REGRADE_STALE = timedelta(minutes=30)


def regrade_submissions(version: ProblemVersion) -> QuerySet[Submission]:
    """Past graded submit-mode submissions of the problem, newest first, not on `version`."""
    return (
        Submission.objects.filter(
            problem_id=version.problem_id,
            mode=Submission.Mode.SUBMIT,
            status=Submission.Status.DONE,
        )
        .exclude(version_id=version.pk)
        .select_related("version")
        .order_by("-created_at", "-pk")[:MAX_REGRADE_SUBMISSIONS]
    )


def version_regrade_preview(*, version: ProblemVersion, user: User | None = None) -> Regrade:
    """Queue a regrade preview of `version` (graded in the background, once committed)."""
    with transaction.atomic():
        regrade = Regrade.objects.create(
            version=version, requested_by=user, total=regrade_submissions(version).count()
        )
        transaction.on_commit(lambda: _regrade_enqueue(regrade))
    return regrade


def _regrade_enqueue(regrade: Regrade) -> None:
    from problems.tasks import regrade_version

    version = regrade.version
    per_run = sandbox_limits(version.limits).total_wall_seconds(len(version.tests_for("submit")))
    budget = max(1, regrade.total) * per_run + 60
    try:
        regrade_version.apply_async(
            args=[regrade.pk],
            queue=version.problem.queue,
            soft_time_limit=budget + 30,
            time_limit=budget + 60,
        )
    except Exception:  # kombu/redis raise many types
        log.exception("could not enqueue regrade %s", regrade.pk)
        Regrade.objects.filter(pk=regrade.pk).update(
            status=Regrade.Status.FAILED, message="the queue is unavailable; try again"
        )


def _regrade_claim(regrade_id: int) -> bool:
    now = timezone.now()
    claimed = (
        Regrade.objects.filter(pk=regrade_id)
        .filter(
            Q(status=Regrade.Status.QUEUED)
            | Q(status=Regrade.Status.RUNNING, started_at__lt=now - REGRADE_STALE)
        )
        .update(status=Regrade.Status.RUNNING, started_at=now, message="")
    )
    return claimed == 1


def regrade_run(*, regrade_id: int, final_attempt: bool = True) -> str:
    """Grade each past submission again against the regrade's version; record old → new.

    Submissions themselves are untouched. Identical code is graded once. A resumed run (after
    a platform fault or a dead worker) skips submissions it already recorded. Returns "done",
    "skipped", "retry" or "failed".
    """
    if not _regrade_claim(regrade_id):
        return "skipped"
    try:
        return _regrade_grade_all(regrade_id, final_attempt=final_attempt)
    except Exception as exc:
        # A bug or Celery's soft time limit: never leave the preview "running" for good.
        _regrade_fault(regrade_id, f"internal error: {exc!r}", final_attempt=True)
        raise


def _regrade_grade_all(regrade_id: int, *, final_attempt: bool) -> str:
    regrade = Regrade.objects.select_related("version__problem").get(pk=regrade_id)
    version = regrade.version
    submissions = list(regrade_submissions(version))
    Regrade.objects.filter(pk=regrade_id).update(total=len(submissions))
    recorded = set(regrade.items.values_list("submission_id", flat=True))
    by_code: dict[str, tuple[str, int, int, str]] = {}
    for submission in submissions:
        if submission.pk in recorded:
            continue
        key = hashlib.sha256(submission.code.encode()).hexdigest()
        if key not in by_code:
            spec = grade_spec_for(version=version, code=submission.code, mode="submit")
            try:
                judgement = judge(spec)
                by_code[key] = (judgement.verdict, judgement.passed, judgement.total, "")
            except JudgeError as exc:
                if isinstance(exc.__cause__, SandboxError):
                    return _regrade_fault(regrade_id, str(exc), final_attempt=final_attempt)
                by_code[key] = ("IE", 0, len(spec.tests), str(exc)[:300])
        verdict, passed, total, message = by_code[key]
        RegradeItem.objects.update_or_create(
            regrade_id=regrade_id,
            submission=submission,
            defaults={
                "old_version_number": submission.version.number,
                "old_verdict": submission.verdict,
                "old_passed": submission.passed,
                "old_total": submission.total,
                "new_verdict": verdict,
                "new_passed": passed,
                "new_total": total,
                "changed": verdict != submission.verdict,
                "message": message,
            },
        )
        _regrade_count(regrade_id)
    _regrade_count(regrade_id)
    Regrade.objects.filter(pk=regrade_id).update(
        status=Regrade.Status.DONE, finished_at=timezone.now()
    )
    return "done"


def _regrade_count(regrade_id: int) -> None:
    items = RegradeItem.objects.filter(regrade_id=regrade_id)
    Regrade.objects.filter(pk=regrade_id).update(
        done=items.count(), changed=items.filter(changed=True).count()
    )


def _regrade_fault(regrade_id: int, message: str, *, final_attempt: bool) -> str:
    if final_attempt:
        Regrade.objects.filter(pk=regrade_id).update(
            status=Regrade.Status.FAILED,
            message=f"the regrade stopped: {message}"[:300],
            finished_at=timezone.now(),
        )
        return "failed"
    # Back to queued so the retried task can claim it again; recorded items are kept.
    Regrade.objects.filter(pk=regrade_id).update(
        status=Regrade.Status.QUEUED, message="grader unavailable, retrying"
    )
    return "retry"
