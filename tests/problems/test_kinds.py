"""Kinds of problem are declared variants (issue 37.1): callers ask the kind in problems/kinds.py,
never compare its name, and a new kind is one module plus its templates. This module is the
package part of a toy kind ("quiz": a statement and a model answer, nothing to run, no board)
that the tests register and take through the package check, the studio, a session and the
report. Also the package's own shape (issue 37.2): modules under 400 lines, one JSON reader."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from grading.models import Submission
from grading.services import GradingError, grade_now
from interviews import services as interview_services
from problems import kinds
from problems.package import (
    Grading,
    Limits,
    Package,
    PackageError,
    Rule,
    package_lint,
    package_read,
    package_write,
)
from problems.package.__main__ import main as package_check
from problems.package.fields import read_text
from problems.package.writer import meta_dict, toml_dump
from problems.services import problem_load
from tests.factories import client_for, user_with_role
from tests.processes import ROOT

# ---------------------------------------------------------------- no name comparisons

# A problem kind's name compared, or a kind asked for by name: what callers must not do.
COMPARISONS = re.compile(
    r"""[!=]=\s*DESIGN\b"""
    r"""|__kind(?:__in)?\s*=\s*DESIGN\b"""
    r"""|\bis_design\b"""
    r"""|design_refusal_check"""
    r"""|kind\s*[!=]=\s*["'](?:implement|debug|design)["']"""
    r"""|["'](?:implement|debug|design)["']\s*[!=]=\s*[\w.]*kind\b"""
)
SKIPPED = ("tests", ".venv", "node_modules", "var", "sandbox", ".git", "problems/bank")


def _sources() -> Iterator[Path]:
    for pattern in ("*.py", "*.html"):
        for path in ROOT.rglob(pattern):
            relative = path.relative_to(ROOT).as_posix()
            if any(relative == s or relative.startswith(s + "/") for s in SKIPPED):
                continue
            if relative == "problems/kinds.py":
                continue
            yield path


def test_no_caller_compares_a_kinds_name_outside_the_registry() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _sources()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if COMPARISONS.search(line)
    ]
    assert found == []


def test_the_counter_would_see_a_comparison() -> None:
    for line in ('if problem.kind == DESIGN:', '{% if problem.kind == "design" %}',
                 "filter(problem__kind=DESIGN)", "if is_design(session):",
                 "'debug' != version.kind"):
        assert COMPARISONS.search(line), line


def test_the_built_in_kinds_declare_what_they_have() -> None:
    implement, debug, design = (kinds.kind_of(n) for n in ("implement", "debug", "design"))
    assert implement.runs_code and implement.has_tests and not implement.has_board
    assert debug.runs_code and debug.badge == "debug"
    assert design.has_board and not design.runs_code and not design.has_tests
    assert design.validation_steps == (kinds.PACKAGE_CHECKS, kinds.LINT)
    assert kinds.GRADE_SOLUTIONS in implement.validation_steps
    assert design.desk_template == "interviews/_design_desk.html" and "board" in (
        design.report_sections)
    assert kinds.names_where(has_board=True) == ("design",)
    assert kinds.kind_of("no-such-kind") is kinds.IMPLEMENT and kinds.find(None) is None


# ---------------------------------------------------------------- the package's shape


def test_every_module_of_the_package_is_under_400_lines() -> None:
    folder = ROOT / "problems" / "package"
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in folder.glob("*.py")}
    assert len(sizes) > 5 and max(sizes.values()) < 400, sizes
    assert not (ROOT / "problems" / "package.py").exists()


def test_the_package_has_one_bounded_json_reader() -> None:
    readers = [
        f"{p.name}:{n}"
        for p in (ROOT / "problems" / "package").glob("*.py")
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"json\.loads?\(", line)
    ]
    assert readers == [f"fields.py:{_line_of('fields.py', 'json.loads(')}"]


def _line_of(name: str, text: str) -> int:
    lines = (ROOT / "problems" / "package" / name).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if text in line)


def test_a_board_over_its_bound_is_refused_before_it_is_read(tmp_path: Path) -> None:
    from problems.package.board import MAX_BOARD_BYTES, read_board

    board = tmp_path / "board.json"
    board.write_text("[" + " " * MAX_BOARD_BYTES + "]")
    with pytest.raises(PackageError, match="larger than"):
        read_board(board)


# ---------------------------------------------------------------- a toy kind: its package part

ANSWER = "answer.md"


def read(root: Path, meta: dict[str, Any], toml_path: Path, common: dict[str, Any]) -> Package:
    """The quiz's own part: a model answer."""
    if "grading" in meta:
        raise PackageError(toml_path, "grading", "a quiz has none")
    return Package(**common, starter_code="", reference_code=read_text(root / ANSWER),
                   limits=Limits(), grading=Grading("custom", "", "exact"),
                   public_tests=(), hidden_tests=(), wrong=())


def write(package: Package, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    meta = {k: v for k, v in meta_dict(package).items() if k not in ("grading", "limits")}
    (folder / "problem.toml").write_text(toml_dump(meta), encoding="utf-8")
    (folder / "statement.md").write_text(package.statement_md, encoding="utf-8")
    (folder / ANSWER).write_text(package.reference_code, encoding="utf-8")
    return folder


def rules(package: Package) -> list[Rule]:
    return [Rule("model answer", int(bool(package.reference_code.strip())), 1,
                 "needs a model answer")]


def summary(package: Package) -> str:
    return f"quiz, {len(package.hints)} hints"


def new_package(*, slug: str, title: str, difficulty: str, queue: str, kind: str,
                topics: tuple[str, ...], entry: str) -> Package:
    return Package(slug=slug, title=title, difficulty=difficulty, queue="cpu", kind=kind,
                   topics=tuple(topics), hints=(), follow_ups=(),
                   statement_md=f"# {title}\n\nAnswer in your notes.\n", starter_code="",
                   reference_code="", limits=Limits(), grading=Grading("custom", "", "exact"),
                   public_tests=(), hidden_tests=(), wrong=(), clarifications=(), rubric=())


QUIZ = kinds.Kind(
    name="quiz", label="quiz (a written answer)", runs_code=False, has_tests=False,
    has_board=False, validation_steps=(kinds.PACKAGE_CHECKS, kinds.LINT),
    desk_template="interviews/_design_desk.html", report_sections=(),
    package_part=__name__, badge="Quiz", badge_title="A written answer",
)


@pytest.fixture
def quiz() -> Iterator[kinds.Kind]:
    kinds.register(QUIZ)
    yield QUIZ
    kinds.unregister(QUIZ.name)


def _quiz_folder(root: Path, slug: str = "capital-cities") -> Path:
    folder = root / slug
    folder.mkdir()
    (folder / "problem.toml").write_text(
        f'slug = "{slug}"\ntitle = "Capital cities"\nkind = "quiz"\n'
        'hints = ["Think of Europe."]\n'
    )
    (folder / "statement.md").write_text("# Capital cities\nName the capital of France.")
    (folder / ANSWER).write_text("Paris.")
    return folder


def test_a_toy_kind_passes_the_package_check(quiz: kinds.Kind, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    folder = _quiz_folder(tmp_path)
    package = package_read(folder)
    assert package.kind_spec is quiz and package.reference_code == "Paris."
    assert package_lint(package) == []
    again = package_read(package_write(package, tmp_path / "out"))
    assert again == package
    assert package_check(["check", str(folder)]) == 0
    assert "OK   capital-cities: quiz, 1 hints" in capsys.readouterr().out
    (folder / ANSWER).write_text("")
    assert package_lint(package_read(folder)) == ["needs a model answer"]


def test_an_unregistered_kind_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(PackageError, match="kind: 'quiz' is not one of implement, debug, design"):
        package_read(_quiz_folder(tmp_path))


@pytest.mark.django_db
def test_a_toy_kind_goes_through_the_studio(quiz: kinds.Kind) -> None:
    from studio.services.problems import problem_create
    from studio.services.validations import version_validate, version_validation_request

    writer = user_with_role("writer", "author")
    problem = problem_create(user=writer, slug="capital-cities", title="Capital cities",
                             kind="quiz", entry="")
    assert problem.kind_spec is quiz
    page = client_for(writer).get("/studio/capital-cities/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "model answer" in html  # its rule, from its part
    assert 'id="test-table"' not in html and 'id="test-form"' not in html  # it has none
    version = problem.versions.get()
    assert version_validation_request(version=version)
    assert version_validate(version=version) == "done"
    version.refresh_from_db()
    assert version.validation == "failed"  # no model answer yet: its package check fails
    assert [c["role"] for c in version.validation_report["checks"]] == ["design"]


@pytest.mark.django_db
def test_a_toy_kind_goes_through_a_session_and_its_report(quiz: kinds.Kind,
                                                          tmp_path: Path) -> None:
    problem, _ = problem_load(package=package_read(_quiz_folder(tmp_path)), publish=True)
    assert problem.kind_spec is quiz
    candidate = user_with_role("cand", "candidate")
    reader = client_for(candidate)
    listing = reader.get("/").content.decode()
    assert 'title="A written answer">Quiz</span>' in listing
    with pytest.raises(GradingError) as refused:  # nothing of it runs
        grade_now(problem=problem, code="print(1)", mode="run")
    assert refused.value.code == "design_problem"
    session = interview_services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=30))
    page = reader.get(f"/sessions/{session.pk}/")
    assert page.status_code == 200
    assert 'id="design-desk"' in page.content.decode()  # its declared desk
    interview_services.session_finish_by(session_id=session.pk, user=candidate)
    session.refresh_from_db()
    assert session.status == "finished"
    assert not Submission.objects.filter(problem=problem).exists()  # nothing of it runs
    report = reader.get(f"/sessions/{session.pk}/report/")
    assert report.status_code == 200
    html = report.content.decode()
    assert 'id="report-board"' not in html and 'id="report-code"' not in html
