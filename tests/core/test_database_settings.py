"""The database connection's lifetime (issue 42.1): on SQLite a connection persists by default
(opening one cost several times what storing a keystroke does, and every store of an editor
paid it); elsewhere it is the deployment's choice, closed after each use unless it says."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.processes import ROOT

READ = (
    "import json, django; from django.conf import settings; django.setup(); "
    "db = settings.DATABASES['default']; print(json.dumps([db['ENGINE'], db['CONN_MAX_AGE']]))"
)


def conn_max_age(database_url: str, **extra: str) -> tuple[str, int | None]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_CONN_MAX_AGE"}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", DATABASE_URL=database_url, **extra)
    out = subprocess.run([sys.executable, "-c", READ], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout
    engine, age = json.loads(out.strip().splitlines()[-1])
    return engine, age


@pytest.mark.parametrize(
    ("url", "expected"),
    [("sqlite:////tmp/onsite-settings-test.sqlite3", 600),
     ("postgres://u:p@127.0.0.1:5432/x", 0)],
)
def test_sqlite_connections_persist_by_default_and_others_do_not(url: str, expected: int) -> None:
    assert conn_max_age(url)[1] == expected


def test_the_setting_still_decides_when_given() -> None:
    assert conn_max_age("sqlite:////tmp/x.sqlite3", DATABASE_CONN_MAX_AGE="0")[1] == 0
    assert conn_max_age("postgres://u:p@127.0.0.1:5432/x", DATABASE_CONN_MAX_AGE="60")[1] == 60
