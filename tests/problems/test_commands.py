"""loadproblems (idempotent, all-or-nothing) and exportproblem (round trip)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from problems.models import Problem, ProblemVersion
from problems.package import package_read
from problems.services import BANK_DIR

pytestmark = pytest.mark.django_db

SAMPLE = ["token-bucket", "lru-cache"]


def copy_bank(dest: Path, slugs: list[str]) -> Path:
    for slug in slugs:
        shutil.copytree(BANK_DIR / slug, dest / slug)
    return dest


def test_loading_twice_changes_nothing(tmp_path: Path) -> None:
    bank = copy_bank(tmp_path, SAMPLE)
    call_command("loadproblems", str(bank))
    versions = list(ProblemVersion.objects.values_list("pk", flat=True))
    call_command("loadproblems", str(bank))
    assert list(ProblemVersion.objects.values_list("pk", flat=True)) == versions
    assert set(Problem.objects.values_list("slug", flat=True)) == set(SAMPLE)
    assert Problem.objects.filter(published=True).count() == 2


def test_changed_hidden_tests_make_a_new_version_but_keep_the_live_one(tmp_path: Path) -> None:
    bank = copy_bank(tmp_path, ["token-bucket"])
    call_command("loadproblems", str(bank))
    hidden = bank / "token-bucket" / "tests" / "hidden.json"
    tests = json.loads(hidden.read_text())
    # A new test (renaming one would leave the package's coverage map naming a missing test).
    tests.append(dict(tests[0], name="copy of " + tests[0]["name"]))
    hidden.write_text(json.dumps(tests))
    call_command("loadproblems", str(bank))
    problem = Problem.objects.get(slug="token-bucket")
    assert problem.versions.count() == 2
    assert problem.live_version is not None and problem.live_version.number == 1


def test_a_changed_statement_is_a_new_version_that_goes_live_with_it(tmp_path: Path) -> None:
    bank = copy_bank(tmp_path, ["token-bucket"])
    call_command("loadproblems", str(bank))
    statement = bank / "token-bucket" / "statement.md"
    statement.write_text(statement.read_text() + "\nA fixed typo.\n")
    call_command("loadproblems", str(bank))
    problem = Problem.objects.get(slug="token-bucket")
    assert problem.versions.count() == 2
    assert problem.live_version is not None and problem.live_version.number == 2
    assert problem.live_version.statement_md == problem.statement_md
    assert problem.statement_md.endswith("A fixed typo.\n")


def test_a_malformed_package_loads_nothing_at_all(tmp_path: Path) -> None:
    bank = copy_bank(tmp_path, SAMPLE)
    (bank / "lru-cache" / "tests" / "public.json").write_text("[{]")
    with pytest.raises(CommandError, match=r"lru-cache/tests/public\.json: file: invalid JSON"):
        call_command("loadproblems", str(bank))
    assert not Problem.objects.exists()


def test_export_round_trips_the_package(tmp_path: Path) -> None:
    call_command("loadproblems", str(BANK_DIR / "token-bucket"))
    call_command("exportproblem", "token-bucket", str(tmp_path))
    assert package_read(tmp_path / "token-bucket") == package_read(BANK_DIR / "token-bucket")


def test_unknown_path_and_unknown_slug_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        call_command("loadproblems", str(tmp_path / "nope"))
    with pytest.raises(CommandError, match="unknown problem"):
        call_command("exportproblem", "nope", str(tmp_path))


@pytest.mark.parametrize(
    ("file", "old", "new", "says"),
    [
        (
            "problem.toml",
            "memory_mb = 256",
            'memory_mb = "lots"',
            "lru-cache/problem.toml: limits.memory_mb: must be an integer, got str 'lots'",
        ),
        (
            "problem.toml",
            "test_wall_seconds = 2.0",
            'test_wall_seconds = "fast"',
            "lru-cache/problem.toml: limits.test_wall_seconds: must be a number",
        ),
        (
            "problem.toml",
            'compare = "',
            'float_rel = "close"\ncompare = "',
            "lru-cache/problem.toml: grading.float_rel: must be a number, got str 'close'",
        ),
        ("problem.toml", "[grading]", "[grading", "lru-cache/problem.toml: file: invalid TOML"),
        ("statement.md", None, None, "lru-cache/statement.md: file: missing"),
    ],
)
def test_a_malformed_field_is_a_message_naming_file_and_field(
    tmp_path: Path, file: str, old: str | None, new: str | None, says: str
) -> None:
    # given a bank whose lru-cache has one malformed field (or a missing file)
    bank = copy_bank(tmp_path, SAMPLE)
    target = bank / "lru-cache" / file
    if old is None:
        target.unlink()
    else:
        text = target.read_text()
        assert old in text
        target.write_text(text.replace(old, new or "", 1))
    # when it is loaded, then a CommandError (printed as a line, no traceback) names both
    with pytest.raises(CommandError) as error:
        call_command("loadproblems", str(bank))
    assert says in str(error.value)
    assert str(tmp_path) not in str(error.value)
    assert error.value.__cause__ is None and error.value.__suppress_context__
    assert not Problem.objects.exists()


def test_a_file_that_is_not_a_folder_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(CommandError, match="not a folder"):
        call_command("loadproblems", str(tmp_path / "notes.txt"))
