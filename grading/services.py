"""Submissions: create, grade (claim, run, record, broadcast), retry, sweep."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Collection
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from core import visibility
from core.errors import ApplicationError
from grading import events, jobs, queueing, realtime, scratch, service_times
from grading.copies import codeprint_request
from grading.judge import (
    STOP_GROUP,
    STOP_RUN,
    Compare,
    GradeSpec,
    JudgeError,
    Judgement,
    TestSpec,
    TestVerdict,
    judge,
    sandbox_modules,
)
from grading.lanes import Lane
from grading.models import Submission, TestResult
from grading.sandboxing import job_budget_seconds, sandbox_gpu, sandbox_image, sandbox_limits
from problems import kinds
from problems.models import Problem, ProblemVersion
from sandbox import WarmPool, preload_names

log = logging.getLogger(__name__)
UNAVAILABLE = "grader unavailable, retrying"


class GradingError(ApplicationError):
    """A request the grading layer refuses (too_large, unknown_problem, bad_mode...)."""


# ---------------------------------------------------------------- specs


# What every entry that would run code on a design problem answers (no 500, nothing queued).
DESIGN_REFUSED = (
    "this is a design problem: there is nothing to run or submit. Draw the design on the "
    "board and discuss it; it is scored by its rubric"
)


def nothing_to_run_check(kind: str) -> None:
    """Refuse running or submitting code for a problem (or version) whose kind runs none."""
    if not kinds.kind_of(kind).runs_code:
        raise GradingError("design_problem", DESIGN_REFUSED)


def grade_spec_for(*, version: ProblemVersion, code: str, mode: str) -> GradeSpec:
    """Everything the judge needs to grade `code` against `version` in `mode`. A design
    version has nothing to grade: refused (GradingError design_problem)."""
    nothing_to_run_check(version.kind)
    tests = [
        TestSpec(
            name=t["name"],
            input=t["input"],
            expected=t["expected"],
            tag=t.get("tag", "correctness"),
            hidden=t["hidden"],
            compare=t.get("compare"),
            group=t.get("group"),
        )
        for t in version.tests_for(mode)
    ]
    queue = version.problem.queue
    return GradeSpec(
        solution=code,
        driver={**version.driver, "source": version.driver_code}
        if version.driver["kind"] == "custom"
        else dict(version.driver),
        tests=tests,
        limits=sandbox_limits(version.limits),
        compare=Compare(**version.compare),
        image=sandbox_image(queue),
        gpu=sandbox_gpu(queue),
        checker_code=version.checker_code,
        support_code=version.support_code,
        stop=STOP_RUN if mode == Submission.Mode.RUN else STOP_GROUP,
    )


def pool_prewarm_live(*, pool: WarmPool, queues: Collection[str]) -> list[str]:
    """Ask `pool` to keep containers ready for every offered problem graded on `queues`, in the
    shape its runs will ask for (image, limits, the libraries its driver and support module
    import: torch for the PyTorch problems, imported before the job arrives). Returns the
    libraries their checkers and support modules import in the worker (torch there too), for
    the caller to load before the first grading needs them."""
    problems = (
        Problem.objects.offered()
        .filter(queue__in=list(queues))
        .exclude(live_version__kind__in=kinds.names_where(runs_code=False))  # nothing to run
        .select_related("live_version__problem")
    )
    worker_side: set[str] = set()
    for version in (p.live_version for p in problems if p.live_version is not None):
        spec = grade_spec_for(version=version, code="", mode=Submission.Mode.RUN)
        pool.prewarm(
            spec.image,
            spec.limits,
            spec.gpu,
            driver=spec.driver,
            modules=sandbox_modules(spec),
        )
        checker = {"checker": version.checker_code, "support": version.support_code}
        worker_side.update(preload_names("", {}, checker))
    return sorted(worker_side)


def grade_now(*, problem: Problem, code: str, mode: str) -> Judgement:
    """Grade synchronously through the same pipeline as the queue, without storing anything."""
    version = problem.live_version
    if version is None:
        raise GradingError("no_version", f"problem {problem.slug} has no live version")
    return judge(grade_spec_for(version=version, code=code, mode=mode))


# ---------------------------------------------------------------- create


def _validate_code(code: str) -> None:
    limit = settings.ONSITE_MAX_CODE_BYTES
    size = len(code.encode("utf-8"))
    if size > limit:
        raise GradingError("too_large", f"code is {size} bytes; the limit is {limit} bytes")
    if "\x00" in code:
        # Python source cannot hold one, and PostgreSQL's text columns cannot either: the code
        # of a shared editor reaches here without passing core.textguard.
        raise GradingError("bad_input", "the code contains a NUL character; remove it and retry")


GRADED_MODES = (Submission.Mode.RUN, Submission.Mode.SUBMIT)
MAX_IDEMPOTENCY_KEY = 255
EMPTY_CODE = "there is no code to grade: write your solution in the editor first"
UNCHANGED_STARTER = (
    "this is the starter code, unchanged: change it before you submit (Run shows what it does)"
)


def idempotency_key_check(key: str) -> str:
    """The Idempotency-Key header's value as stored; GradingError unless it is 1 to 255
    visible ASCII characters (the draft's keys are opaque strings, UUIDs in practice)."""
    if not (0 < len(key) <= MAX_IDEMPOTENCY_KEY) or not all(33 <= ord(c) < 127 for c in key):
        raise GradingError(
            "bad_idempotency_key",
            f"the Idempotency-Key header must be 1 to {MAX_IDEMPOTENCY_KEY} visible ASCII "
            "characters",
        )
    return key


def request_fingerprint(*, problem_slug: str, code: str, mode: str, custom_input: Any) -> str:
    """What makes two requests the same one (an Idempotency-Key's replay): sha256 hex."""
    body = {"problem": problem_slug, "code": code, "mode": mode, "input": custom_input}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _same_code(code: str, starter: str) -> bool:
    """Equal but for trailing whitespace per line and blank lines at either end."""

    def norm(text: str) -> str:
        return "\n".join(line.rstrip() for line in text.strip().splitlines())

    return norm(code) == norm(starter)


def unworked_check(*, problem: Problem, code: str, mode: str) -> None:
    """Refuse work that can only be an accident: empty code (any graded mode), or a Submit
    of the starter exactly as it was given (a Run of it is allowed: it shows what fails)."""
    if mode in GRADED_MODES and not code.strip():
        raise GradingError("empty_code", EMPTY_CODE)
    starter = problem.starter_code
    if mode == Submission.Mode.SUBMIT and starter.strip() and _same_code(code, starter):
        raise GradingError("unchanged_starter", UNCHANGED_STARTER)


def _replayed(*, user: User, key: str, fingerprint: str) -> Submission | None:
    """The submission an earlier request with this key made, if any; GradingError when that
    request was a different one (the key was reused)."""
    first = Submission.objects.filter(user=user, idempotency_key=key).first()
    if first is None:
        return None
    if first.request_hash != fingerprint:
        raise GradingError(
            "idempotency_key_reused",
            "this Idempotency-Key was already used for a different request; send a new key "
            "for a new submission",
        )
    return first


def submission_lane(mode: str, *, in_session: bool) -> Lane:
    """A Submit outside a session is the submit lane; every other run has a person watching
    it (Run, custom input, console, and anything inside a live or solo session)."""
    if mode == Submission.Mode.SUBMIT and not in_session:
        return Lane.SUBMIT
    return Lane.INTERACTIVE


def version_for_trial(*, user: Any, problem_slug: str, number: int) -> ProblemVersion:
    """Version `number` of the problem, for one of its authors (or an admin) to try as a
    candidate: any version, a draft included (core.visibility's DRAFT_PROBLEM row: admins, and
    the problem's own authors). Anyone else is answered as if it did not exist."""
    version = (
        ProblemVersion.objects.select_related("problem")
        .filter(problem__slug=problem_slug, number=number)
        .first()
    )
    if version is None or not visibility.may_see(
        visibility.DRAFT_PROBLEM,
        visibility.base_viewer(user),
        own=version.problem.is_authored_by(user),
    ):
        raise GradingError("unknown_problem", f"no version {number} of {problem_slug!r}")
    return version


def submission_create(
    *,
    user: User,
    problem_slug: str,
    code: str,
    mode: str,
    custom_input: Any = None,
    in_session: bool = False,
    version_number: int | None = None,
    idempotency_key: str = "",
    refuse_unworked: bool = False,
) -> Submission:
    """Store a submission and queue its grading on its lane once the transaction commits.

    Modes `custom` (with `custom_input`) and `script` are scratch runs (grading/scratch.py):
    the same queue, sandbox and rate limit, on the candidate's input alone. `in_session`:
    a run inside a live or solo session, graded on the interactive lane whatever its mode.
    `version_number`: an author's try-out of that version (`version_for_trial`), a draft
    perhaps: graded on it and marked `trial`, so it never counts as the problem's.
    `idempotency_key` (the client's Idempotency-Key, per user): a repeat of the same request
    returns the first submission instead of a new one (a double click grades once).
    `refuse_unworked`: refuse empty code and an unchanged starter's Submit (a person's
    click; a session's final submission records whatever there is)."""
    if mode not in Submission.Mode.values:
        raise GradingError("bad_mode", f"mode must be one of {', '.join(Submission.Mode.values)}")
    _validate_code(code)
    if mode == Submission.Mode.CUSTOM:
        try:
            scratch.custom_input_check(custom_input)
        except scratch.ScratchInputError as exc:
            raise GradingError("bad_input", str(exc)) from exc
    else:
        custom_input = None
    fingerprint = ""
    if idempotency_key:
        idempotency_key = idempotency_key_check(idempotency_key)
        fingerprint = request_fingerprint(
            problem_slug=problem_slug if version_number is None
            else f"{problem_slug}@v{version_number}",
            code=code, mode=mode, custom_input=custom_input,
        )  # fmt: skip
        first = _replayed(user=user, key=idempotency_key, fingerprint=fingerprint)
        if first is not None:
            return first
    if version_number is not None:
        version = version_for_trial(user=user, problem_slug=problem_slug, number=version_number)
        problem = version.problem
    else:
        offered = Problem.objects.offered().filter(slug=problem_slug).first()
        if offered is None or offered.live_version is None:
            raise GradingError("unknown_problem", f"no published problem {problem_slug!r}")
        problem, version = offered, offered.live_version
    nothing_to_run_check(version.kind)
    if refuse_unworked:
        unworked_check(problem=problem, code=code, mode=mode)
    try:
        with transaction.atomic():
            submission = Submission.objects.create(
                user=user,
                problem=problem,
                version=version,
                trial=version_number is not None,
                mode=mode,
                code=code,
                custom_input=custom_input,
                lane=submission_lane(mode, in_session=in_session),
                idempotency_key=idempotency_key,
                request_hash=fingerprint,
            )
            SUBMISSION_JOBS.enqueue_on_commit(submission)
            codeprint_request(submission=submission)
    except IntegrityError:
        # Two requests with one key at once (a double click racing itself): the unique
        # constraint let one in; the other answers with it, or refuses a different request.
        if not idempotency_key:
            raise
        first = _replayed(user=user, key=idempotency_key, fingerprint=fingerprint)
        if first is None:
            raise
        return first
    return submission


SUBMISSIONS = jobs.JobTable(
    model=Submission,
    status_field="status",
    waiting=(Submission.Status.QUEUED, Submission.Status.RETRYING),
    running=Submission.Status.RUNNING,
    retrying=Submission.Status.RETRYING,
    failed=Submission.Status.FAILED,
)
NOT_CHARGED = "the grader is unavailable; this run was not charged"


def submission_budget_seconds(submission: Submission) -> float:
    """The longest grading `submission` may take (its tests at their wall limits)."""
    version = submission.version
    if submission.mode in scratch.SCRATCH_MODES:
        return job_budget_seconds(version.limits, scratch.scratch_test_count(submission.mode))
    return job_budget_seconds(version.limits, len(version.tests_for(submission.mode)))


SUBMISSION_JOBS = jobs.register(
    jobs.JobKind(
        name="submission",
        table=SUBMISSIONS,
        task="grading.tasks.grade_submission",
        queue_kind=lambda submission: submission.problem.queue,
        lane=lambda submission: Lane(submission.lane),
        budget_seconds=submission_budget_seconds,
        related=("problem", "version"),
    )
)


# ---------------------------------------------------------------- grade


def _record_test(submission_id: int, verdict: TestVerdict, *, done: int, total: int) -> None:
    TestResult.objects.update_or_create(
        submission_id=submission_id,
        index=verdict.index,
        defaults={
            "name": verdict.name,
            "hidden": verdict.hidden,
            "tag": verdict.tag,
            "group": verdict.group or "",
            "verdict": verdict.verdict,
            "time_ms": verdict.time_ms,
            "cpu_ms": verdict.cpu_ms,
            "detail": dict(verdict.detail),
        },
    )
    realtime.broadcast_test(submission_id, verdict, done=done, total=total)


POSITIONS_BROADCAST = 20  # the waiting runs told their new place when one ahead starts


def _announce_positions(kind: str) -> None:
    """A run of `kind` started: those still waiting moved up; tell them (best effort)."""
    waiting = queueing.waiting_runs().filter(problem__queue=kind).select_related("problem")
    for submission in waiting.order_by("pk")[:POSITIONS_BROADCAST]:
        realtime.broadcast(submission.pk, events.status_event(submission))


def _finish(claim: jobs.Claim, judgement: Judgement) -> bool:
    """Store the result unless another worker took the submission over meanwhile."""
    return SUBMISSIONS.finish(
        claim,
        status=Submission.Status.DONE,
        verdict=judgement.verdict,
        passed=judgement.passed,
        total=judgement.total,
        score=judgement.score,
        by_tag={tag: list(counts) for tag, counts in judgement.by_tag.items()},
        by_group={group: list(counts) for group, counts in judgement.by_group.items()},
        worst_by_tag=dict(judgement.worst_by_tag),
        worst_by_group=dict(judgement.worst_by_group),
        by_rule={rule: list(counts) for rule, counts in judgement.by_rule.items()},
        group_rules=dict(judgement.group_rules),
        finished_at=timezone.now(),
        message="",
    )


def _gave_up_fields() -> dict[str, Any]:
    return {"verdict": Submission.Verdict.IE, "message": NOT_CHARGED, "finished_at": timezone.now()}


def _announce(submission_id: int) -> None:
    """Tell every audience the stored state (and the verdict, once there is one)."""
    for event in events.settled_events(Submission.objects.get(pk=submission_id)):
        realtime.broadcast(submission_id, event)


def slot_time_record(*, submission_id: int, seconds: float) -> None:
    """A graded submission held its worker's slot for `seconds` (grading/service_times.py)."""
    row = (
        Submission.objects.filter(pk=submission_id)
        .values("problem_id", "problem__queue", "mode")
        .first()
    )
    if row:
        service_times.record(
            kind=row["problem__queue"],
            mode=row["mode"],
            problem_id=row["problem_id"],
            seconds=seconds,
        )


def submission_grade(*, submission_id: int) -> jobs.Outcome:
    """Grade one submission: DONE, SKIPPED (finished or gone), BUSY (a live worker has it),
    RETRY (platform fault) or FAILED (past the attempt cap: IE, never charged)."""
    claim = SUBMISSIONS.claim(submission_id, started_at=timezone.now(), message="")
    if claim is jobs.Outcome.FAILED:
        if SUBMISSIONS.give_up(submission_id, **_gave_up_fields()):
            _announce(submission_id)
        return jobs.Outcome.FAILED
    if not isinstance(claim, jobs.Claim):
        return claim
    submission = Submission.objects.select_related("version__problem").get(pk=submission_id)
    # A worker that died mid-grade may have left partial results: start clean.
    TestResult.objects.filter(submission_id=submission_id).delete()
    realtime.broadcast(submission_id, events.status_event(submission))
    _announce_positions(submission.version.problem.queue)
    # A scratch run's spec never reads the problem's tests (mode "run" here gives it the
    # problem's driver, limits and image with the public tests, which scratch_spec replaces).
    scratch_mode = submission.mode in scratch.SCRATCH_MODES
    spec = grade_spec_for(
        version=submission.version,
        code=submission.code,
        mode=Submission.Mode.RUN if scratch_mode else submission.mode,
    )
    finished = 0

    def on_verdict(verdict: TestVerdict) -> None:
        nonlocal finished
        finished += 1
        _record_test(submission_id, verdict, done=finished, total=len(spec.tests))

    try:
        with SUBMISSIONS.heartbeat(claim):
            if scratch_mode:  # inside the heartbeat: it may run the reference first
                spec = scratch.scratch_spec(
                    submission=submission,
                    base=spec,
                    with_reference=submission.version.problem.custom_reference,
                )
            judgement = judge(spec, on_verdict=on_verdict)
    except Exception as exc:
        # A platform fault (JudgeError) or a bug while judging: never the candidate's
        # fault, never left running. Retried with backoff, IE past the attempt cap.
        if not isinstance(exc, JudgeError):
            log.exception("submission %s: unexpected error while judging", submission_id)
        outcome = SUBMISSIONS.release(
            claim,
            error=repr(exc),
            retry_fields={"message": UNAVAILABLE},
            failed_fields=_gave_up_fields(),
        )
        _announce(submission_id)
        return outcome
    if _finish(claim, judgement):
        _announce(submission_id)
    return jobs.Outcome.DONE
