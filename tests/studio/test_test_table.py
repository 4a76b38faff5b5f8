"""Tests as a table: add, edit, duplicate, delete, move between public and hidden, tag, group,
compare override, JSON checked per field, and the expected output filled from the reference."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from problems.models import Problem, ProblemVersion
from tests.factories import user_with_role
from tests.studio.versions import mark_validated

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(writer: User) -> Client:
    client = Client()
    client.force_login(writer)
    return client


def newest(problem: Problem) -> Any:
    return problem.versions.order_by("-number").first()


def form_data(**changes: str) -> dict[str, str]:
    return {
        "name": "seven",
        "visibility": "hidden",
        "tag": "edge_cases",
        "group": "big",
        "compare": "",
        "input": '{"args": [7]}',
        "expected": "8",
    } | changes


def test_the_table_lists_every_test_with_its_actions(problem: Problem, client: Client) -> None:
    page = client.get("/studio/add-one/").content.decode()
    assert page.count('data-where="public"') == 2 and page.count('data-where="hidden"') == 3
    assert 'href="?edit=hidden:2#test-form"' in page
    assert 'action="/studio/add-one/test/public/0/duplicate/"' in page
    assert 'action="/studio/add-one/test/hidden/1/delete/"' in page


def test_adding_a_test_makes_a_draft_with_tag_group_and_compare(
    problem: Problem, client: Client, writer: User
) -> None:
    response = client.post("/studio/add-one/test/", form_data(compare="float"))
    assert response.status_code == 302
    version = newest(problem)
    assert version.number == 2 and version.validation == "draft"
    assert version.created_by == writer and version.change_note == "hidden tests +1"
    assert version.hidden_tests[-1] == {
        "name": "seven",
        "input": {"args": [7]},
        "expected": 8,
        "tag": "edge_cases",
        "group": "big",
        "compare": "float",
    }
    problem.refresh_from_db()
    assert problem.live_version is not None and problem.live_version.number == 1


def test_editing_fills_the_form_and_saves_in_place_or_moves(
    problem: Problem, client: Client
) -> None:
    page = client.get("/studio/add-one/?edit=hidden:1").content.decode()
    assert "Edit hidden test #1" in page and "secret 1" in page
    response = client.post(
        "/studio/add-one/test/",
        form_data(name="secret 1", expected="102", where="hidden", index="1", group=""),
    )
    assert response.status_code == 302
    assert newest(problem).hidden_tests[1]["expected"] == 102
    assert "group" not in newest(problem).hidden_tests[1]
    # moved to public
    client.post(
        "/studio/add-one/test/",
        form_data(
            name="secret 1", visibility="public", where="hidden", index="1", tag="correctness"
        ),
    )
    version = newest(problem)
    assert [t["name"] for t in version.public_tests][-1] == "secret 1"
    assert "secret 1" not in [t["name"] for t in version.hidden_tests]


def test_duplicate_and_delete(problem: Problem, client: Client) -> None:
    client.post("/studio/add-one/test/public/0/duplicate/")
    names = [t["name"] for t in newest(problem).public_tests]
    assert names == ["public 0", "public 0 (2)", "public 1"]
    client.post("/studio/add-one/test/public/0/duplicate/")
    assert [t["name"] for t in newest(problem).public_tests][1] == "public 0 (3)"
    client.post("/studio/add-one/test/hidden/0/delete/")
    assert [t["name"] for t in newest(problem).hidden_tests] == ["secret 1", "secret 2"]
    assert client.post("/studio/add-one/test/hidden/9/delete/", follow=True).status_code == 200
    assert client.post("/studio/add-one/test/hidden/0/explode/").status_code == 404


@pytest.mark.parametrize(
    ("changes", "field_error"),
    [
        ({"input": "{nope"}, "the input is not valid JSON"),
        ({"expected": "[1,"}, "the expected output is not valid JSON"),
        ({"expected": ""}, "give the expected output, or fill it from the reference"),
        ({"name": "public 0"}, "duplicate"),
        ({"tag": "vibes"}, "Select a valid choice"),
    ],
)
def test_a_bad_test_is_refused_on_its_field_and_nothing_is_saved(
    problem: Problem, client: Client, changes: dict[str, str], field_error: str
) -> None:
    response = client.post("/studio/add-one/test/", form_data(**changes))
    assert response.status_code == 400
    assert field_error in response.content.decode().replace("&#x27;", "'")
    assert problem.versions.count() == 1


def test_the_last_public_test_cannot_be_deleted(problem: Problem, client: Client) -> None:
    client.post("/studio/add-one/test/public/0/delete/")
    response = client.post("/studio/add-one/test/public/0/delete/", follow=True)
    assert "needs at least 1" in response.content.decode()
    assert len(newest(problem).public_tests) == 1


def test_readers_cannot_change_tests(problem: Problem) -> None:
    other = Client()
    other.force_login(user_with_role("other", "author"))
    assert other.post("/studio/add-one/test/", form_data()).status_code == 403
    assert other.post("/studio/add-one/test/public/0/delete/").status_code == 403
    assert problem.versions.count() == 1


@pytest.mark.docker
def test_expected_is_filled_from_the_reference_in_the_sandbox(
    problem: Problem, client: Client
) -> None:
    # Issue 28.4 and 34.6: only a reference that passes the tests writes expected outputs;
    # without a validation, it is graded alone on them first (test_expected_fill.py).
    mark_validated(newest(problem))
    response = client.post(
        "/studio/add-one/test/", form_data(input='{"args": [41]}', expected="", fill_expected="on")
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert newest(problem).hidden_tests[-1]["expected"] == 42


BIG_REFERENCE = "def solve(x):\n    return list(range(x))\n"


@pytest.mark.docker
def test_a_big_expected_output_is_filled_whole_and_shown_truncated_with_a_download(
    problem: Problem, client: Client
) -> None:
    ProblemVersion.objects.filter(problem=problem).update(reference_code=BIG_REFERENCE)
    mark_validated(newest(problem))
    response = client.post(
        "/studio/add-one/test/",
        form_data(name="big", input='{"args": [5000]}', expected="", fill_expected="on"),
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    version = newest(problem)
    assert version.hidden_tests[-1]["expected"] == list(range(5000))  # > 4,000 characters
    page = client.get("/studio/add-one/").content.decode()
    index = len(version.hidden_tests) - 1
    link = f"/studio/add-one/v{version.number}/test/hidden/{index}/expected.json"
    assert f'href="{link}"' in page
    download = client.get(link)
    assert download.status_code == 200 and download["Content-Disposition"].startswith("attach")
    assert json.loads(download.content) == list(range(5000))
