"""Everything visible (issue 28, point 3): one author's consecutive saves collapse into one
draft version; a published one is never rewritten; another author starts a new version; each
version's contents and its diff against any other are shown; a known-wrong solution's code is
viewable and editable in the code editor."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from django.utils import timezone

from problems.models import Problem, ProblemVersion
from problems.package import WrongSolution
from studio.models import VersionRevision
from studio.services.problems import wrong_solution_put
from studio.services.revisions import Revision, revision_state, version_revision
from studio.services.versions import problem_statement_update
from tests.factories import client_for, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db
collapsing = override_settings(ONSITE_STUDIO_COLLAPSE_SECONDS=600)


@pytest.fixture
def problem(alice: User) -> Problem:
    problem = tiny_problem(published=True)
    Problem.objects.filter(pk=problem.pk).update(owner=alice)
    problem.refresh_from_db()
    return problem


def save(problem: Problem, user: User, text: str) -> ProblemVersion:
    return problem_statement_update(problem=problem, statement_md=text, user=user)[0]


@collapsing
def test_one_authors_saves_collapse_into_one_draft_version(problem: Problem, alice: User) -> None:
    first = save(problem, alice, "# one")
    for text in ("# two", "# three", "# four"):
        assert save(problem, alice, text).pk == first.pk
    assert problem.versions.count() == 2  # the live v1 and one draft
    first.refresh_from_db()
    assert first.statement_md == "# four" and first.change_note == "statement"
    assert version_revision(first) == Revision(2, 3)
    # every earlier state is kept, so a tab still on one of them can be merged from it
    assert revision_state(problem, Revision(2, 0)).statement_md == "# one"
    assert revision_state(problem, Revision(2, 2)).statement_md == "# three"
    # the history lists one draft, saying how many saves it holds
    page = client_for(alice).get("/studio/add-one/").content.decode()
    assert '<span class="form-note saves">(4 saves)</span>' in page
    assert "less than 10 min apart go into one draft" in page


@collapsing
def test_the_published_version_is_never_rewritten(problem: Problem, alice: User) -> None:
    ProblemVersion.objects.filter(problem=problem).update(created_by=alice)
    save(problem, alice, "# one")
    assert problem.versions.count() == 2
    assert problem.versions.get(number=1).statement_md == "Return x + 1."


@collapsing
def test_another_author_starts_a_new_version(problem: Problem, alice: User) -> None:
    bob = user_with_role("bob", "author")
    problem.coauthors.add(bob)
    save(problem, alice, "# alice")
    assert save(problem, bob, "# bob").number == 3
    assert save(problem, alice, "# alice again").number == 4


@collapsing
def test_a_save_after_the_window_or_after_validation_starts_a_new_version(
    problem: Problem, alice: User
) -> None:
    draft = save(problem, alice, "# one")
    ProblemVersion.objects.filter(pk=draft.pk).update(
        created_at=timezone.now() - timedelta(minutes=11)
    )
    assert save(problem, alice, "# two").number == 3
    ProblemVersion.objects.filter(number=3, problem=problem).update(
        validation=ProblemVersion.Validation.PENDING
    )
    assert save(problem, alice, "# three").number == 4


@override_settings(ONSITE_STUDIO_COLLAPSE_SECONDS=0)
def test_a_window_of_zero_makes_every_save_a_version(problem: Problem, alice: User) -> None:
    save(problem, alice, "# one")
    save(problem, alice, "# two")
    assert problem.versions.count() == 3 and not VersionRevision.objects.exists()


# ---------------------------------------------------------------- contents and diffs


def test_a_version_page_shows_its_contents_and_a_diff_against_another(
    problem: Problem, alice: User
) -> None:
    save(problem, alice, "# Add one\n\nA revised statement.")
    client = client_for(alice)
    page = client.get("/studio/add-one/v2/").content.decode()
    # the contents: metadata and limits, statement, code, tests one per line
    for path in (
        "problem.toml",
        "statement.md",
        "reference.py",
        "tests/public.json",
        "tests/hidden.json",
    ):
        assert f'data-path="{path}"' in page
    assert "test_cpu_seconds = 2.0" in page and "&quot;name&quot;: &quot;public 0&quot;" in page
    # the diff against the one before, by default
    assert "Changes from v1 to v2" in page
    assert '<span class="diff-line diff-add">+A revised statement.</span>' in page
    assert '<option value="1" selected>v1</option>' in page
    # against nothing, and against junk: no diff, never a 500
    assert "Changes from" not in client.get("/studio/add-one/v2/?against=").content.decode()
    assert client.get("/studio/add-one/v2/?against=x%00").status_code in (200, 400)
    # the other way round
    back = client.get("/studio/add-one/v1/?against=2").content.decode()
    assert '<span class="diff-line diff-del">-A revised statement.</span>' in back


def test_a_wrong_solutions_code_is_shown_and_opens_in_the_code_editor(
    problem: Problem, alice: User
) -> None:
    code = "def solve(x):\n    return x  # MARK-WRONG-CODE\n"
    wrong_solution_put(
        problem=problem,
        user=alice,
        wrong=WrongSolution("wrong/same.py", "WA", "forgets to add", code),
    )
    client = client_for(alice)
    page = client.get("/studio/add-one/").content.decode()
    assert "MARK-WRONG-CODE" in page and 'href="?wrong=0#wrong-form"' in page
    editing = client.get("/studio/add-one/?wrong=0").content.decode()
    assert "Edit <code>wrong/same.py</code>" in editing
    assert 'value="wrong/same.py"' in editing and 'value="forgets to add"' in editing
    assert 'data-code="python"' in editing and "MARK-WRONG-CODE" in editing
    # an index that is not there is simply no edit
    assert client.get("/studio/add-one/?wrong=9").status_code == 200
