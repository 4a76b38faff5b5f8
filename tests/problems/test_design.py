"""The package format for design problems (kind "design", issue 29): reference/design.md and
a checked reference/board.json instead of tests and code; its own package checks; each
malformed field a PackageError naming the file and the field; zip and database round trips
keep the board; loadproblems loads the bank's."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from problems.archive import package_unzip, package_zip
from problems.package import (
    DESIGN_CRITERIA,
    MAX_BOARD_ELEMENTS,
    PackageError,
    package_lint,
    package_read,
    package_rules,
    package_write,
)
from problems.services import BANK_DIR, problem_load, problem_to_package

LEVELS = '["1: nothing", "2: some", "3: most", "4: all, unprompted"]'
RUBRIC = "".join(
    f'\n[[rubric]]\ncriterion = "{c}"\nweight = 1\nstrong = "strong {c}"\nlevels = {LEVELS}\n'
    for c in DESIGN_CRITERIA
)
CLARIFICATIONS = "".join(
    f'\n[[clarification]]\nquestion = "Question {i}?"\nanswer = "Answer {i}."\nkey = true\n'
    for i in range(4)
)
TOML = (
    'slug = "design-x"\ntitle = "Design X"\nkind = "design"\ndifficulty = "hard"\n'
    'topics = ["system design"]\nhints = ["Estimate first."]\nfollow_ups = ["And at 10x?"]\n'
    + CLARIFICATIONS
    + RUBRIC
)
BOARD = [
    {"id": "a", "type": "rectangle", "x": 0, "y": 0, "width": 100, "height": 50},
    {"id": "t", "type": "text", "x": 10, "y": 10, "text": "API", "containerId": "a"},
    {"id": "r", "type": "arrow", "x": 100, "y": 25, "points": [[0, 0], [80, 0]]},
]


def make_design(root: Path, board: object = BOARD) -> Path:
    folder = root / "design-x"
    (folder / "reference").mkdir(parents=True)
    (folder / "problem.toml").write_text(TOML)
    (folder / "statement.md").write_text("# Design X\n\n10k requests/s.\n")
    (folder / "reference" / "design.md").write_text("# Reference\n\nA queue.\n")
    (folder / "reference" / "board.json").write_text(json.dumps(board))
    return folder


def test_a_design_package_reads_with_its_text_and_board(tmp_path: Path) -> None:
    package = package_read(make_design(tmp_path))
    assert package.kind_spec.has_board and package.kind == "design"
    assert package.reference_code.startswith("# Reference")
    assert [e["id"] for e in package.reference_board] == ["a", "t", "r"]
    assert package.public_tests == () and package.wrong == () and package.starter_code == ""
    assert package_lint(package) == []
    assert all(rule.ok for rule in package_rules(package))


def test_a_design_package_round_trips_through_a_folder_and_a_zip(tmp_path: Path) -> None:
    package = package_read(make_design(tmp_path / "a"))
    assert package_read(package_write(package, tmp_path / "b")) == package
    written = tmp_path / "b" / "design-x"
    assert sorted(p.relative_to(written).as_posix() for p in written.rglob("*") if p.is_file()) == [
        "problem.toml",
        "reference/board.json",
        "reference/design.md",
        "statement.md",
    ]
    assert package_unzip(package_zip(package)) == package


def _write(name: str, text: str) -> Callable[[Path], None]:
    def mutate(folder: Path) -> None:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    return mutate


def _toml(old: str, new: str) -> Callable[[Path], None]:
    def mutate(folder: Path) -> None:
        assert old in TOML, old
        (folder / "problem.toml").write_text(TOML.replace(old, new, 1))

    return mutate


def _board(board: object) -> Callable[[Path], None]:
    return _write("reference/board.json", json.dumps(board))


def _remove(name: str) -> Callable[[Path], None]:
    return lambda folder: (folder / name).unlink()


ELEMENT = {"id": "a", "type": "rectangle", "x": 0, "y": 0}
MALFORMED = [
    ("missing design text", _remove("reference/design.md"), "reference/design.md", "file"),
    ("missing board", _remove("reference/board.json"), "reference/board.json", "file"),
    ("board not JSON", _write("reference/board.json", "[{"), "reference/board.json", "file"),
    ("board not a list", _board({"elements": []}), "reference/board.json", "file"),
    ("element not an object", _board([1]), "reference/board.json", "[0]"),
    ("element without id", _board([{"type": "rectangle"}]), "reference/board.json", "[0].id"),
    ("id not a string", _board([ELEMENT | {"id": 7}]), "reference/board.json", "[0].id"),
    ("empty id", _board([ELEMENT | {"id": ""}]), "reference/board.json", "[0].id"),
    ("duplicate id", _board([ELEMENT, ELEMENT]), "reference/board.json", "[1].id"),
    ("unknown type", _board([ELEMENT | {"type": "blob"}]), "reference/board.json", "[0].type"),
    ("image type", _board([ELEMENT | {"type": "image"}]), "reference/board.json", "[0].type"),
    ("x not a number", _board([ELEMENT | {"x": "0"}]), "reference/board.json", "[0].x"),
    ("width a bool", _board([ELEMENT | {"width": True}]), "reference/board.json", "[0].width"),
    (
        "text not a string",
        _board([ELEMENT | {"type": "text", "text": 3}]),
        "reference/board.json",
        "[0].text",
    ),
    (
        "text element without text",
        _board([ELEMENT | {"type": "text"}]),
        "reference/board.json",
        "[0].text",
    ),
    (
        "arrow without points",
        _board([ELEMENT | {"type": "arrow"}]),
        "reference/board.json",
        "[0].points",
    ),
    (
        "bad points",
        _board([ELEMENT | {"type": "line", "points": [[0, "a"]]}]),
        "reference/board.json",
        "[0].points",
    ),
    (
        "too many elements",
        _board([ELEMENT | {"id": str(i)} for i in range(MAX_BOARD_ELEMENTS + 1)]),
        "reference/board.json",
        "elements",
    ),
    (
        "board too large",
        _write("reference/board.json", " " * (1024 * 1024 + 1)),
        "reference/board.json",
        "file",
    ),
    ("unknown kind", _toml('kind = "design"', 'kind = "essay"'), "problem.toml", "kind"),
    (
        "grading table",
        _toml('kind = "design"', 'kind = "design"\n[grading]\ndriver = "ops"'),
        "problem.toml",
        "grading",
    ),
    (
        "wrong solutions",
        _toml('kind = "design"', 'kind = "design"\nwrong = []'),
        "problem.toml",
        "wrong",
    ),
    ("tests folder", _write("tests/public.json", "[]"), "tests", "file"),
    ("reference code", _write("reference.py", "x = 1\n"), "reference.py", "file"),
    ("coverage map", _write("coverage.toml", ""), "coverage.toml", "file"),
    (
        "bad design criterion",
        _toml('criterion = "estimation"', 'criterion = "vibes"'),
        "problem.toml",
        "rubric[1].criterion",
    ),
    ("missing statement", _remove("statement.md"), "statement.md", "file"),
]


@pytest.mark.parametrize(
    ("mutate", "file", "field"), [pytest.param(m, f, n, id=i) for i, m, f, n in MALFORMED]
)
def test_each_malformed_field_names_its_file_and_field(
    tmp_path: Path, mutate: Callable[[Path], None], file: str, field: str
) -> None:
    folder = make_design(tmp_path)
    mutate(folder)
    with pytest.raises(PackageError) as error:
        package_read(folder)
    assert error.value.path == f"design-x/{file}", error.value
    assert error.value.field == field, error.value
    assert "Traceback" not in str(error.value)


@pytest.mark.parametrize(
    ("old", "new", "issue"),
    [
        ('hints = ["Estimate first."]', "hints = []", "needs at least 1 hint"),
        ('follow_ups = ["And at 10x?"]', "follow_ups = []", "needs at least 1 follow-up"),
        (
            'question = "Question 3?"',
            'question = "Question 3?"\n[[clarification]]\nquestion = "q"',
            None,
        ),
        (
            'strong = "strong tradeoffs"\nlevels = ' + LEVELS,
            'strong = "strong tradeoffs"\nlevels = ["1:", "2:", "3:", "4:"]',
            "rubric lacks anchored levels for: Trade-offs",
        ),
    ],
)
def test_the_design_checks_name_what_is_missing(
    tmp_path: Path, old: str, new: str, issue: str | None
) -> None:
    folder = make_design(tmp_path)
    assert old in TOML, old
    (folder / "problem.toml").write_text(TOML.replace(old, new, 1))
    if issue is None:  # a clarification without an answer is malformed, not a lint
        with pytest.raises(PackageError) as error:
            package_read(folder)
        assert error.value.field == "clarification[3].answer"
        return
    assert package_lint(package_read(folder)) == [issue]


def test_an_empty_design_lists_every_check(tmp_path: Path) -> None:
    folder = make_design(tmp_path, board=[])
    (folder / "problem.toml").write_text('slug = "design-x"\ntitle = "X"\nkind = "design"\n')
    (folder / "statement.md").write_text("  \n")
    (folder / "reference" / "design.md").write_text("")
    issues = package_lint(package_read(folder))
    assert issues == [
        "needs a statement",
        "needs a reference design text (reference/design.md)",
        "needs a reference board (reference/board.json)",
        "needs at least 4 clarifying questions",
        "needs at least 1 hint",
        "needs at least 1 follow-up",
        "rubric lacks anchored levels for: Requirements, Estimation, API and data model, "
        "Architecture, Scaling and bottlenecks, Failure modes, Trade-offs",
    ]


@pytest.mark.django_db
def test_the_database_round_trip_keeps_the_board_and_the_text(tmp_path: Path) -> None:
    package = package_read(make_design(tmp_path))
    problem, created = problem_load(package=package, publish=False)
    assert created and problem.kind == "design" and problem.reference_board == BOARD
    version = problem.live_version
    assert version is not None and version.reference_board == BOARD
    assert problem_to_package(problem=problem, version=version) == package
    # Unchanged: loading again makes no version; a board change is a new (live) version.
    assert problem_load(package=package)[1] is False
    moved = package_read(make_design(tmp_path / "b", board=[*BOARD[:1]]))
    problem, created = problem_load(package=moved)
    assert created and problem.reference_board == BOARD[:1]


BANK_DESIGNS = sorted(
    p.name
    for p in BANK_DIR.iterdir()
    if (p / "problem.toml").exists() and package_read(p).kind_spec.has_board
)


def test_the_bank_has_the_four_design_problems() -> None:
    assert BANK_DESIGNS == [
        "batch-inference-api",
        "gpu-cluster-scheduler",
        "kv-cache-aware-router",
        "llm-inference-gateway",
    ]


@pytest.mark.parametrize("slug", BANK_DESIGNS)
def test_each_bank_design_is_complete_and_specific(slug: str) -> None:
    package = package_read(BANK_DIR / slug)
    assert package_lint(package) == []
    assert {r.criterion for r in package.rubric} == set(DESIGN_CRITERIA)
    for criterion in package.rubric:  # anchored: four levels, each its own text
        assert [level[:2] for level in criterion.levels] == ["1:", "2:", "3:", "4:"]
        assert len(set(criterion.levels)) == 4 and len(criterion.strong) > 80
    # Scale figures to estimate from, and a reference that uses numbers.
    assert sum(ch.isdigit() for ch in package.statement_md) > 20
    for heading in ("Requirements", "Estimates", "Architecture", "Failure modes", "Tradeoffs"):
        assert f"## {heading}" in package.reference_code
    assert all(c.also and c.keywords for c in package.clarifications)
    kinds = {e["type"] for e in package.reference_board}
    assert {"rectangle", "arrow", "text"} <= kinds and len(package.reference_board) > 20


def test_the_committed_boards_are_the_generators_output() -> None:
    import runpy

    tool = runpy.run_path(str(BANK_DIR / "_tools" / "board.py"))
    targets = tool["targets"]()
    assert sorted(board.parent.parent.name for _, board in targets) == BANK_DESIGNS
    for layout, board in targets:
        assert board.read_text(encoding="utf-8") == tool["render"](layout), board


@pytest.mark.parametrize("slug", BANK_DESIGNS)
def test_the_generated_boards_bind_their_labels_and_arrows(slug: str) -> None:
    """Excalidraw 0.18's fields: bound texts point at their container and back, arrows at
    both boxes and back, fractional indices increase."""
    elements = package_read(BANK_DIR / slug).reference_board
    by_id = {e["id"]: e for e in elements}
    indices = [e["index"] for e in elements]
    assert indices == sorted(indices) and len(set(indices)) == len(indices)
    for element in elements:
        for key in (
            "version",
            "versionNonce",
            "seed",
            "isDeleted",
            "groupIds",
            "frameId",
            "boundElements",
            "updated",
            "link",
            "locked",
            "strokeColor",
            "opacity",
        ):
            assert key in element, (element["id"], key)
        if element["type"] == "text" and element.get("containerId"):
            container = by_id[element["containerId"]]
            assert {"type": "text", "id": element["id"]} in container["boundElements"]
        if element["type"] == "arrow":
            for end in ("startBinding", "endBinding"):
                box = by_id[element[end]["elementId"]]
                assert {"type": "arrow", "id": element["id"]} in box["boundElements"]


@pytest.mark.django_db
def test_loadproblems_loads_the_design_problems_with_a_line_each(tmp_path: Path) -> None:
    for slug in BANK_DESIGNS:
        shutil.copytree(BANK_DIR / slug, tmp_path / slug)
    out = StringIO()
    call_command("loadproblems", str(tmp_path), stdout=out)
    lines = out.getvalue().splitlines()
    assert lines == [
        f"{slug}: new version (live v1, design: nothing to grade)" for slug in BANK_DESIGNS
    ] + ["4 problem(s) loaded"]
