"""Design problems in the studio (issue 29): an author creates one, edits its statement,
clarifications, hints, rubric, reference design text and board; the tests, driver and
wrong-solution editors are not there; it validates without a sandbox and publishes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from problems.models import Problem, ProblemVersion
from problems.package import package_read
from problems.services import BANK_DIR, problem_to_package
from studio.forms import PartsForm
from studio.services.validations import version_validate

pytestmark = pytest.mark.django_db

BANK_DESIGN = package_read(BANK_DIR / "batch-inference-api")


def _create(client: Any, slug: str = "design-a-cache") -> Problem:
    response = client.post(
        "/studio/new/",
        {
            "slug": slug,
            "title": "Design a cache",
            "difficulty": "medium",
            "queue": "cpu",
            "kind": "design",
            "topics": "system design",
            "entry": "",
        },
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    return Problem.objects.get(slug=slug)


def _newest(problem: Problem) -> ProblemVersion:
    return problem.versions.order_by("-number")[0]


def _form_data(problem: Problem, **changes: Any) -> dict[str, Any]:
    """What the design page's parts form posts: its fields as shown, the JSON views saved."""
    initial = PartsForm.initial_from(problem_to_package(problem=problem, version=_newest(problem)))
    data = {k: v for k, v in initial.items() if v is not None}
    data |= {"clarifications_as_json": "on", "rubric_as_json": "on", "hints_as_text": "on"}
    return data | changes


def _complete(problem: Problem) -> dict[str, Any]:
    """Everything a design problem needs (the bank's batch-inference-api content)."""
    package = BANK_DESIGN
    return _form_data(
        problem,
        hints="\n".join(package.hints),
        follow_ups="\n".join(package.follow_ups),
        clarifications=json.dumps([c.as_dict() for c in package.clarifications]),
        rubric=json.dumps(
            [
                {
                    "criterion": r.criterion,
                    "weight": r.weight,
                    "strong": r.strong,
                    "levels": list(r.levels),
                }
                for r in package.rubric
            ]
        ),
        reference_code=package.reference_code,
        reference_board=json.dumps(list(package.reference_board)),
    )


def test_an_author_creates_a_design_problem_without_tests_or_code(author: Any) -> None:
    problem = _create(author)
    version = _newest(problem)
    assert (problem.kind, version.kind) == ("design", "design")
    assert version.public_tests == [] and version.wrong_solutions == []
    assert version.reference_board == [] and "## Failure modes" in version.reference_code
    page = author.get(f"/studio/{problem.slug}/").content.decode()
    # The design editor, with the board's advanced field; no tests, driver or wrong solutions.
    assert 'id="board-editor"' in page and 'name="reference_board"' in page
    assert 'name="clar-0-question"' in page and 'data-row-add="rub"' in page
    for absent in (
        'id="test-table"',
        'id="tests"',
        'id="wrong"',
        "Driver (driver.py",
        'id="wrong-form"',
    ):
        assert absent not in page, absent
    # The design checks are shown up front, unmet ones named.
    assert "design criteria with anchored levels: <strong>0/7</strong>" in page
    assert "clarifying questions: <strong>0/4</strong>" in page
    assert "rubric lacks anchored levels for: Requirements, Estimation" in page


def test_an_implement_problem_still_needs_its_entry(author: Any) -> None:
    response = author.post(
        "/studio/new/",
        {
            "slug": "needs-entry",
            "title": "T",
            "difficulty": "easy",
            "queue": "cpu",
            "kind": "implement",
            "entry": "",
        },
    )
    assert response.status_code == 400
    assert "name the function or class" in response.content.decode()


def test_the_design_parts_are_saved_as_a_new_draft(author: Any) -> None:
    problem = _create(author)
    response = author.post(f"/studio/{problem.slug}/parts/", _complete(problem))
    assert response.status_code == 302, response.content.decode()[-3000:]
    version = _newest(problem)
    assert version.number == 1 or version.validation == "draft"
    assert version.reference_board == list(BANK_DESIGN.reference_board)
    assert version.reference_code == BANK_DESIGN.reference_code
    assert len(version.clarifications) == len(BANK_DESIGN.clarifications)
    assert {r["criterion"] for r in version.rubric} >= {
        "requirements",
        "estimation",
        "failure_modes",
        "tradeoffs",
    }
    page = author.get(f"/studio/{problem.slug}/").content.decode()
    assert "design criteria with anchored levels: <strong>7/7</strong>" in page
    assert "rule-open" not in page


@pytest.mark.parametrize(
    ("board", "says"),
    [
        ("{not json", "not valid JSON"),
        ('{"id": "a"}', "must be a JSON list of Excalidraw elements"),
        (
            '[{"id": "a", "type": "blob", "x": 0, "y": 0}]',
            "[0].type: &#x27;blob&#x27; is not one of",
        ),
        ('[{"type": "rectangle"}]', "[0].id: must be a string"),
        ('[{"id": "a", "type": "rectangle", "x": "left"}]', "[0].x: must be a finite number"),
        ('[{"id": "a", "type": "text", "x": 0, "y": 0}]', "[0].text: missing"),
        ('[{"id": "a", "type": "arrow", "x": 0, "y": 0}]', "[0].points: missing"),
        (
            '[{"id": "a", "type": "ellipse"}, {"id": "a", "type": "ellipse"}]',
            "[1].id: duplicate element id",
        ),
    ],
)
def test_a_malformed_board_is_refused_at_its_field_and_nothing_is_saved(
    author: Any, board: str, says: str
) -> None:
    problem = _create(author)
    response = author.post(
        f"/studio/{problem.slug}/parts/", _form_data(problem, reference_board=board)
    )
    assert response.status_code == 400
    page = response.content.decode()
    errors = page.split('id="id_reference_board-errors"', 1)
    assert len(errors) == 2, "the error is not at the board's field"
    assert says in errors[1].split("</ul>", 1)[0]
    assert "open>" in page.split('id="board-editor"', 1)[1][:40]  # the field is shown open
    assert problem.versions.count() == 1 and _newest(problem).reference_board == []


def test_a_problem_cannot_change_kind_to_or_from_design(author: Any, problem: Problem) -> None:
    design = _create(author)
    response = author.post(f"/studio/{design.slug}/parts/", _form_data(design, kind="implement"))
    assert response.status_code == 400
    assert "cannot change to or from a design problem" in response.content.decode()
    assert design.versions.count() == 1


def test_a_design_problem_validates_without_a_sandbox_and_publishes(author: Any) -> None:
    problem = _create(author)
    # Incomplete: validation runs (no sandbox) and fails on its package checks.
    author.post(f"/studio/{problem.slug}/v1/validate/")
    assert version_validate(version=_newest(problem)) == "done"
    version = _newest(problem)
    assert version.validation == "failed"
    check = version.validation_report["checks"][0]
    assert check["role"] == "design" and "clarifying questions" in check["message"]
    # Complete: it passes, goes live, and publishes.
    assert author.post(f"/studio/{problem.slug}/parts/", _complete(problem)).status_code == 302
    version = _newest(problem)
    author.post(f"/studio/{problem.slug}/v{version.number}/validate/")
    assert version_validate(version=_newest(problem)) == "done"
    assert _newest(problem).validation == "passed"
    page = author.get(f"/studio/{problem.slug}/v{version.number}/").content.decode()
    assert "passed" in page
    author.post(f"/studio/{problem.slug}/v{version.number}/live/")
    response = author.post(f"/studio/{problem.slug}/publish/")
    problem.refresh_from_db()
    assert response.status_code == 302 and problem.published, response.content.decode()[-2000:]
    assert problem.live_version == version
    assert problem.reference_board == list(BANK_DESIGN.reference_board)
    assert problem in Problem.objects.offered()


def test_a_design_problem_exports_and_imports_with_its_board(author: Any) -> None:
    problem = _create(author)
    assert author.post(f"/studio/{problem.slug}/parts/", _complete(problem)).status_code == 302
    archive = author.get(f"/studio/{problem.slug}/export.zip?v={_newest(problem).number}")
    assert archive.status_code == 200
    from problems.archive import package_unzip

    data = b"".join(archive.streaming_content) if archive.streaming else archive.content
    package = package_unzip(data)
    assert package.kind_spec.has_board and package.reference_board == BANK_DESIGN.reference_board
    assert package.reference_code == BANK_DESIGN.reference_code
    # Imported back as a new problem (its slug changed in the archive): the board comes too.
    import io
    import zipfile

    renamed = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(renamed, "w") as out:
        for info in source.infolist():
            body = source.read(info)
            if info.filename.endswith("problem.toml"):
                body = body.replace(b'slug = "design-a-cache"', b'slug = "design-a-cache-2"')
            out.writestr(info.filename.replace("design-a-cache/", "design-a-cache-2/"), body)
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("p.zip", renamed.getvalue(), content_type="application/zip")
    response = author.post("/studio/import/", {"archive": upload})
    assert response.status_code == 302, response.content.decode()[-2000:]
    copy = Problem.objects.get(slug="design-a-cache-2")
    assert copy.kind == "design" and _newest(copy).reference_board == list(
        BANK_DESIGN.reference_board
    )
