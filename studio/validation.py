"""Checking a problem version the way Polygon and Kattis check a package. Django-free.

A version is valid when, graded on every test (public and hidden) through the same judge as
candidates:

* the reference solution gets AC,
* each known-wrong solution gets exactly the verdict its package declares,
* the starter code does not get AC (a starter that passes gives the problem away).

The reference's per-test CPU times also calibrate the time limit: the suggested limit is a
multiple of the slowest reference test (never below a floor), and a test whose reference time is
over half the current limit is flagged. CPU time, not wall time, because CPU time is what a TLE
is judged on: a busy grader stretches a test's wall time several times over (other processes
take the cores) but leaves its CPU time nearly where it was. Nearly: a test sharing its core
with other work pays for the caches and the core's other thread they take, and one grading of
a few tens of milliseconds is noisy, so the slowest tests are graded again (`retime_spec`) and
each test counts for the least CPU time it took (noise and load only ever add), which holds a
suggestion made on a loaded machine within a few percent of a quiet one's (`python -m bench
calibration` measures it). Timing findings are warnings, not failures: a validation that fails
at random would be worse than none.

This module turns judgements into a JSON report;
`studio.services.validations.version_validate` runs the solutions and stores it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grading.judge import GradeSpec, Judgement

REPORT_FORMAT = 1
TIME_MULTIPLIER = 3.0  # suggested limit = this × the slowest reference test ...
TIME_FLOOR_SECONDS = 1.0  # ... but never below this (container and interpreter jitter)
TIME_CEILING_SECONDS = 120.0  # the package format's own upper bound on a per-test limit
FLAG_FRACTION = 0.5  # a reference test over this share of the limit is flagged
RETIMED_TESTS = 3  # the reference's slowest tests are graded again ...
RETIMES = 2  # ... this many more times each, and count for their least CPU time
MAX_FAILURES_SHOWN = 10
MAX_MESSAGE_CHARS = 500

PASS, FAIL, WARN = "pass", "fail", "warn"


@dataclass(frozen=True)
class Solution:
    """One program the validation grades, and what it must get."""

    role: str  # reference | starter | wrong
    name: str  # the package file: reference.py, starter.py, wrong/<name>.py
    code: str
    expected: str  # a verdict, or "not AC" for the starter
    why: str = ""
    groups: tuple[str, ...] = ()  # hidden groups a wrong solution must fail
    says: str = ""  # words a failed hidden test's message must contain


def solutions_for(
    *, reference: str, starter: str, wrong: Sequence[Mapping[str, Any]]
) -> list[Solution]:
    """The programs to grade, reference first (its times calibrate the limit)."""
    solutions = [
        Solution("reference", "reference.py", reference, "AC"),
        Solution("starter", "starter.py", starter, "not AC"),
    ]
    solutions += [
        Solution(
            "wrong",
            str(w["file"]),
            str(w["code"]),
            str(w["verdict"]),
            str(w.get("why", "")),
            tuple(str(g) for g in w.get("groups", ())),
            str(w.get("says", "")),
        )
        for w in wrong
    ]
    return solutions


def solutions_hash(solutions: Sequence[Solution]) -> str:
    """Identifies the programs a report was made with.

    Reference, starter and wrong solutions live on the problem, not on the version, so they can
    change after a version validated; a report whose hash no longer matches is stale.
    """
    payload = [
        [s.role, s.name, s.code, s.expected]
        + ([list(s.groups), s.says] if s.groups or s.says else [])  # older reports stay valid
        for s in solutions
    ]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:16]


def _clip(text: Any) -> str:
    text = str(text)
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + "…"


def target_missed(groups: Sequence[str], says: str, judgement: Judgement) -> str:
    """What a wrong solution with the right verdict still failed to show: a declared hidden
    group it passed whole, or declared words no failed hidden test's message contains ("" when
    it shows both)."""
    hidden = [t for t in judgement.tests if t.hidden]
    for group in groups:
        verdicts = [t.verdict for t in hidden if t.group == group]
        if not verdicts:
            return f"declared to fail hidden group {group}, which has no tests"
        if all(v == "AC" for v in verdicts):
            return f"declared to fail hidden group {group}, but passed it"
    messages = [str(t.detail.get("message", "")) for t in hidden if t.verdict != "AC"]
    if says and not any(says in m for m in messages):
        return f"no failed hidden test says {says!r}"
    return ""


def check_solution(solution: Solution, judgement: Judgement) -> dict[str, Any]:
    """Whether one graded solution got what it must, with the tests that decided it."""
    got = judgement.verdict
    missed = ""
    if solution.role == "reference":
        ok = got == "AC"
    elif solution.role == "starter":
        # IE is the grader failing, not the starter failing: it proves nothing either way.
        ok = got not in ("AC", "IE")
    else:
        ok = got == solution.expected
        if ok:
            missed = target_missed(solution.groups, solution.says, judgement)
            ok = not missed
    if solution.role == "reference":
        notable = [t for t in judgement.tests if t.verdict != "AC"]
    elif solution.role == "wrong" and not ok:
        # What the author needs: the tests that gave the unexpected worst verdict.
        notable = [t for t in judgement.tests if t.verdict == got]
    else:
        notable = [t for t in judgement.tests if t.verdict != "AC"]
    return {
        "role": solution.role,
        "name": solution.name,
        "expected": solution.expected,
        "got": got,
        "status": PASS if ok else FAIL,
        "why": solution.why,
        "passed_tests": judgement.passed,
        "total_tests": judgement.total,
        "verdicts": dict(Counter(t.verdict for t in judgement.tests)),
        "tests": [
            {
                "name": t.name,
                "verdict": t.verdict,
                "hidden": t.hidden,
                "time_ms": t.time_ms,
                "message": _clip(t.detail.get("message", "")),
            }
            for t in notable[:MAX_FAILURES_SHOWN]
        ],
        "message": missed or _solution_message(solution, got, ok),
    }


def _solution_message(solution: Solution, got: str, ok: bool) -> str:
    if solution.role == "reference":
        return "passes every test" if ok else f"the reference gets {got}, not AC"
    if solution.role == "starter":
        if got == "IE":
            return "the grader failed on the starter"
        return f"does not pass ({got})" if ok else "the starter code passes every test"
    if ok:
        return f"gets {got} as declared"
    return f"declared {solution.expected}, got {got}"


def check_error(solution: Solution, message: str) -> dict[str, Any]:
    """A solution the judge could not grade for an author-side reason (a broken checker)."""
    return {
        "role": solution.role,
        "name": solution.name,
        "expected": solution.expected,
        "got": "IE",
        "status": FAIL,
        "why": solution.why,
        "passed_tests": 0,
        "total_tests": 0,
        "verdicts": {},
        "tests": [],
        "message": _clip(message),
    }


def design_check(issues: Sequence[str]) -> dict[str, Any]:
    """A design version's one check: its package checks (problems.package.design_rules), which
    are failures here, not warnings, since they are all a design problem is checked by."""
    ok = not issues
    return {
        "role": "design",
        "name": "design package checks",
        "expected": "every check met",
        "got": "met" if ok else f"{len(issues)} unmet",
        "status": PASS if ok else FAIL,
        "why": "a design problem has nothing to run: its rubric, clarifications, statement "
        "and reference design are what is checked",
        "passed_tests": 0,
        "total_tests": 0,
        "verdicts": {},
        "tests": [],
        "message": "every design check is met" if ok else "; ".join(_clip(i) for i in issues),
    }


def suggested_limit_seconds(slowest_ms: float) -> float:
    """TIME_MULTIPLIER × the slowest reference test, rounded up to 0.1 s, within bounds."""
    raw = TIME_MULTIPLIER * slowest_ms / 1000.0
    rounded = math.ceil(round(raw * 10, 6)) / 10  # round() first: 0.3 * 10 is 3.0000000000000004
    return min(TIME_CEILING_SECONDS, max(TIME_FLOOR_SECONDS, rounded))


def retime_spec(spec: GradeSpec, judgement: Judgement) -> GradeSpec | None:
    """The reference's RETIMED_TESTS slowest tests by CPU time, to grade RETIMES times more;
    None when it has none (or did not pass: a failed reference times nothing)."""
    if judgement.verdict != "AC" or not judgement.tests:
        return None
    slowest = sorted(judgement.tests, key=lambda t: t.cpu_ms, reverse=True)[:RETIMED_TESTS]
    names = {t.name for t in slowest}
    tests = [test for test in spec.tests if test.name in names]
    return dataclasses.replace(spec, tests=tests) if tests else None


def least_cpu_ms(judgements: Sequence[Judgement]) -> dict[str, float]:
    """Each test's least CPU time over the gradings that ran it (the first one runs all)."""
    least: dict[str, float] = {}
    for judged in judgements:
        for test in judged.tests:
            if test.verdict == "AC" or test.name not in least:
                least[test.name] = min(least.get(test.name, math.inf), test.cpu_ms)
    return least


def timing_calibrate(
    judgement: Judgement, limits: Mapping[str, Any], retimed: Sequence[Judgement] = ()
) -> dict[str, Any]:
    """The reference's per-test CPU times against the version's limit, and the suggested limit.

    The effective per-test limit is the smaller of the wall and CPU limits: a test is stopped
    at whichever it reaches first. Each row keeps the wall time too, for the author to see, but
    only CPU time is compared with the limit (the verdict is judged on it). A test graded again
    (`retimed`, from `retime_spec`) counts for its least CPU time, every sample kept in its row.
    """
    wall = float(limits.get("test_wall_seconds", 2.0))
    cpu = float(limits.get("test_cpu_seconds", wall))
    limit_ms = min(wall, cpu) * 1000.0
    least = least_cpu_ms([judgement, *retimed])
    samples: defaultdict[str, list[float]] = defaultdict(list)
    for judged in (judgement, *retimed):
        for test in judged.tests:
            samples[test.name].append(test.cpu_ms)
    cpu_of = {t.name: least.get(t.name, t.cpu_ms) for t in judgement.tests}
    rows = []
    for t in judgement.tests:
        cpu_ms = cpu_of[t.name]
        row: dict[str, Any] = {
            "name": t.name,
            "hidden": t.hidden,
            "tag": t.tag,
            "verdict": t.verdict,
            "time_ms": t.time_ms,
            "cpu_ms": cpu_ms,
            "percent_of_limit": round(100.0 * cpu_ms / limit_ms, 1),
            "flagged": cpu_ms > FLAG_FRACTION * limit_ms,
        }
        if len(samples[t.name]) > 1:
            row["cpu_samples_ms"] = samples[t.name]
        rows.append(row)
    slowest = max(judgement.tests, key=lambda t: cpu_of[t.name], default=None)
    slowest_ms = cpu_of[slowest.name] if slowest else 0.0
    suggested = suggested_limit_seconds(slowest_ms)
    flagged = [row["name"] for row in rows if row["flagged"]]
    warnings = []
    if flagged:
        warnings.append(
            f"{len(flagged)} test(s) take the reference over {FLAG_FRACTION:.0%} of the "
            f"{limit_ms / 1000:g} s limit"
        )
    if limit_ms / 1000.0 < suggested:
        warnings.append(
            f"the limit ({limit_ms / 1000:g} s) is below the suggested {suggested:g} s "
            f"({TIME_MULTIPLIER:g}× the slowest reference test's CPU time)"
        )
    return {
        "status": WARN if warnings else PASS,
        "limit_ms": limit_ms,
        "slowest_ms": slowest_ms,
        "slowest_test": slowest.name if slowest else "",
        "multiplier": TIME_MULTIPLIER,
        "floor_seconds": TIME_FLOOR_SECONDS,
        "flag_fraction": FLAG_FRACTION,
        "retimes": len(retimed),
        "suggested_limit_seconds": suggested,
        "flagged": flagged,
        "warnings": warnings,
        "tests": rows,
    }


def lint_check(issues: Sequence[str]) -> dict[str, Any]:
    """Bank-quality rules (test counts, hints...): warnings for the author, not failures."""
    return {"status": WARN if issues else PASS, "issues": list(issues)}


def report_build(
    *,
    version_number: int,
    checks: Sequence[Mapping[str, Any]],
    timing: Mapping[str, Any] | None,
    lint: Mapping[str, Any],
    solutions_hash: str,
    started_at: str,
    finished_at: str,
) -> dict[str, Any]:
    """The stored report. `passed` is false when any solution check failed."""
    failed = [c["name"] for c in checks if c["status"] == FAIL]
    return {
        "format": REPORT_FORMAT,
        "version": version_number,
        "passed": not failed and bool(checks),
        "failed_checks": failed,
        "checks": list(checks),
        "timing": dict(timing) if timing else None,
        "lint": dict(lint),
        "solutions_hash": solutions_hash,
        "started_at": started_at,
        "finished_at": finished_at,
        "error": "",
    }


def report_error(*, version_number: int, message: str, retrying: bool) -> dict[str, Any]:
    """The report of a validation the grader could not run (Docker down, image missing)."""
    return {
        "format": REPORT_FORMAT,
        "version": version_number,
        "passed": False,
        "failed_checks": [],
        "checks": [],
        "timing": None,
        "lint": {"status": PASS, "issues": []},
        "solutions_hash": "",
        "error": _clip(message),
        "retrying": retrying,
    }


def validation_state(validation: str, report: Mapping[str, Any], current_hash: str) -> str:
    """pending | running | passed | failed | stale (passed, but with programs since changed)."""
    if validation == "passed" and report.get("solutions_hash") != current_hash:
        return "stale"
    return validation
