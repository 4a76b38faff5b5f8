"""`manage.py grade`: the synchronous interface outside checks rely on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from problems.package import package_read
from tests.processes import ROOT, platform_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.docker]


def grade(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "grade", *args],
        cwd=ROOT,
        env=platform_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def loaded_token_bucket() -> Path:
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "loadproblems",
            str(ROOT / "problems" / "bank" / "token-bucket"),
        ],
        cwd=ROOT,
        env=platform_env(),
        check=True,
        capture_output=True,
    )
    return ROOT / "problems" / "bank" / "token-bucket"


def test_reference_gets_ac_as_one_json_object(loaded_token_bucket: Path) -> None:
    result = grade(
        "token-bucket", str(loaded_token_bucket / "reference.py"), "--mode", "submit", "--json"
    )
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert set(body) == {
        "verdict",
        "passed",
        "total",
        "score",
        "by_tag",
        "by_group",
        "by_rule",
        "rules_line",
        "verdict_text",
        "tests",
    }
    assert body["verdict"] == "AC" and body["passed"] == body["total"] >= 15
    assert set(body["tests"][0]) == {"name", "verdict", "time_ms", "cpu_ms"}
    # Per-category counts add up to the total; every category's worst verdict is AC.
    assert sum(tag["total"] for tag in body["by_tag"].values()) == body["total"]
    assert {tag["worst"] for tag in body["by_tag"].values()} == {"AC"}


def test_json_names_the_worst_verdict_of_each_category(loaded_token_bucket: Path) -> None:
    wrong = loaded_token_bucket / "wrong" / "starts_empty.py"
    result = grade("token-bucket", str(wrong), "--mode", "submit", "--json")
    assert result.returncode == 0, result.stderr
    by_tag = json.loads(result.stdout)["by_tag"]
    failing = {name: tag for name, tag in by_tag.items() if tag["passed"] < tag["total"]}
    assert failing and {tag["worst"] for tag in failing.values()} == {"WA"}
    assert set(next(iter(by_tag.values()))) == {"passed", "total", "worst"}


def test_run_mode_grades_only_public_tests(loaded_token_bucket: Path) -> None:
    result = grade(
        "token-bucket", str(loaded_token_bucket / "starter.py"), "--mode", "run", "--json"
    )
    assert result.returncode == 0
    body = json.loads(result.stdout)
    public = package_read(loaded_token_bucket).public_tests
    assert body["verdict"] != "AC" and body["total"] == len(public)


def test_unknown_problem_and_bad_usage_exit_2_with_one_line(tmp_path: Path) -> None:
    solution = tmp_path / "s.py"
    solution.write_text("x = 1\n")
    unknown = grade("no-such-problem", str(solution), "--json")
    assert unknown.returncode == 2
    assert unknown.stderr.strip().count("\n") == 0 and "unknown problem" in unknown.stderr
    bad_mode = grade("token-bucket", str(solution), "--mode", "fly")
    assert bad_mode.returncode == 2
    missing_file = grade("token-bucket", str(tmp_path / "nope.py"))
    assert missing_file.returncode == 2
