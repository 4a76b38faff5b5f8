"""Coverage maps: coverage.toml parsed into clauses, malformed maps refused with the file and
field named, and every bank problem mapping each clause of its statement to tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from problems.package import PackageError, package_read
from problems.package.coverage import COVERAGE_FILE, Clause, coverage_parse, coverage_read
from tests.problems.packages import BANK, make_package

NAMES = {"h0", "h1", "p0"}
GOOD = """
[[clause]]
id = "adds-one"
text = "Return x + 1."
tests = ["h0", "p0"]

[[clause]]
id = "negative-input"
text = "  x may be negative.  "
tests = ["h1"]
"""


def test_parses_clauses_in_order() -> None:
    clauses = coverage_parse(GOOD, path="coverage.toml", test_names=NAMES)
    assert clauses == (
        Clause("adds-one", "Return x + 1.", ("h0", "p0")),
        Clause("negative-input", "x may be negative.", ("h1",)),
    )


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("[[clause]\nid = 1", "file", "invalid TOML"),
        ("", "clause", "no clauses"),
        ("title = 'x'", "title", "unknown key"),
        ("clause = 3", "clause", "array of tables"),
        ('[[clause]]\ntext = "t"\ntests = ["h0"]', "clause[0].id", "missing"),
        ('[[clause]]\nid = "a"\ntests = ["h0"]', "clause[0].text", "missing"),
        ('[[clause]]\nid = "a"\ntext = "t"', "clause[0].tests", "missing"),
        ('[[clause]]\nid = "a"\ntext = "t"\ntests = []', "clause[0].tests", "names no test"),
        ('[[clause]]\nid = "a"\ntext = "t"\ntests = "h0"', "clause[0].tests", "list"),
        ('[[clause]]\nid = "a"\ntext = "t"\ntests = ["h9"]', "clause[0].tests", "'h9'"),
        ('[[clause]]\nid = "a"\ntext = " "\ntests = ["h0"]', "clause[0].text", "non-empty"),
        ('[[clause]]\nid = "Not OK"\ntext = "t"\ntests = ["h0"]', "clause[0].id", "kebab"),
        ('[[clause]]\nid = "a"\ntext = "t"\ntest = ["h0"]', "clause[0].test", "unknown key"),
        (
            GOOD + '[[clause]]\nid = "adds-one"\ntext = "t"\ntests = ["h1"]',
            "clause[2].id",
            "duplicate id 'adds-one'",
        ),
    ],
)
def test_malformed_map_names_file_and_field(text: str, field: str, words: str) -> None:
    with pytest.raises(PackageError) as error:
        coverage_parse(text, path="pkg/coverage.toml", test_names=NAMES)
    assert error.value.path == "pkg/coverage.toml"
    assert error.value.field == field
    assert words in error.value.problem


def test_a_map_is_optional_unless_required(tmp_path: Path) -> None:
    folder = make_package(tmp_path)
    assert coverage_read(folder, test_names=NAMES, required=False) == ()
    with pytest.raises(PackageError) as error:
        coverage_read(folder, test_names=NAMES, required=True)
    assert error.value.path.endswith(COVERAGE_FILE)
    assert error.value.field == "file"


def test_package_read_checks_a_map_it_finds(tmp_path: Path) -> None:
    """A draft may have no map, but one it has must name the package's own tests."""
    folder = make_package(tmp_path)
    (folder / COVERAGE_FILE).write_text(GOOD)
    package_read(folder)
    (folder / COVERAGE_FILE).write_text(GOOD.replace('"h1"', '"gone"'))
    with pytest.raises(PackageError) as error:
        package_read(folder)
    assert error.value.path.endswith(COVERAGE_FILE)
    assert (error.value.field, error.value.problem) == (
        "clause[1].tests",
        "'gone' is not a test of this package",
    )


@pytest.mark.parametrize(
    "folder",
    sorted(
        p
        for p in BANK.iterdir()
        # A design problem has no tests to map clauses to: its rubric's anchored design
        # criteria are checked instead (tests/problems/test_design.py).
        if (p / "problem.toml").exists() and package_read(p).kind_spec.runs_code
    )
    if BANK.exists()
    else [],
    ids=lambda p: p.name,
)
def test_every_bank_problem_maps_each_clause_to_tests(folder: Path) -> None:
    """Each bank problem has a coverage map, and each clause names at least one of its tests
    (a clause no test exercises fails here, as a missing known-wrong solution fails lint)."""
    package = package_read(folder)
    names = {t.name for t in package.public_tests + package.hidden_tests}
    clauses = coverage_read(folder, test_names=names, required=True)
    assert clauses and all(clause.tests for clause in clauses)


def test_an_uploaded_archive_gets_the_map_checked(tmp_path: Path) -> None:
    """A studio upload is read through package_read: a broken map in the zip is refused with
    the map's file and field named, as on disk."""
    import io
    import zipfile

    from problems.archive import package_unzip

    folder = make_package(tmp_path)
    (folder / COVERAGE_FILE).write_text(GOOD.replace('tests = ["h0", "p0"]', "tests = []"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            archive.write(path, (Path("tiny") / path.relative_to(folder)).as_posix())
    with pytest.raises(PackageError) as error:
        package_unzip(buffer.getvalue())
    assert error.value.path.endswith(COVERAGE_FILE)
    assert (error.value.field, error.value.problem) == (
        "clause[0].tests",
        "clause 'adds-one' names no test",
    )
