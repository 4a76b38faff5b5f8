"""No lost work (issue 28.1, issue 34.5): every studio save carries the state it was based on.
A save based on an older state than the newest is merged three-way with what was saved since
(text line by line, tables row by row, records field by field) when the two touch different
places; where both changed the same place it is refused (409) with each place's two sides and
a choice, the author's values kept, and resolving it keeps every other change of both.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from problems.models import Problem, ProblemVersion
from problems.package import Limits
from problems.services import problem_to_package
from studio.services.conflicts import EditConflict, packages_merge
from studio.services.merges import Choice, packages_merge3
from studio.services.problems import problem_parts_update, wrong_solution_put
from studio.services.revisions import Revision, version_revision
from studio.services.testcases import test_edit as edit_test
from studio.services.versions import problem_statement_update, version_create
from tests.factories import client_for, tiny_problem
from tests.studio.versions import head

pytestmark = pytest.mark.django_db

EXTRA = {"name": "bob's test", "input": {"args": [7]}, "expected": 8, "tag": "correctness"}
MINE = {"name": "alice's test", "input": {"args": [9]}, "expected": 10, "tag": "correctness"}
STATEMENT = "# Add one\n\nReturn x + 1.\n\nInputs are integers.\n"


@pytest.fixture
def problem(alice: User, bob: User) -> Problem:
    problem = tiny_problem(published=False)
    Problem.objects.filter(pk=problem.pk).update(owner=alice)
    ProblemVersion.objects.filter(problem=problem).update(statement_md=STATEMENT)
    problem.coauthors.add(bob)
    problem.refresh_from_db()
    return problem


def head_token(problem: Problem) -> str:
    return version_revision(head(problem)).token


def names(problem: Problem) -> list[str]:
    return [t["name"] for t in head(problem).public_tests]


def test_a_stale_save_of_another_place_is_merged_with_what_was_saved_since(
    problem: Problem, alice: User, bob: User
) -> None:
    # given both authors' pages showed v1
    base = head_token(problem)
    # when bob adds a test, then alice (still on v1) adds hers
    edit_test(problem=problem, user=bob, op="add", test=EXTRA, based_on=base)
    version, created = edit_test(problem=problem, user=alice, op="add", test=MINE, based_on=base)
    # then both land: nothing to choose, nothing lost
    assert created and version.number == 3
    assert names(problem) == ["public 0", "public 1", "bob's test", "alice's test"]


def test_a_stale_save_of_the_same_place_is_refused_with_both_sides(
    problem: Problem, alice: User, bob: User
) -> None:
    base = head_token(problem)
    edit_test(
        problem=problem,
        user=bob,
        op="update",
        index=0,
        based_on=base,
        test={"name": "public 0", "input": {"args": [0]}, "expected": 100, "tag": "correctness"},
    )
    alice_row = {"name": "public 0", "input": {"args": [0]}, "expected": 200, "tag": "correctness"}
    with pytest.raises(EditConflict) as refused:
        edit_test(problem=problem, user=alice, op="update", index=0, test=alice_row, based_on=base)
    # nothing written; the conflict names the row with both sides, and bob's diff
    assert problem.versions.count() == 2 and head(problem).public_tests[0]["expected"] == 100
    conflict = refused.value
    assert conflict.code == "conflict" and "bob" in conflict.message
    assert conflict.base == Revision(1, 0) and conflict.head_revision == Revision(2, 0)
    [hunk] = conflict.hunks
    assert hunk.id == "public_tests:public 0" and hunk.where == "public test 'public 0'"
    assert '"expected": 200' in hunk.mine and '"expected": 100' in hunk.theirs
    public = next(d for d in conflict.changes if d.path == "tests/public.json")
    assert any(line.kind == "add" and "100" in line.text for line in public.lines)
    # resolved onto the head with "theirs", bob's row stays; with "mine", hers
    onto = head_token(problem)
    edit_test(
        problem=problem,
        user=alice,
        op="update",
        index=0,
        test=alice_row,
        based_on=base,
        onto=onto,
        choices={hunk.id: Choice("theirs")},
    )
    assert head(problem).public_tests[0]["expected"] == 100
    assert problem.versions.count() == 2  # nothing changed: bob's row was kept as it is


def test_resolving_onto_a_head_that_moved_again_is_refused_again(
    problem: Problem, alice: User, bob: User
) -> None:
    base = head_token(problem)
    problem_statement_update(
        problem=problem, statement_md=STATEMENT.replace("x + 1", "x+1"), user=bob, based_on=base
    )
    onto = head_token(problem)
    problem_statement_update(
        problem=problem, statement_md=STATEMENT.replace("x + 1", "x ⊕ 1"), user=bob
    )
    with pytest.raises(EditConflict):
        problem_statement_update(
            problem=problem,
            user=alice,
            based_on=base,
            onto=onto,
            statement_md=STATEMENT.replace("x + 1", "one more than x"),
        )


def test_reapplying_a_statement_keeps_the_other_authors_paragraph(
    problem: Problem, alice: User, bob: User
) -> None:
    """The reported loss: "reapply" replaced the whole file with the second author's text."""
    base = head_token(problem)
    # alice adds a paragraph at the end; bob, meanwhile, rewords the first line
    problem_statement_update(
        problem=problem,
        user=bob,
        based_on=base,
        statement_md=STATEMENT.replace("# Add one", "# Add one to x"),
    )
    mine = STATEMENT + "\nAlice's added paragraph.\n"
    version, created = problem_statement_update(
        problem=problem, user=alice, based_on=base, statement_md=mine
    )
    assert created
    assert version.statement_md == (
        "# Add one to x\n\nReturn x + 1.\n\nInputs are integers.\n\nAlice's added paragraph.\n"
    )
    # and when both change the same line, each side's other lines still stay
    base = head_token(problem)
    problem_statement_update(
        problem=problem,
        user=bob,
        based_on=base,
        statement_md=version.statement_md.replace("x + 1", "x+1") + "\nBob's note.\n",
    )
    theirs = head(problem).statement_md
    with pytest.raises(EditConflict) as refused:
        problem_statement_update(
            problem=problem,
            user=alice,
            based_on=base,
            statement_md=version.statement_md.replace("x + 1", "x plus 1").replace(
                "# Add one to x", "# Plus one"
            ),
        )
    [hunk] = refused.value.hunks
    assert hunk.editable and hunk.mine == "Return x plus 1.\n" and hunk.theirs == "Return x+1.\n"
    assert head(problem).statement_md == theirs  # nothing saved
    # "reapply my change" (mine where they overlap) keeps bob's note
    reapplied, _ = problem_statement_update(
        problem=problem,
        user=alice,
        based_on=base,
        onto=head_token(problem),
        statement_md=version.statement_md.replace("x + 1", "x plus 1").replace(
            "# Add one to x", "# Plus one"
        ),
    )
    assert reapplied.statement_md.startswith("# Plus one\n")
    assert "Return x plus 1.\n" in reapplied.statement_md
    assert reapplied.statement_md.endswith("Bob's note.\n")


def test_an_overlap_can_be_resolved_with_both_sides_edited(
    problem: Problem, alice: User, bob: User
) -> None:
    base = head_token(problem)
    problem_statement_update(
        problem=problem, user=bob, based_on=base, statement_md=STATEMENT.replace("x + 1", "x+1")
    )
    mine = STATEMENT.replace("x + 1", "x plus 1")
    with pytest.raises(EditConflict) as refused:
        problem_statement_update(problem=problem, user=alice, based_on=base, statement_md=mine)
    [hunk] = refused.value.hunks
    assert hunk.both == "Return x plus 1.\nReturn x+1.\n"
    saved, _ = problem_statement_update(
        problem=problem,
        user=alice,
        based_on=base,
        onto=head_token(problem),
        statement_md=mine,
        choices={hunk.id: Choice("edited", "Return x + 1 (x plus one).")},
    )
    assert saved.statement_md == STATEMENT.replace("x + 1.", "x + 1 (x plus one).")


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
    version_create(
        problem=problem,
        public_json=json.dumps(public),
        hidden_json=hidden,
        user=alice,
        based_on=base,
    )
    assert names(problem) == ["public 0", "public one", "bob's test"]


def test_every_kind_of_save_merges_from_its_base(problem: Problem, alice: User, bob: User) -> None:
    from problems.package import WrongSolution

    base = head_token(problem)
    bobs = STATEMENT.replace("# Add one", "# Bob's title")
    problem_statement_update(problem=problem, statement_md=bobs, user=bob, based_on=base)
    saves = [
        lambda: problem_statement_update(
            problem=problem, user=alice, based_on=base, statement_md=STATEMENT + "\nMine.\n"
        ),
        lambda: problem_parts_update(
            problem=problem, user=alice, parts={"hints": ("a hint",)}, based_on=base
        ),
        lambda: wrong_solution_put(
            problem=problem,
            user=alice,
            based_on=base,
            wrong=WrongSolution("wrong/w.py", "WA", "off", "x = 1\n"),
        ),
        lambda: version_create(
            problem=problem, limits={"memory_mb": 512}, user=alice, based_on=base
        ),
        lambda: edit_test(problem=problem, user=alice, op="delete", index=0, based_on=base),
    ]
    for save in saves:
        save()
    newest = head(problem)
    assert newest.statement_md == bobs + "\nMine.\n"
    assert newest.hints == ["a hint"] and newest.limits["memory_mb"] == 512
    assert [w["file"] for w in newest.wrong_solutions] == ["wrong/w.py"]
    assert names(problem) == ["public 1"]


def test_every_kind_of_save_refuses_an_overlap(problem: Problem, alice: User, bob: User) -> None:
    base = head_token(problem)
    problem_parts_update(
        problem=problem, user=bob, based_on=base, parts={"hints": ("bob's hint",), "title": "Bob's"}
    )
    version_create(problem=problem, limits={"memory_mb": 300}, user=bob, based_on=base)
    saves = {
        "title": lambda: problem_parts_update(
            problem=problem, user=alice, based_on=base, parts={"title": "Alice's"}
        ),
        "limits.memory_mb": lambda: version_create(
            problem=problem, limits={"memory_mb": 512}, user=alice, based_on=base
        ),
    }
    for hunk_id, save in saves.items():
        with pytest.raises(EditConflict) as refused:
            save()
        assert [h.id for h in refused.value.hunks] == [hunk_id]
    # two hints added on both sides are two rows: both kept
    problem_parts_update(
        problem=problem, user=alice, based_on=base, parts={"hints": ("alice's hint",)}
    )
    assert head(problem).hints == ["bob's hint", "alice's hint"]


def test_the_merge_keeps_what_only_the_head_changed_and_takes_mine() -> None:
    problem = tiny_problem(published=False)
    base = problem_to_package(problem=problem)
    head = replace(
        base,
        statement_md="theirs",
        limits=replace(base.limits, memory_mb=512),
        public_tests=base.public_tests[:1],
    )  # they deleted public 1
    mine = replace(base, hints=("mine",), limits=replace(base.limits, test_cpu_seconds=3.0))
    merged = packages_merge(base, mine, head)
    assert merged.statement_md == "theirs" and merged.hints == ("mine",)
    assert merged.limits == Limits(test_cpu_seconds=3.0, memory_mb=512)
    assert [t.name for t in merged.public_tests] == ["public 0"]


def test_a_row_deleted_on_one_side_and_edited_on_the_other_is_a_choice() -> None:
    problem = tiny_problem(published=False)
    base = problem_to_package(problem=problem)
    edited = replace(base.public_tests[1], expected=99)
    head = replace(base, public_tests=(base.public_tests[0], edited))
    mine = replace(base, public_tests=base.public_tests[:1])  # I deleted public 1
    refused = packages_merge3(base, mine, head)
    [hunk] = refused.unresolved
    assert hunk.mine == "(deleted)" and '"expected": 99' in hunk.theirs
    kept = packages_merge3(base, mine, head, choices={hunk.id: Choice("theirs")})
    assert not kept.unresolved and kept.package.public_tests == (base.public_tests[0], edited)
    gone = packages_merge3(base, mine, head, choices={hunk.id: Choice("mine")})
    assert gone.package.public_tests == base.public_tests[:1]


# ---------------------------------------------------------------- the pages


TEST_FORM = {
    "visibility": "public",
    "tag": "correctness",
    "group": "",
    "compare": "",
    "input": '{"args": [0]}',
    "seed": "1",
}


def test_the_page_merges_a_stale_save_and_says_with_whom(
    problem: Problem, alice: User, bob: User
) -> None:
    base = head_token(problem)
    form = TEST_FORM | {"input": '{"args": [9]}', "expected": "10"}
    assert (
        client_for(bob)
        .post("/studio/add-one/test/", form | {"name": EXTRA["name"], "base": base})
        .status_code
        == 302
    )
    response = client_for(alice).post(
        "/studio/add-one/test/", form | {"name": MINE["name"], "base": base}, follow=True
    )
    assert "Merged with bob&#x27;s changes (v2): both are kept." in response.content.decode()
    assert names(problem) == ["public 0", "public 1", "bob's test", "alice's test"]


def test_the_page_shows_an_overlap_side_by_side_and_keeps_the_values(
    problem: Problem, alice: User, bob: User
) -> None:
    base = head_token(problem)
    edit = TEST_FORM | {"name": "public 0", "where": "public", "index": "0"}
    assert (
        client_for(bob)
        .post("/studio/add-one/test/", edit | {"expected": "100", "base": base})
        .status_code
        == 302
    )
    alice_page = client_for(alice)
    response = alice_page.post("/studio/add-one/test/", edit | {"expected": "200", "base": base})
    assert response.status_code == 409
    page = response.content.decode()
    assert 'id="conflict"' in page and "you and bob changed the same place" in page
    assert 'class="hunk-side hunk-mine"' in page and 'class="hunk-side hunk-theirs"' in page
    assert 'name="resolve:public_tests:public 0" value="mine" checked' in page
    assert 'name="resolve:public_tests:public 0" value="theirs"' in page
    assert 'name="onto" value="2.0"' in page  # "save with these choices"
    assert f'name="base" value="{base}"' in page  # the base she started from
    assert problem.versions.count() == 2
    again = alice_page.post(
        "/studio/add-one/test/",
        edit
        | {"expected": "200", "base": base, "onto": "2.0", "resolve:public_tests:public 0": "mine"},
    )
    assert again.status_code == 302
    assert head(problem).public_tests[0]["expected"] == 200


def test_a_stale_row_action_that_overlaps_offers_its_own_form(
    problem: Problem, alice: User, bob: User
) -> None:
    base = head_token(problem)
    client_for(bob).post(
        "/studio/add-one/test/",
        TEST_FORM
        | {"name": "public 0", "where": "public", "index": "0", "expected": "100", "base": base},
    )
    alice_page = client_for(alice)
    response = alice_page.post("/studio/add-one/test/public/0/delete/", {"base": base})
    assert response.status_code == 409
    page = response.content.decode()
    form = page.index('action="/studio/add-one/test/public/0/delete/" class="conflict-form"')
    assert form < page.index('name="resolve:public_tests:public 0"') < page.index("</form>", form)
    assert (
        alice_page.post(
            "/studio/add-one/test/public/0/delete/",
            {"base": base, "onto": "2.0", "resolve:public_tests:public 0": "theirs"},
        ).status_code
        == 302
    )
    assert head(problem).public_tests[0]["expected"] == 100  # bob's edit kept


@pytest.mark.parametrize("base", ["", "junk", "9.9", "1." + "9" * 30])
def test_a_base_that_names_no_kept_state_is_a_conflict_never_a_500(
    problem: Problem, alice: User, base: str
) -> None:
    response = client_for(alice).post(
        "/studio/add-one/statement/", {"statement_md": "# Mine", "base": base}
    )
    assert response.status_code == 409
    assert problem.versions.count() == 1


@override_settings(ONSITE_STUDIO_COLLAPSE_SECONDS=600)
def test_a_tab_on_a_rewritten_state_is_merged_from_that_state(
    problem: Problem, alice: User
) -> None:
    """One author, two tabs: tab A's saves collapse into one draft; tab B, on the draft's
    first state, merges from that state, so what tab A saved stays."""
    first = edit_test(problem=problem, user=alice, op="add", test=EXTRA)[0]
    tab_b = head_token(problem)
    edit_test(problem=problem, user=alice, op="add", test=MINE, based_on=tab_b)  # tab A
    assert problem.versions.count() == 2 and head_token(problem) == f"{first.number}.1"
    third = dict(MINE, name="third")
    edit_test(problem=problem, user=alice, op="add", test=third, based_on=tab_b)
    assert names(problem) == ["public 0", "public 1", "bob's test", "alice's test", "third"]


def test_a_limit_applied_from_an_old_versions_page_keeps_what_was_saved_since(
    problem: Problem, alice: User, bob: User
) -> None:
    edit_test(problem=problem, user=bob, op="add", test=EXTRA)
    version, created = version_create(
        problem=problem,
        base=problem.versions.get(number=1),
        limits={"test_cpu_seconds": 3.0},
        user=alice,
    )
    assert created and version.number == 3
    assert version.limits["test_cpu_seconds"] == 3.0 and "bob's test" in names(problem)


def test_a_big_rows_sides_are_shown_clipped_but_chosen_whole() -> None:
    problem = tiny_problem(published=False)
    base = problem_to_package(problem=problem)
    row = base.public_tests[0]
    head = replace(base, public_tests=(replace(row, expected="b" * 50_000), *base.public_tests[1:]))
    mine = replace(base, public_tests=(replace(row, expected="m" * 50_000), *base.public_tests[1:]))
    [hunk] = packages_merge3(base, mine, head).unresolved
    assert len(hunk.mine_shown) < 4100 and hunk.mine_shown.endswith("more characters)")
    chosen = packages_merge3(base, mine, head, choices={hunk.id: Choice("mine")})
    assert chosen.package.public_tests[0].expected == "m" * 50_000
