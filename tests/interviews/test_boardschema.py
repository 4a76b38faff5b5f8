"""The board's element schema (interviews/boardschema.py) on the shared vectors: each case of
tests/fixtures/board_elements.json gets the problem (or None) the fixture records. The JS twin
answers the same vectors in tests/frontend/test_board_schema.py."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from interviews import boardschema
from tests import boardvectors

DATA = boardvectors.load()


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["name"] for c in DATA["cases"]])
def test_each_shared_vector_gets_its_recorded_answer(case: dict[str, Any]) -> None:
    value = boardvectors.element(DATA, case)
    assert boardschema.element_problem(value, case["key"]) == case["problem"]
    assert boardschema.is_element(value, case["key"]) is case["valid"]


def test_the_vectors_cover_both_answers_and_the_issue_34_arrow() -> None:
    valid = [c for c in DATA["cases"] if c["valid"]]
    assert len(valid) >= 10 and len(DATA["cases"]) - len(valid) >= 40
    issue = next(c for c in DATA["cases"] if "issue 34" in c["name"])
    assert issue["problem"] == (
        'The board element "el" (arrow) cannot be drawn: points must '
        "be a list of at most 20000 [x, y] pairs of finite numbers."
    )


@settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(boardvectors.board_values())
def test_any_value_gets_an_answer_never_an_exception(item: tuple[str, Any]) -> None:
    key, value = item
    problem = boardschema.element_problem(value, key)
    assert problem is None or problem.startswith("The board element ")


def test_live_elements_and_drawing_order_are_decided_here() -> None:
    # The one rule the document's readers (interviews/collab.py) and the picture
    # (interviews/board.py) share: a tombstone or a non-object is not on the board.
    assert boardschema.is_live({"id": "a"}) and boardschema.is_live({"isDeleted": False})
    assert not boardschema.is_live({"id": "a", "isDeleted": True})
    assert not boardschema.is_live(["not", "an", "element"]) and not boardschema.is_live(None)
    elements = [{"id": "b", "index": "a1"}, {"id": "c"}, {"id": "a", "index": "a1"},
                {"id": "d", "index": "a0"}]
    assert [e["id"] for e in boardschema.drawing_order(elements)] == ["c", "d", "a", "b"]
