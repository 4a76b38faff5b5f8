"""Problem packages: reading, refusing malformed ones with a precise error, round-tripping."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from problems.package import PackageError, package_lint, package_read, package_write

BANK = Path(__file__).resolve().parents[2] / "problems" / "bank"
TOML = """
slug = "tiny"
title = "Tiny"
difficulty = "easy"
hints = ["one", "two"]

[grading]
driver = "function"
entry = "solve"
compare = "exact"

[[wrong]]
file = "wrong/off_by_one.py"
verdict = "WA"
why = "adds two"
groups = ["small"]
says = "expected"

[[clarification]]
question = "Negative numbers?"
answer = "Yes."
key = true

[[rubric]]
criterion = "correctness"
weight = 2
strong = "adds one"
levels = ["a", "b", "c", "d"]
"""


def make_package(root: Path) -> Path:
    folder = root / "tiny"
    (folder / "tests").mkdir(parents=True)
    (folder / "wrong").mkdir()
    (folder / "problem.toml").write_text(TOML)
    (folder / "statement.md").write_text("# Tiny\nReturn x + 1.")
    (folder / "starter.py").write_text("def solve(x):\n    raise NotImplementedError\n")
    (folder / "reference.py").write_text("def solve(x):\n    return x + 1\n")
    (folder / "wrong" / "off_by_one.py").write_text("def solve(x):\n    return x + 2\n")
    public = [{"name": f"p{i}", "input": {"args": [i]}, "expected": i + 1} for i in range(3)]
    hidden = [
        {"name": f"h{i}", "input": {"args": [i]}, "expected": i + 1, "tag": "edge_cases"}
        for i in range(2)
    ]
    (folder / "tests" / "public.json").write_text(json.dumps(public))
    (folder / "tests" / "hidden.json").write_text(json.dumps(hidden))
    return folder


def test_reads_a_well_formed_package(tmp_path: Path) -> None:
    package = package_read(make_package(tmp_path))
    assert package.slug == "tiny"
    assert [t.name for t in package.public_tests] == ["p0", "p1", "p2"]
    assert all(t.hidden for t in package.hidden_tests)
    assert package.wrong[0].verdict == "WA"
    assert (package.wrong[0].groups, package.wrong[0].says) == (("small",), "expected")
    assert "needs at least 12 hidden tests" in package_lint(package)


@pytest.mark.parametrize(
    ("mutate", "file", "field"),
    [
        (
            lambda f: (f / "problem.toml").write_text(TOML.replace('"Tiny"', "3")),
            "problem.toml",
            "title",
        ),
        (lambda f: (f / "problem.toml").write_text("slug = [\n"), "problem.toml", "file"),
        (
            lambda f: (f / "tests" / "hidden.json").write_text(
                '[{"name": "h", "input": 1, "expected": 2}]'
            ),
            "hidden.json",
            "[0].tag",
        ),
        (lambda f: (f / "tests" / "public.json").write_text("{not json"), "public.json", "file"),
        (lambda f: (f / "reference.py").unlink(), "reference.py", "file"),
        (lambda f: (f / "reference.py").write_text("def solve(:\n"), "reference.py", "line 1"),
        (lambda f: (f / "wrong" / "off_by_one.py").unlink(), "off_by_one.py", "file"),
        (
            lambda f: (f / "problem.toml").write_text(TOML.replace('"function"', '"magic"')),
            "problem.toml",
            "grading.driver",
        ),
        (
            lambda f: (f / "problem.toml").write_text(
                TOML.replace('verdict = "WA"', 'verdict = "AC"')
            ),
            "problem.toml",
            "wrong[0].verdict",
        ),
        (
            lambda f: (f / "problem.toml").write_text(
                TOML.replace('groups = ["small"]', "groups = [3]")
            ),
            "problem.toml",
            "wrong[0].groups",
        ),
        (
            lambda f: (f / "problem.toml").write_text(TOML.replace('"tiny"', '"other"')),
            "problem.toml",
            "slug",
        ),
    ],
)
def test_malformed_package_names_file_and_field(
    tmp_path: Path, mutate, file: str, field: str
) -> None:
    folder = make_package(tmp_path)
    mutate(folder)
    with pytest.raises(PackageError) as error:
        package_read(folder)
    assert error.value.path.endswith(file)
    assert error.value.field == field


def test_write_then_read_is_the_same_package(tmp_path: Path) -> None:
    original = package_read(make_package(tmp_path / "in"))
    folder = package_write(original, tmp_path / "out")
    again = package_read(folder)
    assert again == original
    assert again.tests_hash == original.tests_hash


@pytest.mark.parametrize(
    "folder",
    sorted(p for p in BANK.iterdir() if (p / "problem.toml").exists()) if BANK.exists() else [],
    ids=lambda p: p.name,
)
def test_every_bank_package_is_well_formed_and_complete(folder: Path, tmp_path: Path) -> None:
    package = package_read(folder)
    assert package_lint(package) == []
    shutil.rmtree(tmp_path)
    assert package_read(package_write(package, tmp_path)) == package
