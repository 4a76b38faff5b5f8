"""Tests obey their statement (issue 36.10): a test whose input breaks a declared constraint is
refused when saved, one at a time or in bulk, naming the test, the field and the bound (the
"k = 0 although the statement says k >= 1" case); nothing is saved."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User

from problems.models import Problem
from problems.services import problem_to_package, statement_shown
from tests.factories import client_for, tiny_problem, user_with_role

DECLARED = [{"name": "args[0]", "type": "int", "min": 1, "max": 1000}]


@pytest.fixture
def writer(db: None) -> User:
    return user_with_role("writer", "author")


@pytest.fixture
def problem(writer: User) -> Problem:
    problem = tiny_problem(published=False)  # solve(x); inputs 0, 1, 100..102
    problem.owner = writer
    problem.save()
    version = problem.live_version
    assert version is not None
    version.driver = {**version.driver, "constraints": DECLARED}
    version.public_tests = [
        dict(t, input={"args": [t["input"]["args"][0] + 1]}, expected=t["expected"] + 1)
        for t in version.public_tests
    ]
    version.save()
    return problem


def test_the_version_carries_its_declared_constraints(problem: Problem) -> None:
    package = problem_to_package(problem=problem)
    assert [c.as_dict() for c in package.constraints] == DECLARED
    shown = statement_shown(problem.statement_md, problem.live_version)
    assert shown.startswith("Return x + 1.") and "## Constraints" in shown
    assert "`1 <= args[0] <= 1000` (integers)." in shown


def test_a_test_breaking_a_constraint_is_refused_at_its_input(
    problem: Problem, writer: User
) -> None:
    data = {"name": "k zero", "visibility": "hidden", "tag": "edge_cases", "compare": "",
            "input": '{"args": [0]}', "expected": "1"}  # fmt: skip
    response = client_for(writer).post("/studio/add-one/test/", data)
    assert response.status_code == 400
    [error] = response.context["test_form"].errors["input"]
    assert error == "breaks the statement's constraints: args[0] = 0 is below the minimum 1"
    assert problem.versions.count() == 1


def test_the_bulk_json_names_the_test_and_the_bound(problem: Problem, writer: User) -> None:
    live = problem.versions.get()
    hidden = [*live.hidden_tests, {"name": "too big", "input": {"args": [5000]},
                                   "expected": 5001, "tag": "correctness"}]  # fmt: skip
    response = client_for(writer).post("/studio/add-one/tests/", {
        "public_tests": json.dumps(live.public_tests), "hidden_tests": json.dumps(hidden),
        **live.limits,
    })  # fmt: skip
    assert response.status_code == 400
    [error] = response.context["tests_form"].errors["hidden_tests"]
    assert 'test "too big": args[0] = 5000 is above the maximum 1000' in error, error
    assert problem.versions.count() == 1


def test_a_test_within_the_bounds_is_saved(problem: Problem, writer: User) -> None:
    data = {"name": "k one", "visibility": "hidden", "tag": "edge_cases", "compare": "",
            "input": '{"args": [1]}', "expected": "2"}  # fmt: skip
    response = client_for(writer).post("/studio/add-one/test/", data)
    assert response.status_code in (200, 302), response.content[:500]
    newest = problem.versions.order_by("-number").first()
    assert newest is not None and newest.number == 2
    assert newest.driver["constraints"] == DECLARED  # the declaration survives the edit


def test_a_generated_test_breaking_a_constraint_is_refused(problem: Problem, writer: User) -> None:
    """The generator's expansion is what is checked: `$int(0, 0)` always gives k = 0."""
    data = {"name": "generated", "visibility": "hidden", "tag": "performance", "compare": "",
            "input": json.dumps({"args": ["$int(0, 0)"]}), "generate": "on", "seed": "7",
            "expected": "1"}  # fmt: skip
    response = client_for(writer).post("/studio/add-one/test/", data)
    assert response.status_code == 400
    [error] = response.context["test_form"].errors["input"]
    assert error == "breaks the statement's constraints: args[0] = 0 is below the minimum 1"
    assert problem.versions.count() == 1
