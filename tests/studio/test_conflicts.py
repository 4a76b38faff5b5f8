"""No lost work (issue 28, point 1): every studio save carries the state it was based on; a
save based on an older state than the newest is refused (409) with what changed since, the
author's values kept, and reapplying it lands both changes.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from problems.models import Problem
from problems.package import Limits
from problems.services import problem_to_package
from studio.services.conflicts import EditConflict, packages_merge
from studio.services.problems import problem_parts_update, wrong_solution_put
from studio.services.revisions import Revision, version_revision
from studio.services.testcases import test_edit as edit_test
from studio.services.versions import problem_statement_update, version_create
from tests.factories import client_for, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db

EXTRA = {"name": "bob's test", "input": {"args": [7]}, "expected": 8, "tag": "correctness"}
MINE = {"name": "alice's test", "input": {"args": [9]}, "expected": 10, "tag": "correctness"}


@pytest.fixture
def alice() -> User:
    return user_with_role("alice", "author")


@pytest.fixture
def bob(alice: User) -> User:
    return user_with_role("bob", "author")


@pytest.fixture
def problem(alice: User, bob: User) -> Problem:
    problem = tiny_problem(published=False)
    Problem.objects.filter(pk=problem.pk).update(owner=alice)
    problem.coauthors.add(bob)
    problem.refresh_from_db()
    return problem


def head_token(problem: Problem) -> str:
    return version_revision(problem.versions.order_by("-number").first()).token


def names(problem: Problem) -> list[str]:
    head = problem.versions.order_by("-number").first()
    return [t["name"] for t in head.public_tests]


def test_a_save_based_on_an_older_version_is_refused_with_what_changed(
    problem: Problem, alice: User, bob: User
) -> None:
    # given both authors' pages showed v1
    base = head_token(problem)
    # when bob adds a test, then alice (still on v1) adds hers
    edit_test(problem=problem, user=bob, op="add", test=EXTRA, based_on=base)
    with pytest.raises(EditConflict) as refused:
        edit_test(problem=problem, user=alice, op="add", test=MINE, based_on=base)
    # then hers is refused, nothing written, and the conflict shows bob's change as a diff
    assert problem.versions.count() == 2
    assert names(problem) == ["public 0", "public 1", "bob's test"]
    conflict = refused.value
    assert conflict.code == "conflict" and "bob" in conflict.message
    assert conflict.base == Revision(1, 0) and conflict.head_revision == Revision(2, 0)
    public = next(d for d in conflict.changes if d.path == "tests/public.json")
    assert any(line.kind == "add" and "bob's test" in line.text for line in public.lines)


def test_reapplying_onto_the_head_lands_both_changes(problem: Problem, alice: User,
                                                    bob: User) -> None:
    base = head_token(problem)
    edit_test(problem=problem, user=bob, op="add", test=EXTRA, based_on=base)
    onto = head_token(problem)
    version, created = edit_test(problem=problem, user=alice, op="add", test=MINE,
                                 based_on=base, onto=onto)
    assert created and version.number == 3
    assert names(problem) == ["public 0", "public 1", "bob's test", "alice's test"]


def test_reapplying_onto_a_head_that_moved_again_is_refused_again(
    problem: Problem, alice: User, bob: User
) -> None:
    base = head_token(problem)
    edit_test(problem=problem, user=bob, op="add", test=EXTRA, based_on=base)
    onto = head_token(problem)
    problem_statement_update(problem=problem, statement_md="# Bob again", user=bob)
    with pytest.raises(EditConflict):
        edit_test(problem=problem, user=alice, op="add", test=MINE, based_on=base, onto=onto)


def test_a_stale_bulk_json_save_keeps_the_other_authors_test(
    problem: Problem, alice: User, bob: User
) -> None:
    """The reported lost update: a stale tab's whole test list used to delete bob's test."""
    base_version = problem.versions.get(number=1)
    base = head_token(problem)
    edit_test(problem=problem, user=bob, op="add", test=EXTRA, based_on=base)
    # alice's tab (on v1) renames public 1 in the JSON editor and saves the whole list
    public = [dict(t) for t in base_version.public_tests]
    public[1]["name"] = "public one"
    hidden = json.dumps(base_version.hidden_tests)
    with pytest.raises(EditConflict):
        version_create(problem=problem, public_json=json.dumps(public), hidden_json=hidden,
                       user=alice, based_on=base)
    assert "bob's test" in names(problem)
    version_create(problem=problem, public_json=json.dumps(public), hidden_json=hidden,
                   user=alice, based_on=base, onto=head_token(problem))
    assert names(problem) == ["public 0", "public one", "bob's test"]


def test_every_kind_of_save_checks_its_base(problem: Problem, alice: User, bob: User) -> None:
    from problems.package import WrongSolution

    base = head_token(problem)
    problem_statement_update(problem=problem, statement_md="# Bob's statement", user=bob,
                             based_on=base)
    package = problem_to_package(problem=problem, version=problem.versions.get(number=1))
    saves = [
        lambda: problem_statement_update(problem=problem, statement_md="# Mine", user=alice,
                                         based_on=base),
        lambda: problem_parts_update(problem=problem, user=alice,
                                     parts={"hints": ("a hint",)}, based_on=base),
        lambda: wrong_solution_put(problem=problem, user=alice, based_on=base,
                                   wrong=WrongSolution("wrong/w.py", "WA", "off", "x = 1\n")),
        lambda: version_create(problem=problem, limits={"memory_mb": 512}, user=alice,
                               based_on=base),
        lambda: edit_test(problem=problem, user=alice, op="delete", index=0, based_on=base),
    ]
    for save in saves:
        with pytest.raises(EditConflict):
            save()
    assert problem.versions.count() == 2
    assert package.statement_md != "# Bob's statement"


def test_the_merge_keeps_what_only_the_head_changed_and_takes_mine() -> None:
    problem = tiny_problem(published=False)
    base = problem_to_package(problem=problem)
    from dataclasses import replace

    head = replace(base, statement_md="theirs", limits=replace(base.limits, memory_mb=512),
                   public_tests=base.public_tests[:1])  # they deleted public 1
    mine = replace(base, hints=("mine",), limits=replace(base.limits, test_cpu_seconds=3.0))
    merged = packages_merge(base, mine, head)
    assert merged.statement_md == "theirs" and merged.hints == ("mine",)
    assert merged.limits == Limits(test_cpu_seconds=3.0, memory_mb=512)
    assert [t.name for t in merged.public_tests] == ["public 0"]


# ---------------------------------------------------------------- the pages


def test_the_page_refuses_a_stale_save_with_409_and_keeps_the_values(
    problem: Problem, alice: User, bob: User
) -> None:
    base = head_token(problem)
    bob_page, alice_page = client_for(bob), client_for(alice)
    form = {"name": MINE["name"], "visibility": "public", "tag": "correctness", "group": "",
            "compare": "", "input": '{"args": [9]}', "expected": "10", "seed": "1"}
    assert bob_page.post("/studio/add-one/test/", form | {"name": EXTRA["name"],
                                                          "base": base}).status_code == 302
    response = alice_page.post("/studio/add-one/test/", form | {"base": base})
    assert response.status_code == 409
    page = response.content.decode()
    assert 'id="conflict"' in page and "bob" in page and "bob&#x27;s test" in page
    assert 'name="onto" value="2.0"' in page  # the reapply button
    assert 'value="alice&#x27;s test"' in page  # her values are still in the form
    assert f'name="base" value="{base}"' in page  # and the base she started from
    # when she reapplies
    again = alice_page.post("/studio/add-one/test/", form | {"base": base, "onto": "2.0"})
    assert again.status_code == 302
    assert names(problem) == ["public 0", "public 1", "bob's test", "alice's test"]


def test_a_stale_row_action_offers_its_own_reapply_form(problem: Problem, alice: User,
                                                       bob: User) -> None:
    base = head_token(problem)
    client_for(bob).post("/studio/add-one/statement/", {"statement_md": "# Bob", "base": base})
    alice_page = client_for(alice)
    response = alice_page.post("/studio/add-one/test/public/0/delete/", {"base": base})
    assert response.status_code == 409
    assert 'action="/studio/add-one/test/public/0/delete/"' in response.content.decode()
    assert alice_page.post("/studio/add-one/test/public/0/delete/",
                           {"base": base, "onto": "2.0"}).status_code == 302
    head = problem.versions.order_by("-number").first()
    assert head.statement_md == "# Bob" and names(problem) == ["public 1"]


@pytest.mark.parametrize("base", ["", "junk", "9.9", "1." + "9" * 30])
def test_a_base_that_names_no_kept_state_is_a_conflict_never_a_500(
    problem: Problem, alice: User, base: str
) -> None:
    response = client_for(alice).post("/studio/add-one/statement/",
                                      {"statement_md": "# Mine", "base": base})
    assert response.status_code == 409
    assert problem.versions.count() == 1


@override_settings(ONSITE_STUDIO_COLLAPSE_SECONDS=600)
def test_a_tab_on_a_rewritten_state_is_refused_and_merged_from_that_state(
    problem: Problem, alice: User
) -> None:
    """One author, two tabs: tab A's saves collapse into one draft; tab B, on the draft's
    first state, is still refused, and its reapply keeps what tab A saved."""
    first = edit_test(problem=problem, user=alice, op="add", test=EXTRA)[0]
    tab_b = head_token(problem)
    edit_test(problem=problem, user=alice, op="add", test=MINE, based_on=tab_b)  # tab A
    assert problem.versions.count() == 2 and head_token(problem) == f"{first.number}.1"
    third = dict(MINE, name="third")
    with pytest.raises(EditConflict) as refused:
        edit_test(problem=problem, user=alice, op="add", test=third, based_on=tab_b)
    assert refused.value.base_known
    edit_test(problem=problem, user=alice, op="add", test=third, based_on=tab_b,
              onto=head_token(problem))
    assert names(problem) == ["public 0", "public 1", "bob's test", "alice's test", "third"]


STALE_FORMS = {
    "statement": ("/studio/add-one/statement/", {"statement_md": "# Mine"}),
    "tests": ("/studio/add-one/tests/", {
        "public_tests": json.dumps([MINE]), "hidden_tests": "[]",
        "test_wall_seconds": "2", "test_cpu_seconds": "2", "memory_mb": "256"}),
    "parts": ("/studio/add-one/parts/", {
        "starter_code": "def solve(x):\n    pass\n", "reference_code": "def solve(x):\n"
        "    return x + 1\n", "driver_code": "", "checker_code": "", "support_code": "",
        "hints": "mine", "follow_ups": "", "driver": "function", "entry": "solve",
        "compare": "exact", "title": "Add one", "difficulty": "medium", "queue": "cpu",
        "kind": "implement", "topics": "", "float_rel": "1e-6", "float_abs": "1e-9",
        "clarifications": "[]", "rubric": "[]"}),
    "wrong": ("/studio/add-one/wrong/", {
        "file": "wrong/mine.py", "verdict": "WA", "why": "MARK-MY-WHY", "groups": "",
        "says": "", "code": "def solve(x):\n    return x\n"}),
}


@pytest.mark.parametrize("form", sorted(STALE_FORMS))
def test_every_studio_form_shows_its_conflict_inside_itself(
    problem: Problem, alice: User, bob: User, form: str
) -> None:
    base = head_token(problem)
    edit_test(problem=problem, user=bob, op="add", test=EXTRA, based_on=base)
    url, data = STALE_FORMS[form]
    response = client_for(alice).post(url, data | {"base": base})
    assert response.status_code == 409
    page = response.content.decode()
    form_tag = page.index(f'action="{url}"')
    conflict = page.index('id="conflict"')
    assert form_tag < conflict < page.index("</form>", form_tag)
    assert problem.versions.count() == 2
    # reapplied, it lands on top of bob's test
    assert client_for(alice).post(url, data | {"base": base, "onto": "2.0"}).status_code == 302
    assert "bob's test" in names(problem)


def test_a_limit_applied_from_an_old_versions_page_keeps_what_was_saved_since(
    problem: Problem, alice: User, bob: User
) -> None:
    edit_test(problem=problem, user=bob, op="add", test=EXTRA)
    version, created = version_create(problem=problem, base=problem.versions.get(number=1),
                                      limits={"test_cpu_seconds": 3.0}, user=alice)
    assert created and version.number == 3
    assert version.limits["test_cpu_seconds"] == 3.0 and "bob's test" in names(problem)
