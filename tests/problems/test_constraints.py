"""Declared input constraints (issue 36.10): the declaration is checked, inputs are checked
against it with sentences naming the field and the bound, and the statement's Constraints list
is rendered from it. Pure: no database."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from problems import package as pkg
from problems.constraints import (
    ConstraintError,
    constraint_from_dict,
    constraints_from_list,
    constraints_markdown,
    input_violations,
    statement_with_constraints,
    violations_in_tests,
)
from problems.package import PackageError, package_read, package_write

DECLARED = constraints_from_list([
    {"name": "k", "type": "int", "min": 1, "max": 1000000},
    {"name": "values", "type": "list[int]", "min_length": 1, "max_length": 100000,
     "item_min": -1e9, "item_max": 1e9},
    {"name": "ops[][0]", "type": "str", "one_of": ["get", "put"], "optional": True},
    {"name": "generate.n", "type": "int", "max": 20000, "optional": True, "internal": True},
])  # fmt: skip


@pytest.mark.parametrize(
    ("test_input", "found"),
    [
        ({"k": 1, "values": [0]}, []),
        ({"k": 0, "values": [0]}, ["k = 0 is below the minimum 1"]),
        ({"k": 10**7, "values": [0]}, ["k = 10000000 is above the maximum 10^6"]),
        ({"k": True, "values": [0]}, ["k must be an integer, got True"]),
        ({"k": 1.5, "values": [0]}, ["k must be an integer, got 1.5"]),
        ({"values": [0]}, ["k is missing (declared int)"]),
        ({"k": 1, "values": []}, ["len(values) = 0 is below the minimum 1"]),
        ({"k": 1, "values": [1, -2000000000]},
         ["values[1] = -2000000000 is below the minimum -10^9"]),
        ({"k": 1, "values": [1, 2.5]}, ["values[1] must be an integer, got 2.5"]),
        ({"k": 1, "values": [1], "ops": [["get", 1], ["pop"]]},
         ["ops[1][0] = 'pop' is not one of 'get', 'put'"]),
        ({"k": 1, "values": [1], "generate": {"n": 30000}},
         ["generate.n = 30000 is above the maximum 2 * 10^4"]),
        (None, ["k is missing (declared int)", "values is missing (declared list[int])"]),
    ],
)  # fmt: skip
def test_an_input_is_checked_naming_the_field_and_the_bound(
    test_input: Any, found: list[str]
) -> None:
    assert input_violations(DECLARED, test_input) == found


def test_a_violation_names_the_test() -> None:
    tests = [pkg.TestCase("k zero", {"k": 0, "values": [1]}, None, "correctness", False)]
    assert violations_in_tests(DECLARED, tests) == ['test "k zero": k = 0 is below the minimum 1']


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ({"name": "k", "type": "integer"}, "type 'integer' is not one of"),
        ({"name": "k", "type": "int", "maxx": 3}, "unknown field 'maxx'"),
        ({"name": "a b", "type": "int"}, "is not a path"),
        ({"name": "[0]", "type": "int"}, "is not a path"),
        ({"name": "k", "type": "int", "min": 3, "max": 1}, "min 3 is above max 1"),
        ({"name": "k", "type": "str", "min": 1}, "min and max bound a number"),
        ({"name": "k", "type": "int", "max_length": 1}, "bound a size"),
        ({"name": "k", "type": "list", "item_max": 1}, "bound numbers in a list"),
        ({"name": "k", "type": "int", "max": float("inf")}, "must be finite"),
        ({"name": "k", "type": "int", "max": "ten"}, "must be a number"),
        ({"name": "k", "type": "list", "max_length": -1}, "whole number >= 0"),
    ],
)
def test_a_malformed_declaration_is_refused_by_field(raw: dict[str, Any], says: str) -> None:
    with pytest.raises(ConstraintError) as caught:
        constraint_from_dict(raw)
    assert says in str(caught.value)


def test_the_constraints_list_is_rendered_without_internal_ones() -> None:
    assert constraints_markdown(DECLARED) == (
        "* `1 <= k <= 10^6` (integers).\n"
        "* `1 <= len(values) <= 10^5`, `-10^9 <= values[j] <= 10^9` (integers).\n"
        "* `ops[i][0]` is one of `get`, `put`."
    )
    titled = constraints_from_list(
        [{"name": "init[0]", "type": "int", "min": 0, "max": 20000, "title": "capacity",
          "note": "Zero is allowed."}]
    )  # fmt: skip
    assert constraints_markdown(titled) == (
        "* `0 <= capacity <= 2 * 10^4` (integers). Zero is allowed."
    )


def test_the_statement_gets_its_constraints_section_from_the_declaration() -> None:
    statement = "# T\n\nBody.\n\n## Constraints\n\n* O(n log n).\n\n## Grading\n\nExact.\n"
    assert statement_with_constraints(statement, DECLARED[:1]) == (
        "# T\n\nBody.\n\n## Constraints\n\n* `1 <= k <= 10^6` (integers).\n* O(n log n).\n\n"
        "## Grading\n\nExact.\n"
    )
    assert statement_with_constraints("# T\n", DECLARED[:1]) == (
        "# T\n\n## Constraints\n\n* `1 <= k <= 10^6` (integers).\n"
    )
    assert statement_with_constraints(statement, ()) == statement


def test_a_package_round_trips_its_constraints_and_refuses_a_test_breaking_them(
    tmp_path: Path,
) -> None:
    bank = Path(__file__).resolve().parents[2] / "problems" / "bank"
    package = package_read(bank / "lpt-makespan")
    assert package.constraints
    again = package_read(package_write(package, tmp_path / "a"))
    assert again.constraints == package.constraints and again.tests_hash == package.tests_hash
    bad = pkg.TestCase("no machines", {"durations": [1], "m": 0}, [[], 1], "edge_cases", True)
    folder = package_write(
        replace(package, hidden_tests=(*package.hidden_tests, bad)), tmp_path / "b"
    )
    with pytest.raises(PackageError) as caught:
        package_read(folder)
    assert caught.value.field == "input"
    assert caught.value.problem == 'test "no machines": m = 0 is below the minimum 1'


def test_a_strict_minimum_is_checked_and_rendered() -> None:
    [capacity] = constraints_from_list([
        {"name": "init[0]", "type": "number", "min": 0, "min_exclusive": True, "max": 1e9,
         "title": "capacity"},
    ])  # fmt: skip
    assert input_violations([capacity], {"init": [0]}) == ["init[0] = 0 is not above 0"]
    assert input_violations([capacity], {"init": [0.5]}) == []
    assert constraints_markdown([capacity]) == "* `0 < capacity <= 10^9`."
    with pytest.raises(ConstraintError, match="min_exclusive needs a min"):
        constraint_from_dict({"name": "k", "type": "int", "min_exclusive": True})
