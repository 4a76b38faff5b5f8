"""Inputs checked when saved, for custom drivers (issue 28, point 5): a driver.py that defines
`check_input` has it run in the real sandbox on every input a save adds or changes, and its
sentence is shown at the test; nothing is saved while any input is refused."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import override_settings

from grading.sandboxing import sandbox_image
from problems.archive import package_zip
from problems.management.commands import loadproblems
from problems.models import Problem
from problems.package import package_read
from problems.services import BANK_DIR
from studio.services.errors import ProblemActionError
from studio.services.inputcheck import InputsMismatch, input_key, package_inputs_check
from studio.services.packages import problem_import_zip
from tests.factories import client_for

pytestmark = [pytest.mark.django_db, pytest.mark.docker]

RUN = "def run(solution, inp):\n    return solution.solve(*inp['args'])\n"
CHECKED = (
    RUN
    + """

def check_input(inp):
    if not isinstance(inp, dict) or not isinstance(inp.get("args"), list) or len(inp["args"]) != 1:
        return 'the input is {"args": [x]}'
    if not isinstance(inp["args"][0], int) or isinstance(inp["args"][0], bool):
        return "x must be an integer"
    return None
"""
)
CRASHING = RUN + "\n\ndef check_input(inp):\n    return 1 // 0\n"
ODD_RETURN = RUN + "\n\ndef check_input(inp):\n    return 42\n"


def _custom(problem: Problem, driver_code: str) -> Problem:
    """The fixture's draft problem graded by a custom driver (its tests' inputs fit CHECKED)."""
    problem.versions.update(driver={"kind": "custom", "entry": ""}, driver_code=driver_code)
    return problem


def _add(writer: User, test_input: str) -> tuple[int, dict[str, list[str]]]:
    data = {"name": "new one", "visibility": "hidden", "tag": "edge_cases", "compare": "",
            "input": test_input, "expected": "3"}  # fmt: skip
    response = client_for(writer).post("/studio/add-one/test/", data)
    errors = response.context["test_form"].errors if response.status_code == 400 else {}
    return response.status_code, errors


def test_a_malformed_input_gets_the_drivers_sentence_and_nothing_is_saved(
    problem: Problem, writer: User
) -> None:
    _custom(problem, CHECKED)
    status, errors = _add(writer, '{"args": ["two"]}')
    assert status == 400
    assert errors["input"] == ["does not fit the driver: x must be an integer"]
    assert problem.versions.count() == 1


def test_a_well_formed_input_saves(problem: Problem, writer: User) -> None:
    _custom(problem, CHECKED)
    status, _ = _add(writer, '{"args": [2]}')
    assert status == 302
    assert problem.versions.count() == 2


def test_the_bulk_lists_name_each_refused_test_and_keep_the_authors_text(
    problem: Problem, writer: User
) -> None:
    live = _custom(problem, CHECKED).versions.get()
    hidden = [
        *live.hidden_tests,
        {"name": "floaty", "input": {"args": [1.5]}, "expected": 2, "tag": "correctness"},
        {"name": "fine", "input": {"args": [7]}, "expected": 8, "tag": "correctness"},
        {"name": "two", "input": {"args": [1, 2]}, "expected": 2, "tag": "correctness"},
    ]
    posted = json.dumps(hidden)
    response = client_for(writer).post("/studio/add-one/tests/", {
        "public_tests": json.dumps(live.public_tests), "hidden_tests": posted, **live.limits,
    })  # fmt: skip
    assert response.status_code == 400
    form = response.context["tests_form"]
    assert form.errors["hidden_tests"] == [
        'does not fit the driver: test "floaty" (#3): x must be an integer',
        'does not fit the driver: test "two" (#5): the input is {"args": [x]}',
    ]
    assert form.data["hidden_tests"] == posted  # the author's values are kept
    assert problem.versions.count() == 1


def test_a_crashing_check_is_the_authors_bug_shown_at_the_test(
    problem: Problem, writer: User
) -> None:
    _custom(problem, CRASHING)
    status, errors = _add(writer, '{"args": [2]}')
    assert status == 400
    [message] = errors["input"]
    assert "crashed in check_input" in message and "ZeroDivisionError" in message
    assert problem.versions.count() == 1


def test_a_check_returning_neither_a_sentence_nor_none_is_refused(
    problem: Problem, writer: User
) -> None:
    _custom(problem, ODD_RETURN)
    status, errors = _add(writer, '{"args": [2]}')
    assert status == 400
    assert errors["input"] == [
        "does not fit the driver: the driver's check_input returned int instead of a sentence "
        "or None"
    ]


def test_a_driver_without_a_check_keeps_json_alone(problem: Problem, writer: User) -> None:
    _custom(problem, RUN)
    status, _ = _add(writer, '{"anything": ["goes"]}')
    assert status == 302
    assert problem.versions.count() == 2


def _bank_copy(tmp_path: Path, slug: str, bad_input: object) -> Path:
    """A copy of a bank package whose first hidden test has `bad_input`, without its declared
    constraints (problems.constraints would refuse the input before the driver is asked: here
    the driver's own check is what is tested)."""
    folder = tmp_path / slug
    shutil.copytree(BANK_DIR / slug, folder)
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().split("\n# The input's bounds", 1)[0] + "\n")
    path = folder / "tests" / "hidden.json"
    tests = json.loads(path.read_text())
    tests[0]["input"] = bad_input
    path.write_text(json.dumps(tests))
    return folder


BANK_CUSTOM = [
    pytest.param(
        folder,
        marks=[pytest.mark.slow, *([pytest.mark.gpu_image] if package.queue == "gpu" else [])],
        id=folder.name,
    )
    for folder in sorted(p for p in BANK_DIR.iterdir() if (p / "problem.toml").exists())
    if (package := package_read(folder)).grading.driver == "custom" and package.kind_spec.runs_code
]


@pytest.mark.parametrize("folder", BANK_CUSTOM)
def test_the_bank_inputs_all_pass_their_drivers_check_in_the_sandbox(folder: Path) -> None:
    package_inputs_check(package_read(folder))  # every input, in one container


def test_an_upload_with_a_refused_input_imports_nothing(tmp_path: Path, writer: User) -> None:
    bad = {"sizes": [1, "x"], "capacity": 10}
    package = package_read(_bank_copy(tmp_path, "gpu-bin-packing", bad))
    with pytest.raises(ProblemActionError) as refused:
        problem_import_zip(data=package_zip(package), user=writer)
    assert '"sizes" #1 must be an integer' in refused.value.message
    assert not Problem.objects.filter(slug="gpu-bin-packing").exists()


def test_loadproblems_refuses_a_package_whose_input_its_driver_refuses(tmp_path: Path) -> None:
    folder = _bank_copy(tmp_path, "gpu-bin-packing", {"sizes": [3], "capacity": 0})
    with pytest.raises(CommandError, match='"capacity" must be at least 1'):
        call_command("loadproblems", str(folder))
    assert not Problem.objects.filter(slug="gpu-bin-packing").exists()


def test_only_new_or_changed_inputs_are_checked_again() -> None:
    package = package_read(BANK_DIR / "gpu-bin-packing")
    broken = replace(package, constraints=(), hidden_tests=(
        replace(package.hidden_tests[0], input={"sizes": [1], "capacity": -1}),
        *package.hidden_tests[1:],
    ))  # fmt: skip
    with pytest.raises(InputsMismatch) as refused:
        package_inputs_check(broken)
    assert list(refused.value.problems) == ["hidden_tests"]
    known = {input_key(t.input) for t in broken.hidden_tests}
    package_inputs_check(broken, checked=known)  # already checked: no new verdict asked for


def test_a_sandbox_that_does_not_run_refuses_the_save_with_a_form_error(
    problem: Problem, writer: User
) -> None:
    _custom(problem, CHECKED)
    sandbox_image.cache_clear()
    try:
        with override_settings(ONSITE_SANDBOX_IMAGE_CPU="onsite-sandbox:no-such-image"):
            status, errors = _add(writer, '{"args": [2]}')
    finally:
        sandbox_image.cache_clear()
    assert status == 400
    [message] = errors["input"]
    assert message.startswith("the inputs could not be checked by the driver's check_input")
    assert problem.versions.count() == 1  # never a silent pass


def test_the_shipped_bank_is_loaded_without_a_container_unless_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[bool] = []

    def load(*, root: Path, publish: bool, check: bool) -> list[Any]:
        asked.append(check)
        return []

    monkeypatch.setattr(loadproblems, "problem_load_folder", load)
    call_command("loadproblems")
    call_command("loadproblems", "--input-check")
    call_command("loadproblems", str(BANK_DIR / "token-bucket"))
    assert asked == [False, True, True]
