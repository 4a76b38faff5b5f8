"""Authoring actions: edits that create versions, validation, regrade previews, going live,
publishing."""

from __future__ import annotations

import hashlib
import logging
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from core.errors import ApplicationError
from core.roles import is_author
from grading import jobs
from grading.judge import JudgeError, judge
from grading.models import Submission
from grading.sandboxing import run_budget_seconds
from grading.services import grade_spec_for
from problems.models import Problem, ProblemVersion
from problems.package import (
    MAX_SOURCE_BYTES,
    Package,
    package_lint,
    package_read,
    package_write,
)
from problems.services import problem_to_package, version_fields, version_matches
from studio import validation
from studio.models import Regrade, RegradeItem

log = logging.getLogger(__name__)


# ---------------------------------------------------------------- authoring: errors and edits


class ProblemActionError(ApplicationError):
    """An authoring action the rules refuse (not_validated, no_version, conflict...)."""


def problem_coauthor_add(*, problem: Problem, username: str) -> User:
    """Let another author edit `problem` (the owner or an admin asks; the view checks)."""
    user = User.objects.filter(username=username).first()
    if user is None or not is_author(user):
        raise ProblemActionError("unknown_author", f"no author called {username!r}")
    problem.coauthors.add(user)
    return user


def problem_coauthor_remove(*, problem: Problem, user_id: int) -> None:
    problem.coauthors.remove(user_id)


def problem_statement_update(
    *, problem: Problem, statement_md: str, user: User | None = None
) -> tuple[ProblemVersion, bool]:
    """Save a new statement as a draft version (candidates keep reading the live one's).

    Returns the version holding that statement and whether it is new.
    """
    if len(statement_md.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise ProblemActionError(
            "too_large", f"the statement is larger than {MAX_SOURCE_BYTES} bytes"
        )
    base = _newest(problem)
    package = replace(problem_to_package(problem=problem, version=base), statement_md=statement_md)
    return version_store(problem=problem, package=package, user=user)


def _newest(problem: Problem) -> ProblemVersion:
    """The version an edit starts from: the newest, draft or not."""
    base = problem.versions.order_by("-number").first()
    if base is None:
        raise ProblemActionError("no_version", f"problem {problem.slug} has no version")
    return base


def version_create(
    *,
    problem: Problem,
    base: ProblemVersion | None = None,
    public_json: str | None = None,
    hidden_json: str | None = None,
    limits: Mapping[str, Any] | None = None,
    user: User | None = None,
) -> tuple[ProblemVersion, bool]:
    """A new version from `base` (default: the newest) with new tests and/or limits.

    The edit goes through the very validation a package on disk goes through: the package is
    written to a scratch folder with the new files and read back with `package_read`, so a
    malformed edit raises `PackageError` naming the file and field, and nothing is written.
    Returns the version holding those tests and whether it is new (identical graded behaviour
    to the newest version creates nothing). The live version never changes here.
    """
    base = base or _newest(problem)
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
        return version_store(problem=problem, package=edited, user=user)
    except IntegrityError as exc:
        # Two saves raced for the same version number; the unique constraint kept one.
        raise ProblemActionError(
            "conflict", "another edit was saved at the same moment; reload and try again"
        ) from exc


# What a change note names, by the version field that changed.
_NOTED_FIELDS = {
    "driver": "driver",
    "driver_code": "driver code",
    "checker_code": "checker",
    "support_code": "support module",
    "compare": "comparison",
    "title": "title",
    "difficulty": "difficulty",
    "kind": "kind",
    "topics": "topics",
    "statement_md": "statement",
    "starter_code": "starter",
    "reference_code": "reference",
    "wrong_solutions": "wrong solutions",
    "hints": "hints",
    "follow_ups": "follow-ups",
    "clarifications": "clarifications",
    "rubric": "rubric",
    "custom_reference": "custom-input reference",
}


def version_change_note(base: ProblemVersion | None, fields: Mapping[str, Any]) -> str:
    """What a new version changes from `base`, in a line the studio's history shows."""
    if base is None:
        return "first version"
    notes: list[str] = []
    for kind in ("public", "hidden"):
        old, new = getattr(base, f"{kind}_tests"), fields[f"{kind}_tests"]
        if old != new:
            names_old = {t["name"] for t in old}
            names_new = {t["name"] for t in new}
            added, removed = len(names_new - names_old), len(names_old - names_new)
            edited = sum(
                1 for t in new if t["name"] in names_old and t not in old
            )
            parts = [f"+{added}" if added else "", f"-{removed}" if removed else "",
                     f"~{edited}" if edited else ""]
            notes.append(f"{kind} tests {' '.join(p for p in parts if p) or 'reordered'}")
    limit_changes = [
        f"{name} {base.limits.get(name)}→{value}"
        for name, value in fields["limits"].items()
        if base.limits.get(name) != value
    ]
    if limit_changes:
        notes.append("limits: " + ", ".join(limit_changes))
    notes += [
        label
        for name, label in _NOTED_FIELDS.items()
        if name in fields and getattr(base, name) != fields[name]
    ]
    return "; ".join(notes)[:500] or "no graded change"


@transaction.atomic
def version_store(
    *, problem: Problem, package: Package, user: User | None = None
) -> tuple[ProblemVersion, bool]:
    """Add a draft version holding `package` (graded behaviour and content) unless the newest
    already holds it.

    Unlike problem_load, this touches only versions, never what candidates read: the new
    version is a draft until it is validated and made live (version_make_live).
    """
    latest = problem.versions.order_by("-number").first()
    fields = version_fields(package)
    if latest is not None and version_matches(latest, fields):
        return latest, False
    version = ProblemVersion.objects.create(
        problem=problem,
        number=latest.number + 1 if latest else 1,
        validation=ProblemVersion.Validation.DRAFT,
        created_by=user,
        change_note=version_change_note(latest, fields),
        **fields,
    )
    return version, True


# ---------------------------------------------------------------- validation


def version_solutions(version: ProblemVersion) -> list[validation.Solution]:
    """The programs a validation of `version` grades: its reference, starter and wrong ones."""
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


def _per_run_seconds(version: ProblemVersion) -> float:
    return run_budget_seconds(version.limits, len(version.tests_for("submit")))


def _validation_budget_seconds(version: ProblemVersion) -> float:
    """The longest a whole validation may take: every solution run to its wall limit."""
    return len(version_solutions(version)) * _per_run_seconds(version) + 60.0


def version_validation_request(*, version: ProblemVersion) -> bool:
    """Queue a validation of `version` on its problem's queue, after the transaction commits.

    Returns False (and queues nothing) while a worker holds a validation of it.
    """
    held = Q(validation=ProblemVersion.Validation.RUNNING) & (
        Q(lease_until__isnull=True) | Q(lease_until__gte=timezone.now())
    )
    with transaction.atomic():
        reset = (
            ProblemVersion.objects.filter(pk=version.pk)
            .exclude(held)
            .update(
                validation=ProblemVersion.Validation.PENDING,
                validation_started_at=None,
                attempts=0,
                claim_token=None,
                lease_until=None,
                enqueued_at=None,
            )
        )
        if reset:
            transaction.on_commit(lambda: _validation_enqueue(version))
    return bool(reset)


def _validation_enqueue(version: ProblemVersion) -> None:
    from studio.tasks import validate_version

    try:
        validate_version.apply_async(
            args=[version.pk],
            queue=version.problem.queue,
            **jobs.task_time_limits(_validation_budget_seconds(version)),
        )
    except Exception:  # kombu/redis raise many types; the version stays pending, retryable
        log.exception("could not enqueue the validation of version %s", version.pk)
        return
    VALIDATIONS.mark_enqueued(version.pk)


def validations_requeue_stale() -> int:
    """Hand out the validations the queue does not have: versions `loadproblems` left pending
    (it runs before the broker may be up, so it only marks them), and any whose message was
    lost. Drafts are not waiting for anything and are left alone. Claims are idempotent."""
    stale = VALIDATIONS.stale(stale_after_seconds=settings.ONSITE_STALE_SUBMISSION_SECONDS)
    count = 0
    for version in stale.select_related("problem"):
        _validation_enqueue(version)
        count += 1
    return count


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
        # A platform fault, a bug or Celery's soft time limit: never left "running".
        return _validation_fault(version, claim, f"{exc}")


def _validation_run(version: ProblemVersion, claim: jobs.Claim, *, started_at: datetime) -> str:
    version = ProblemVersion.objects.select_related("problem").get(pk=version.pk)
    problem = version.problem
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
            timing = validation.timing_calibrate(judgement, version.limits)
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


# ---------------------------------------------------------------- going live


def version_make_live(*, version: ProblemVersion) -> Problem:
    """Switch the problem's live version to `version`; only a validated version may go live.

    The version's content (statement, starter, hints, rubric... CONTENT_FIELDS) is copied onto
    the problem in the same transaction: that copy is what candidates read, so a draft reaches
    them here and nowhere else. New submissions grade against it; past ones keep pointing at
    the version that graded them.
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
        content = version.content()
        Problem.objects.filter(pk=problem.pk).update(
            live_version=version, updated_at=timezone.now(), **content
        )
        problem.live_version = version
        for name, value in content.items():
            setattr(problem, name, value)
    return problem


def problem_publish(*, problem: Problem) -> Problem:
    """Show the problem to candidates; its live version must have passed validation, package
    checks included.

    (`loadproblems` publishes the bank directly and leaves it pending validation: the beat
    queues it, and a bank problem that fails is withdrawn by `Problem.objects.offered()`.)
    """
    with transaction.atomic():
        problem = Problem.objects.select_for_update().get(pk=problem.pk)
        live = problem.live_version
        if live is None:
            raise ProblemActionError("no_version", f"{problem.slug} has no live version")
        state = version_validation_state(live)
        if state != ProblemVersion.Validation.PASSED:
            raise ProblemActionError(
                "not_validated",
                f"the live version v{live.number} has not passed validation ({state})",
            )
        # The package checks (bank quality: enough tests, wrong solutions, hints, rubric...)
        # warn on a version, which may still go live for a fix; they block publishing.
        issues = (live.validation_report.get("lint") or {}).get("issues") or []
        if issues:
            raise ProblemActionError(
                "package_checks", f"the package checks of v{live.number} fail: {'; '.join(issues)}"
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
REGRADES = jobs.JobTable(
    model=Regrade,
    status_field="status",
    waiting=(Regrade.Status.QUEUED,),
    running=Regrade.Status.RUNNING,
    retrying=Regrade.Status.QUEUED,
    failed=Regrade.Status.FAILED,
)


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
    from studio.tasks import regrade_version

    version = regrade.version
    budget = max(1, regrade.total) * _per_run_seconds(version) + 60
    try:
        regrade_version.apply_async(
            args=[regrade.pk], queue=version.problem.queue, **jobs.task_time_limits(budget)
        )
    except Exception:  # kombu/redis raise many types
        log.exception("could not enqueue regrade %s", regrade.pk)
        Regrade.objects.filter(pk=regrade.pk).update(
            status=Regrade.Status.FAILED, message="the queue is unavailable; try again"
        )
        return
    REGRADES.mark_enqueued(regrade.pk)


def regrade_run(*, regrade_id: int) -> jobs.Outcome | str:
    """Grade each past submission again against the regrade's version; record old → new.

    Submissions themselves are untouched. Identical code is graded once. A resumed run (after
    a platform fault or a dead worker) skips submissions it already recorded. Returns "done",
    "skipped", "retry" or "failed".
    """
    claim = REGRADES.claim(regrade_id, started_at=timezone.now(), message="")
    if claim is jobs.Outcome.FAILED:
        REGRADES.give_up(regrade_id, message="the regrade stopped: too many attempts",
                         finished_at=timezone.now())
        return jobs.Outcome.FAILED
    if not isinstance(claim, jobs.Claim):
        return jobs.Outcome.SKIPPED  # busy (a duplicate delivery) or nothing to do
    try:
        with REGRADES.heartbeat(claim):
            return _regrade_grade_all(claim)
    except Exception as exc:
        # A platform fault, a bug or Celery's soft time limit: never left "running".
        return _regrade_fault(claim, repr(exc) if not isinstance(exc, JudgeError) else str(exc))


def _regrade_grade_all(claim: jobs.Claim) -> str:
    regrade_id = claim.pk
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
                if exc.platform:
                    raise  # the platform, not the submission: retry the whole preview
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
    REGRADES.finish(claim, status=Regrade.Status.DONE, finished_at=timezone.now())
    return str(jobs.Outcome.DONE)


def _regrade_count(regrade_id: int) -> None:
    items = RegradeItem.objects.filter(regrade_id=regrade_id)
    Regrade.objects.filter(pk=regrade_id).update(
        done=items.count(), changed=items.filter(changed=True).count()
    )


def _regrade_fault(claim: jobs.Claim, message: str) -> str:
    # Back to queued so the retried task can claim it again; recorded items are kept.
    outcome = REGRADES.release(
        claim,
        error=message,
        retry_fields={"message": "grader unavailable, retrying"},
        failed_fields={"message": f"the regrade stopped: {message}"[:300],
                       "finished_at": timezone.now()},
    )
    return str(outcome)
