"""Every studio edit is a draft version: candidates keep the published content (the problem's
copy of its live version) until the draft is validated and made live.

An author edits the statement, starter, hints and rubric of a published problem; the
candidate's problem page, its hints, a new session and the session's JSON state still show the
old content; the draft validates for real in the sandbox and goes live; then they show the new
one. The history names who changed what.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from interviews.selectors import interviewer_panel
from interviews.services import session_code, session_schedule_live, session_start_solo
from problems.models import Problem, ProblemVersion
from studio.services.errors import ProblemActionError
from studio.services.publishing import version_make_live
from studio.services.validations import version_validate
from tests.factories import client_for, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db

NEW_STATEMENT = "# Add one, revised\n\nReturn `x + 1` for any integer x."
NEW_STARTER = "def solve(x):\n    # revised starter\n    pass\n"
NEW_HINT = "A revised hint: add one."
RUBRIC = json.dumps(
    [
        {
            "criterion": "edge_cases",
            "weight": 1,
            "strong": "names negatives",
            "levels": ["none", "some", "most", "all"],
        }
    ]
)


@pytest.fixture
def problem(writer: User) -> Problem:
    problem = tiny_problem(published=True)
    Problem.objects.filter(pk=problem.pk).update(owner=writer, hints=["The old hint."])
    ProblemVersion.objects.filter(problem=problem).update(hints=["The old hint."])
    problem.refresh_from_db()
    return problem


def parts(**changes: str) -> dict[str, str]:
    return {
        "starter_code": "def solve(x):\n    pass\n",
        "reference_code": "def solve(x):\n    return x + 1\n",
        "driver_code": "",
        "checker_code": "",
        "support_code": "",
        "hints": "The old hint.",
        "follow_ups": "",
        "driver": "function",
        "entry": "solve",
        "compare": "exact",
        "title": "Add one",
        "difficulty": "medium",
        "queue": "cpu",
        "kind": "implement",
        "topics": "",
        "float_rel": "1e-6",
        "float_abs": "1e-9",
        "clarifications": "[]",
        "rubric": "[]",
    } | changes


def edit_everything(author: Client) -> None:
    """The author's three saves: the statement, then the code and prose parts, then the rubric."""
    assert (
        author.post("/studio/add-one/statement/", {"statement_md": NEW_STATEMENT}).status_code
        == 302
    )
    assert (
        author.post(
            "/studio/add-one/parts/", parts(starter_code=NEW_STARTER, hints=NEW_HINT)
        ).status_code
        == 302
    )
    assert (
        author.post(
            "/studio/add-one/parts/", parts(starter_code=NEW_STARTER, hints=NEW_HINT, rubric=RUBRIC)
        ).status_code
        == 302
    )


def what_candidates_see(candidate: User) -> dict[str, Any]:
    """The candidate's problem page and hint, a new solo session (its starter code, page and
    JSON state), and the private panel of an interviewer scheduling a new live session."""
    client = client_for(candidate)
    page = client.get("/problems/add-one/").content.decode()
    hint = client.get("/problems/add-one/hints/1/").content.decode()
    session = session_start_solo(
        candidate=candidate, problem_slug="add-one", duration=timedelta(minutes=45)
    )
    session_page = client.get(f"/sessions/{session.pk}/").content.decode()
    state = client.get(f"/sessions/{session.pk}/state").content.decode()
    interviewer = user_with_role(f"interviewer-{session.pk}", "interviewer")
    live = session_schedule_live(
        interviewer=interviewer, problem_slug="add-one", duration=timedelta(minutes=45)
    )
    panel = interviewer_panel(session=live, user=interviewer)
    return {
        "page": page,
        "hint": hint,
        "starter": session_code(session.pk),
        "session_page": session_page,
        "state": state,
        "rubric": panel["rubric"],
        "panel_hints": [h["text"] for h in panel["hints"]],
    }


def assert_old(seen: dict[str, Any]) -> None:
    assert "Return x + 1." in seen["page"] and "revised" not in seen["page"]
    assert "The old hint." in seen["hint"] and NEW_HINT not in seen["hint"]
    assert seen["starter"] == "def solve(x):\n    pass\n"
    assert "Return x + 1." in seen["session_page"] and "revised" not in seen["session_page"]
    assert "revised" not in seen["state"] and NEW_HINT not in seen["state"]
    assert seen["rubric"] == [] and seen["panel_hints"] == ["The old hint."]


def test_edits_to_a_published_problem_are_drafts_that_reach_nobody(
    problem: Problem, writer: User
) -> None:
    # given a published problem, when its owner edits the statement, starter, hints and rubric
    edit_everything(client_for(writer))
    # then each save is a draft version naming who changed what
    drafts = list(problem.versions.filter(number__gt=1).order_by("number"))
    assert [(v.number, v.validation, v.change_note) for v in drafts] == [
        (2, "draft", "statement"),
        (3, "draft", "starter; hints"),
        (4, "draft", "rubric"),
    ]
    assert {v.created_by for v in drafts} == {writer}
    assert drafts[-1].statement_md == NEW_STATEMENT and drafts[-1].hints == [NEW_HINT]
    # and candidates still get the published content everywhere
    problem.refresh_from_db()
    assert problem.live_version is not None and problem.live_version.number == 1
    assert_old(what_candidates_see(user_with_role("cand", "candidate")))
    # and a draft that has not passed validation cannot go live
    with pytest.raises(ProblemActionError, match=r"v4 has not passed validation \(draft\)"):
        version_make_live(version=drafts[-1])


def test_the_history_shows_who_changed_what(problem: Problem, writer: User) -> None:
    edit_everything(client_for(writer))
    page = client_for(writer).get("/studio/add-one/").content.decode()
    for note in ("statement", "starter; hints", "rubric"):
        assert f'<td class="change-note">{note}</td>' in page
    assert page.count('<td class="changed-by">writer</td>') == 3
    assert 'id="draft-note"' in page and "candidates still see v1" in page
    # the editors show the newest draft, not the published copy
    assert "revised starter" in page and NEW_HINT in page


def test_a_statement_posted_with_crlf_is_not_noted_again_by_the_next_edit(
    problem: Problem, writer: User
) -> None:
    author = client_for(writer)
    author.post("/studio/add-one/statement/", {"statement_md": "# Add one\r\n\r\nRevised.\r\n"})
    author.post("/studio/add-one/parts/", parts(hints=NEW_HINT))
    notes = list(problem.versions.order_by("number").values_list("change_note", flat=True))
    assert notes[1:] == ["statement", "hints"]
    assert problem.versions.get(number=3).statement_md == "# Add one\n\nRevised.\n"


@pytest.mark.docker
def test_a_validated_draft_made_live_reaches_candidates(problem: Problem, writer: User) -> None:
    author = client_for(writer)
    edit_everything(author)
    candidate = user_with_role("cand", "candidate")
    draft = problem.versions.get(number=4)
    # when the draft is validated for real (reference AC, starter not AC)
    assert author.post("/studio/add-one/v4/validate/").status_code == 302
    assert version_validate(version=draft) == "done"
    draft.refresh_from_db()
    assert draft.validation == "passed"
    assert_old(what_candidates_see(candidate))  # validated is not yet live
    # and made live from its page
    assert author.post("/studio/add-one/v4/live/").status_code == 302
    # then candidates get the new content everywhere
    problem.refresh_from_db()
    assert problem.live_version_id == draft.pk and problem.statement_md == NEW_STATEMENT
    seen = what_candidates_see(candidate)
    assert "Add one, revised" in seen["page"] and NEW_HINT in seen["hint"]
    assert seen["starter"] == NEW_STARTER
    assert "Add one, revised" in seen["session_page"]
    assert seen["rubric"][0]["strong"] == "names negatives"
    assert seen["panel_hints"] == [NEW_HINT]
