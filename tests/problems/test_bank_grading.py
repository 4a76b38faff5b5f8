"""Every problem in the bank, graded for real in the sandbox: the reference gets AC, the starter
does not, and each known-wrong solution gets exactly the verdict its package declares."""

from __future__ import annotations

from pathlib import Path

import pytest

from grading.judge import Judgement
from grading.services import grade_now
from problems.models import Problem
from problems.package import package_read
from problems.services import BANK_DIR, problem_load

pytestmark = [pytest.mark.django_db, pytest.mark.docker, pytest.mark.slow]

FOLDERS = [
    pytest.param(
        p, marks=[pytest.mark.gpu_image] if package_read(p).queue == "gpu" else [], id=p.name
    )
    for p in sorted(p for p in BANK_DIR.iterdir() if (p / "problem.toml").exists())
]


def _grade(folder: Path, code: str) -> Judgement:
    problem, _ = problem_load(package=package_read(folder))
    return grade_now(problem=Problem.objects.get(pk=problem.pk), code=code, mode="submit")


def _failures(judgement: Judgement) -> str:
    return ", ".join(
        f"{t.name}: {t.verdict} {t.detail.get('message', '')}"
        for t in judgement.tests
        if t.verdict != "AC"
    )[:2000]


@pytest.mark.parametrize("folder", FOLDERS)
def test_reference_passes_and_starter_does_not(folder: Path) -> None:
    package = package_read(folder)
    reference = _grade(folder, package.reference_code)
    assert reference.verdict == "AC", _failures(reference)
    assert _grade(folder, package.starter_code).verdict != "AC"


WRONG = [
    pytest.param(
        param.values[0], wrong.file, marks=param.marks, id=f"{param.values[0].name}/{wrong.file}"
    )
    for param in FOLDERS
    for wrong in package_read(param.values[0]).wrong
]


@pytest.mark.parametrize(("folder", "file"), WRONG)
def test_known_wrong_solution_gets_its_declared_verdict(folder: Path, file: str) -> None:
    wrong = next(w for w in package_read(folder).wrong if w.file == file)
    judgement = _grade(folder, wrong.code)
    assert judgement.verdict == wrong.verdict, _failures(judgement)
