"""Structured editors (issue 28.7): clarifications and rubric edited as rows, parsed by the
server into the stored structure; the JSON stays available (its box ticked, or posted alone
by an old client); a bad row is refused on its field."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from problems.models import Problem
from problems.services import problem_to_package
from studio.forms import PartsForm
from tests.factories import client_for

pytestmark = pytest.mark.django_db


def _form_data(problem: Problem) -> dict[str, Any]:
    initial = PartsForm.initial_from(
        problem_to_package(problem=problem, version=problem.versions.get())
    )
    return {k: v for k, v in initial.items() if v is not None}


def _newest(problem: Problem) -> Any:
    return problem.versions.order_by("-number")[0]


ROWS = {
    "clar-0-question": "Can x be negative?", "clar-0-answer": "Yes.", "clar-0-key": "on",
    "clar-1-question": "", "clar-1-answer": "",  # the blank row offered for adding
    "clar-2-question": "Big x?", "clar-2-answer": "Up to 10**9.",
    "rub-0-criterion": "correctness", "rub-0-weight": "3", "rub-0-strong": "handles all x",
    "rub-0-level-1": "wrong", "rub-0-level-2": "some", "rub-0-level-3": "most",
    "rub-0-level-4": "all",
}  # fmt: skip


def test_rows_are_saved_as_the_stored_structure(problem: Problem, writer: User) -> None:
    client = client_for(writer)
    page = client.get("/studio/add-one/").content.decode()
    assert 'name="clar-0-question"' in page and 'data-row-add="rub"' in page
    assert 'src="/static/studio/rows.js"' in page
    response = client.post("/studio/add-one/parts/", _form_data(problem) | ROWS)
    assert response.status_code == 302, response.content.decode()[-3000:]
    version = _newest(problem)
    assert version.clarifications == [
        {"question": "Can x be negative?", "answer": "Yes.", "key": True},
        {"question": "Big x?", "answer": "Up to 10**9.", "key": False},
    ]
    assert version.rubric == [{"criterion": "correctness", "weight": 3.0,
                               "strong": "handles all x",
                               "levels": ["wrong", "some", "most", "all"]}]  # fmt: skip
    page = client.get("/studio/add-one/").content.decode()
    assert 'value="Up to 10**9."' not in page and "Up to 10**9.</textarea>" in page


def test_a_half_row_is_refused_on_its_field(problem: Problem, writer: User) -> None:
    data = _form_data(problem) | {"clar-0-question": "Only a question", "clar-0-answer": ""}
    response = client_for(writer).post("/studio/add-one/parts/", data)
    assert response.status_code == 400
    assert response.context["parts_form"].errors["clarifications"] == [
        "clarification row 1 needs both a question and an answer"
    ]
    assert "Only a question</textarea>" in response.content.decode()  # the rows come back
    assert problem.versions.count() == 1


def test_the_json_view_wins_when_its_box_is_ticked(problem: Problem, writer: User) -> None:
    data = (
        _form_data(problem)
        | ROWS
        | {
            "clarifications_as_json": "on",
            "clarifications": '[{"question": "From JSON?", "answer": "Yes", "key": false}]',
        }
    )
    assert client_for(writer).post("/studio/add-one/parts/", data).status_code == 302
    version = _newest(problem)
    assert [c["question"] for c in version.clarifications] == ["From JSON?"]
    assert version.rubric[0]["criterion"] == "correctness"  # its rows, box not ticked


def test_a_rows_other_phrasings_and_keywords_survive_an_edit(
    problem: Problem, writer: User
) -> None:
    # The solo matcher's optional fields (interviews/matching.py) are edited in the row, so
    # saving the rows never drops what a package declared.
    client = client_for(writer)
    rows = ROWS | {"clar-0-also": "Is a negative x allowed?\n\nMay x be below zero?",
                   "clar-0-keywords": "negative, sign"}  # fmt: skip
    response = client.post("/studio/add-one/parts/", _form_data(problem) | rows)
    assert response.status_code == 302, response.content.decode()[-3000:]
    assert _newest(problem).clarifications[0] == {
        "question": "Can x be negative?", "answer": "Yes.", "key": True,
        "also": ["Is a negative x allowed?", "May x be below zero?"],
        "keywords": ["negative", "sign"],
    }  # fmt: skip
    page = client.get("/studio/add-one/").content.decode()
    assert "Is a negative x allowed?\nMay x be below zero?</textarea>" in page
    assert 'value="negative, sign"' in page


def test_hints_are_rows_in_unlock_order_and_the_text_view_stays(
    problem: Problem, writer: User
) -> None:
    client = client_for(writer)
    rows = ROWS | {"hint-0-text": "Think of a counter.", "hint-1-text": "",
                   "hint-2-text": "Refill\nlazily."}  # fmt: skip
    response = client.post("/studio/add-one/parts/", _form_data(problem) | rows)
    assert response.status_code == 302, response.content.decode()[-3000:]
    assert _newest(problem).hints == ["Think of a counter.", "Refill lazily."]
    page = client.get("/studio/add-one/").content.decode()
    assert 'name="hint-1-text" value="Refill lazily."' in page and 'name="hint-2-text"' in page
    # The text view, ticked, is what is saved (an author pasting many at once).
    text = {"hints_as_text": "on", "hints": "One.\nTwo.\nThree."}
    newest = PartsForm.initial_from(problem_to_package(problem=problem, version=_newest(problem)))
    data = {k: v for k, v in newest.items() if v is not None} | ROWS | rows | text
    response = client.post("/studio/add-one/parts/", data)
    assert response.status_code == 302
    assert _newest(problem).hints == ["One.", "Two.", "Three."]
