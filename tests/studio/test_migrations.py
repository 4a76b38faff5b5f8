"""An existing database migrates across the move of regrade previews into `studio` without
losing a row.

`legacy_db_de5dd69.sql` is a SQLite database at the migration head of commit de5dd69 (before
the move), filled with a user, a problem and its version, a submission and its test result, a
regrade preview with one item, and an interview session. The test restores it, runs the real
`migrate`, and reads every row back, the previews through the studio's models.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DUMP = Path(__file__).with_name("legacy_db_de5dd69.sql")
TABLES = (
    "auth_user",
    "problems_problem",
    "problems_problemversion",
    "grading_submission",
    "grading_testresult",
    "problems_regrade",
    "problems_regradeitem",
    "interviews_interviewsession",
)
READ_BACK = """
import json
from grading.models import Submission
from problems.models import CONTENT_FIELDS, Problem, ProblemVersion
from studio.models import Regrade, RegradeItem
item = RegradeItem.objects.select_related("regrade__version__problem", "submission").get()
version = ProblemVersion.objects.select_related("problem").get()
print(json.dumps({
    "content_copied": all(
        getattr(version, name) == getattr(version.problem, name) for name in CONTENT_FIELDS
    ) and bool(version.statement_md),
    "regrades": Regrade.objects.count(),
    "item": [item.old_verdict, item.new_verdict, item.regrade.version.problem.slug,
             item.submission.code],
    "problems": Problem.objects.count(),
    "submissions": Submission.objects.count(),
}))
"""


def _counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        return {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


def _manage(db: Path, *args: str) -> str:
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{db}", DJANGO_SETTINGS_MODULE="config.settings")
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_a_database_from_before_the_move_migrates_and_keeps_every_row(tmp_path: Path) -> None:
    db = tmp_path / "legacy.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.executescript(DUMP.read_text(encoding="utf-8"))
    before = _counts(db)
    assert all(before.values()), before  # every table holds a row to lose

    _manage(db, "migrate", "--noinput", "-v", "0")

    assert _counts(db) == before
    with sqlite3.connect(db) as conn:
        applied = {r[0] for r in conn.execute("SELECT app FROM django_migrations")}
    assert "studio" in applied
    read = json.loads(_manage(db, "shell", "-c", READ_BACK).strip().splitlines()[-1])
    assert read == {
        "content_copied": True,  # each version got its problem's statement, starter...
        "regrades": 1,
        "item": ["WA", "AC", "token-bucket", "print(1)"],
        "problems": 1,
        "submissions": 1,
    }


@pytest.mark.slow
def test_a_new_database_gets_the_moved_tables(tmp_path: Path) -> None:
    db = tmp_path / "new.sqlite3"
    _manage(db, "migrate", "--noinput", "-v", "0")
    with sqlite3.connect(db) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"problems_regrade", "problems_regradeitem"} <= tables
