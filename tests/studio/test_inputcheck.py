"""Inputs checked when saved (issue 28, point 5): a test input that does not fit the driver's
entry is refused at the test, for the single-test form and for the bulk JSON (naming the
test); nothing is saved."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from problems.models import Problem
from studio.services.inputcheck import input_problem
from tests.factories import client_for, tiny_problem, user_with_role

FUNCTION = {"kind": "function", "entry": "solve"}
OPS = {"kind": "ops", "entry": "Bucket"}
TYPED = "def solve(nums: list[int], k: int = 1, *, scale: float = 1.0):\n    return nums\n"
CLASS = """class Bucket:
    def __init__(self, capacity: int):
        self.capacity = capacity

    def take(self, now: float, n: int = 1) -> bool:
        return True
"""


@pytest.mark.parametrize(
    ("test_input", "says"),
    [
        ({"args": [[1, 2]]}, ""),
        ({"args": [[1], 2], "kwargs": {"scale": 2}}, ""),
        ({"args": []}, "needs argument 'nums'"),
        ({"args": [[1], 2, 3]}, "takes 2 positional argument(s), the input gives 3"),
        ({"args": ["abc"]}, "argument 'nums' must be a list, got a string"),
        ({"args": [[1], True]}, "argument 'k' must be an integer, got true/false"),
        ({"args": [[1]], "kwargs": {"size": 1}}, "has no argument 'size'"),
        ([1, 2], 'input is {"args": [...], "kwargs": {...}}'),
    ],
)
def test_a_function_input_is_bound_to_the_entry_signature(test_input: object, says: str) -> None:
    problem = input_problem(driver=FUNCTION, reference_code=TYPED, test_input=test_input)
    assert (says in problem) if says else problem == "", problem


@pytest.mark.parametrize(
    ("test_input", "says"),
    [
        ({"init": [3], "ops": [["take", 0.5], ["take", 1, 2]]}, ""),
        ({"init": [], "ops": []}, "needs argument 'capacity'"),
        ({"init": [3], "ops": [["refill", 1]]}, "op #0: Bucket has no method 'refill'"),
        ({"init": [3], "ops": [["take", 1], ["take"]]}, "op #1: take() needs argument 'now'"),
        ({"init": [3], "ops": [["take", "soon"]]}, "'now' must be a number, got a string"),
        ({"init": [3], "ops": ["take"]}, "op #0 must be a list starting with a method name"),
    ],
)
def test_an_ops_input_is_checked_against_the_class(test_input: object, says: str) -> None:
    problem = input_problem(driver=OPS, reference_code=CLASS, test_input=test_input)
    assert (says in problem) if says else problem == "", problem


def test_a_custom_driver_defines_its_own_input() -> None:
    custom = {"kind": "custom", "entry": ""}
    assert input_problem(driver=custom, reference_code=TYPED, test_input={"n": 7}) == ""


@pytest.fixture
def writer(db: None) -> User:
    return user_with_role("writer", "author")


@pytest.fixture
def problem(writer: User) -> Problem:
    problem = tiny_problem(published=False)  # solve(x): one argument
    problem.owner = writer
    problem.save()
    return problem


def test_the_test_form_puts_the_error_on_the_input(problem: Problem, writer: User) -> None:
    data = {"name": "two args", "visibility": "hidden", "tag": "edge_cases", "compare": "",
            "input": '{"args": [1, 2]}', "expected": "3"}  # fmt: skip
    response = client_for(writer).post("/studio/add-one/test/", data)
    assert response.status_code == 400
    form = response.context["test_form"]
    assert form.errors["input"] == [
        "does not fit the driver: solve() takes 1 positional argument(s), the input gives 2"
    ]
    assert problem.versions.count() == 1


def test_the_bulk_json_names_the_test_that_does_not_fit(problem: Problem, writer: User) -> None:
    live = problem.versions.get()
    hidden = [*live.hidden_tests, {"name": "no args", "input": {"args": []}, "expected": 1,
                                   "tag": "correctness"}]  # fmt: skip
    client: Client = client_for(writer)
    response = client.post("/studio/add-one/tests/", {
        "public_tests": json.dumps(live.public_tests), "hidden_tests": json.dumps(hidden),
        **live.limits,
    })  # fmt: skip
    assert response.status_code == 400
    errors = response.context["tests_form"].errors
    assert errors["hidden_tests"] == [
        "does not fit the driver: test \"no args\" (#3): solve() needs argument 'x', "
        "the input does not give it"
    ]
    assert "public_tests" not in errors and problem.versions.count() == 1
