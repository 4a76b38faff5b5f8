"""Seeded generator templates for big test inputs: deterministic, bounded, clear errors."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from studio.generators import MAX_GENERATED_ITEMS, GeneratorError, input_generate
from tests.factories import tiny_problem, user_with_role

TEMPLATE = {"args": ["$ints(1000, -5, 5)", "$float(0, 1)"], "mode": "$choices(3, a, b)"}


def test_the_same_template_and_seed_give_the_same_input() -> None:
    first = input_generate(TEMPLATE, seed=7)
    assert first == input_generate(TEMPLATE, seed=7)
    assert first != input_generate(TEMPLATE, seed=8)
    ints, number = first["args"]
    assert len(ints) == 1000 and all(-5 <= v <= 5 for v in ints)
    assert 0 <= number < 1 and set(first["mode"]) <= {"a", "b"}
    assert sorted(input_generate("$perm(50)", seed=3)) == list(range(50))
    assert input_generate("$sorted_ints(20, 0, 9)", seed=2) == sorted(
        input_generate("$sorted_ints(20, 0, 9)", seed=2)
    )
    assert input_generate({"plain": "$not a call", "n": 3}, seed=1) == {
        "plain": "$not a call",
        "n": 3,
    }


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("$nope(1)", "unknown generator"),
        ("$ints(3, 5, 1)", "is empty"),
        ("$ints(3, 1)", "takes 3 arguments"),
        ("$ints(x, 1, 2)", "is not a number"),
        ("$ints(1.5, 1, 2)", "whole number"),
        ("$ints(-1, 1, 2)", "cannot be negative"),
        (["$ints(600000, 0, 1)", "$ints(600000, 0, 1)"], f"more than {MAX_GENERATED_ITEMS}"),
    ],
)
def test_a_bad_template_is_a_clear_error(template: object, message: str) -> None:
    with pytest.raises(GeneratorError, match=message):
        input_generate(template, seed=1)


@pytest.mark.django_db
def test_the_test_form_stores_the_generated_input() -> None:
    writer: User = user_with_role("writer", "author")
    problem = tiny_problem(published=False)
    problem.owner = writer
    problem.save()
    client = Client()
    client.force_login(writer)
    data = {
        "name": "big",
        "visibility": "hidden",
        "tag": "performance",
        "group": "",
        "compare": "",
        "input": '{"args": ["$int(1, 9)"]}',
        "expected": "0",
        "generate": "on",
        "seed": "4",
    }
    assert client.post("/studio/add-one/test/", data).status_code == 302
    version = problem.versions.order_by("-number").first()
    assert version is not None
    assert version.hidden_tests[-1]["input"] == input_generate({"args": ["$int(1, 9)"]}, seed=4)
    bad = client.post("/studio/add-one/test/", data | {"name": "b2", "input": '"$ints(1)"'})
    assert bad.status_code == 400 and "generator: $ints takes 3" in bad.content.decode()
