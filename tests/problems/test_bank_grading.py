"""Every problem in the bank, graded for real in the sandbox: the reference gets AC, the starter
does not, and each known-wrong solution gets exactly the verdict its package declares, failing
the hidden groups it declares with the words it declares. This is the one place each bank
solution is graded whole; the problems' own test modules pin their checkers and drivers.

A design problem has nothing to grade: it is not run here, its package checks are (below)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from grading.judge import Judgement
from grading.services import grade_now
from problems.models import Problem
from problems.package import package_read
from problems.services import BANK_DIR, problem_load
from studio.validation import target_missed

pytestmark = [pytest.mark.django_db, pytest.mark.docker, pytest.mark.slow]

FOLDERS = [
    pytest.param(
        p, marks=[pytest.mark.gpu_image] if package_read(p).queue == "gpu" else [], id=p.name
    )
    for p in sorted(p for p in BANK_DIR.iterdir() if (p / "problem.toml").exists())
    if package_read(p).kind_spec.runs_code
]
DESIGN_FOLDERS = [
    pytest.param(p, id=p.name)
    for p in sorted(p for p in BANK_DIR.iterdir() if (p / "problem.toml").exists())
    if package_read(p).kind_spec.has_board
]


# Problems whose checker words every failure the same way (a failed hidden test's message).
MESSAGE_PREFIX = {"paged-kv-engine": "first violation at step "}
# Wrong solutions that break one rule only (results by rule): the verdict line names it in
# every test it broke in, and the groups about another rule keep their score.
ONE_RULE = {
    ("continuous-batching-engine", "wrong/step_returns_remaining.py"): "step results",
    ("paged-kv-engine", "wrong/step_returns_remaining.py"): "step results",
}


def _grade(folder: Path, code: str) -> Judgement:
    problem, _ = problem_load(package=package_read(folder))
    return grade_now(problem=Problem.objects.get(pk=problem.pk), code=code, mode="submit")


def _failures(judgement: Judgement) -> str:
    return ", ".join(
        f"{t.name}: {t.verdict} {t.detail.get('message', '')}"
        for t in judgement.tests
        if t.verdict != "AC"
    )[:2000]


@pytest.fixture(scope="module", autouse=True)
def _warm_pool() -> Iterator[None]:
    """One warm container per problem shape: each problem's solutions are collected back to
    back (below), so on each worker all but the first of a problem's run start warm."""
    from sandbox import configure_default_pool

    configure_default_pool(1)
    yield
    configure_default_pool(0)


def _cases() -> list[Any]:
    """Per problem, in a row: the reference, its correct alternatives, the starter, then each
    known-wrong solution."""
    cases = []
    for param in FOLDERS:
        folder = cast(Path, param.values[0])
        alternatives = sorted(f"alternatives/{a.name}" for a in folder.glob("alternatives/*.py"))
        wrong = [w.file for w in package_read(folder).wrong]
        roles = ("reference", *alternatives, "starter", *wrong)
        for role in roles:
            cases.append(pytest.param(folder, role, marks=param.marks, id=f"{folder.name}/{role}"))
    return cases


@pytest.mark.parametrize(("folder", "role"), _cases())
def test_bank_solution_gets_its_verdict(folder: Path, role: str) -> None:
    """The reference and each correct alternative (alternatives/) get AC, the starter does not,
    each wrong solution its declared verdict."""
    package = package_read(folder)
    if role == "reference":
        reference = _grade(folder, package.reference_code)
        assert reference.verdict == "AC", _failures(reference)
    elif role.startswith("alternatives/"):
        alternative = _grade(folder, (folder / role).read_text(encoding="utf-8"))
        assert alternative.verdict == "AC", _failures(alternative)
    elif role == "starter":
        assert _grade(folder, package.starter_code).verdict != "AC"
    else:
        wrong = next(w for w in package.wrong if w.file == role)
        judgement = _grade(folder, wrong.code)
        assert judgement.verdict == wrong.verdict, _failures(judgement)
        # It fails the hidden groups it exists to be caught by, in the words the package
        # declares (problem.toml [[wrong]] groups and says; the studio checks the same).
        assert not target_missed(wrong.groups, wrong.says, judgement), _failures(judgement)
        messages = [
            str(t.detail.get("message", ""))
            for t in judgement.tests
            if t.hidden and t.verdict != "AC"
        ]
        prefix = MESSAGE_PREFIX.get(package.slug)
        assert not prefix or all(m.startswith(prefix) for m in messages), messages[:3]
        rule = ONE_RULE.get((package.slug, role))
        if rule is not None:
            broken, _judged = judgement.by_rule[rule]
            assert judgement.rules_line.startswith(
                f"rule '{rule}' broken in {broken} of"
            ) and judgement.rules_line.endswith("every other rule held"), judgement.rules_line
            others = [g for g, r in judgement.group_rules.items() if r != rule]
            assert others and all(judgement.by_group[g][0] > 0 for g in others), judgement.by_group
            assert judgement.score > 0.5, judgement.score


@pytest.mark.parametrize("folder", DESIGN_FOLDERS)
def test_bank_design_problem_passes_its_package_checks_without_grading(folder: Path) -> None:
    """Not graded (nothing of it runs: grading refuses it), but loaded and checked: every
    design rule met, and it validates through the job lifecycle without a sandbox."""
    from problems.package import package_rules
    from studio.services.validations import version_validate

    package = package_read(folder)
    assert package.kind_spec.has_board and not package.public_tests and not package.wrong
    assert [r.issue for r in package_rules(package) if not r.ok] == []
    problem, _ = problem_load(package=package)
    version = problem.live_version
    assert version is not None and version.reference_board == list(package.reference_board)
    assert version_validate(version=version) == "done"  # the job's outcome; its verdict:
    version.refresh_from_db()
    assert version.validation == "passed"
