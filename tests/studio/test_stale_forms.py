"""Every studio form carries the version it was based on, and two authors saving stale copies
of any of them lose nothing (issue 34.5).

The forms are enumerated from studio/urls.py: each route that saves a change to a problem's
package must be in EDIT_FORMS (and then its form, on the page that shows it, must carry
`base`); every other route must say in NOT_EDITS why it is not one. A new route fails
`test_every_studio_route_is_classified` until it is placed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import resolve

from problems.models import Problem, ProblemVersion
from studio.forms import PartsForm
from studio.services.revisions import version_revision
from studio.urls import urlpatterns
from tests.factories import client_for, tiny_problem
from tests.studio.versions import head, mark_validated

pytestmark = pytest.mark.django_db

STATEMENT = "# Add one\n\nReturn x + 1.\n\nInputs are integers.\n"
WRONG = [
    {
        "file": "wrong/first.py",
        "verdict": "WA",
        "why": "off by one",
        "code": "def solve(x):\n    return x\n",
    },
    {
        "file": "wrong/second.py",
        "verdict": "WA",
        "why": "doubles",
        "code": "def solve(x):\n    return 2 * x\n",
    },
]
GENERATED = {
    "name": "generated",
    "input": {"args": [3]},
    "expected": 4,
    "tag": "correctness",
    "generator": {"template": {"args": ["$int(0, 9)"]}, "seed": 1},
}

# Routes that save a change to the package: their form carries its base.
EDIT_FORMS = {
    "statement",
    "tests",
    "limits",
    "parts",
    "test_save",
    "test_action",
    "generated_rebuild",
    "wrong_add",
    "wrong_delete",
    "known_add",
    "known_delete",
    "apply_limit",
}
# Every other route, and why it has no base to carry.
NOT_EDITS = {
    "index": "a page (GET)",
    "problem": "a page (GET)",
    "version": "a page (GET)",
    "version_panel": "a fragment (GET)",
    "test_download": "a download (GET)",
    "export": "a download (GET)",
    "preview": "renders the posted Markdown, saves nothing",
    "new": "creates a problem: there is no earlier state to be stale against",
    "import": "loads a whole package, checked as one (its own refusals)",
    "coauthor_add": "who may edit, not the package",
    "coauthor_remove": "who may edit, not the package",
    "publish": "the problem's state, on the live version named by the page",
    "unpublish": "the problem's state, not the package",
    "archive": "the problem's state, not the package",
    "delete": "deletes a never-published draft with all its versions",
    "validate": "checks the version named in its URL, changes no content",
    "regrade": "regrades on the version named in its URL, changes no content",
    "live": "makes the version named in its URL live, changes no content",
    "tryout": "runs the version named in its URL, saves nothing",
    "tryout_hint": "shows a hint of the version named in its URL",
}


@pytest.fixture
def problem(alice: User, bob: User) -> Problem:
    problem = tiny_problem(published=False)
    Problem.objects.filter(pk=problem.pk).update(owner=alice)
    version = problem.versions.get()
    ProblemVersion.objects.filter(pk=version.pk).update(
        statement_md=STATEMENT,
        wrong_solutions=WRONG,
        known_solutions=KNOWN,
        hidden_tests=[*version.hidden_tests, GENERATED],
    )
    mark_validated(
        problem.versions.get(),
        {
            "timing": {"suggested_limit_seconds": 4.5, "tests": [], "warnings": []},
            "lint": {"issues": []},
        },
    )
    problem.coauthors.add(bob)
    problem.refresh_from_db()
    return problem


def token(problem: Problem) -> str:
    return version_revision(head(problem)).token


def post_forms(html: str) -> list[tuple[str, str]]:
    """Every POST form on a page: its action and its body."""
    found = re.finditer(r"<form\b([^>]*)>(.*?)</form>", html, re.S)
    forms = []
    for match in found:
        attrs, body = match.groups()
        action = re.search(r'action="([^"]*)"', attrs)
        if 'method="post"' in attrs and action:
            forms.append((action.group(1), body))
    return forms


def test_every_studio_route_is_classified() -> None:
    named = {pattern.name for pattern in urlpatterns}
    assert not EDIT_FORMS & set(NOT_EDITS)
    assert named == EDIT_FORMS | set(NOT_EDITS), (
        "a studio route that saves a package change belongs in EDIT_FORMS (and its form must "
        "carry base); any other in NOT_EDITS, saying why"
    )


def test_every_edit_form_on_the_pages_carries_its_base(problem: Problem, alice: User) -> None:
    client = client_for(alice)
    pages = {
        "/studio/add-one/": token(problem),
        "/studio/add-one/?edit=public:0": token(problem),
        "/studio/add-one/?wrong=0": token(problem),
        "/studio/add-one/v1/": "1.0",
    }
    seen: set[str] = set()
    for url, base in pages.items():
        html = client.get(url).content.decode()
        for action, body in post_forms(html):
            match = resolve(action.split("?")[0])
            if match.namespace != "studio":
                continue  # the site's own (sign out)
            name = match.url_name
            assert name in EDIT_FORMS or name in NOT_EDITS, action
            if name in EDIT_FORMS:
                assert f'name="base" value="{base}"' in body, f"{action} on {url} has no base"
                seen.add(str(name))
    assert seen == EDIT_FORMS  # every edit form was found on a page and checked


# ---------------------------------------------------------------- two authors, every form


def parts_data(client: Client, **changes: str) -> dict[str, Any]:
    """The parts form as the page fills it, with `changes`."""
    form: PartsForm = client.get("/studio/add-one/").context["parts_form"]
    data: dict[str, Any] = {}
    for field in form:
        value = field.value()
        if isinstance(value, bool):
            if value:
                data[field.name] = "on"
            continue
        data[field.name] = "" if value is None else value
    return data | changes


def limits_data(problem: Problem, **changes: Any) -> dict[str, Any]:
    return dict(problem.versions.get(number=1).limits) | changes


def json_data(problem: Problem, public: list[dict[str, Any]]) -> dict[str, str]:
    v1 = problem.versions.get(number=1)
    return {"public_tests": json.dumps(public), "hidden_tests": json.dumps(v1.hidden_tests)}


def row_form(name: str, expected: str) -> dict[str, str]:
    return {
        "name": name,
        "visibility": "public",
        "tag": "correctness",
        "group": "",
        "compare": "",
        "input": '{"args": [5]}',
        "expected": expected,
        "seed": "1",
    }


KNOWN = [
    {"file": "known/first.py", "code": "def solve(x):\n    return x - -1\n"},
    {"file": "known/second.py", "code": "def solve(x):\n    return 1 + x\n"},
]


def wrong_form(file: str) -> dict[str, str]:
    return {
        "file": file,
        "verdict": "WA",
        "why": "why",
        "groups": "",
        "says": "",
        "code": "def solve(x):\n    return 0\n",
    }


Post = tuple[str, Callable[[Problem, Client], dict[str, Any]]]
Check = Callable[[ProblemVersion], bool]

# form → (bob's save, alice's stale save, both changes present in the head)
TWO_AUTHORS: dict[str, tuple[Post, Post, Check]] = {
    "statement": (
        (
            "/studio/add-one/statement/",
            lambda p, c: {"statement_md": STATEMENT.replace("# Add one", "# Add one to x")},
        ),
        (
            "/studio/add-one/statement/",
            lambda p, c: {"statement_md": STATEMENT + "\nAlice's paragraph.\n"},
        ),
        lambda v: (
            v.statement_md.startswith("# Add one to x\n")
            and v.statement_md.endswith("Alice's paragraph.\n")
        ),
    ),
    "limits": (
        ("/studio/add-one/limits/", lambda p, c: limits_data(p, memory_mb=300)),
        ("/studio/add-one/limits/", lambda p, c: limits_data(p, test_cpu_seconds=3.0)),
        lambda v: v.limits["memory_mb"] == 300 and v.limits["test_cpu_seconds"] == 3.0,
    ),
    "tests": (
        (
            "/studio/add-one/tests/",
            lambda p, c: json_data(
                p,
                [
                    *p.versions.get(number=1).public_tests,
                    {"name": "bob's", "input": {"args": [7]}, "expected": 8, "tag": "correctness"},
                ],
            ),
        ),
        (
            "/studio/add-one/tests/",
            lambda p, c: json_data(
                p,
                [
                    dict(t, expected=t["expected"] + 10 * (t["name"] == "public 1"))
                    for t in p.versions.get(number=1).public_tests
                ],
            ),
        ),
        lambda v: (
            [t["name"] for t in v.public_tests] == ["public 0", "public 1", "bob's"]
            and v.public_tests[1]["expected"] == 12
        ),
    ),
    "test_save": (
        ("/studio/add-one/test/", lambda p, c: row_form("bob's", "6")),
        ("/studio/add-one/test/", lambda p, c: row_form("alice's", "6")),
        lambda v: [t["name"] for t in v.public_tests][-2:] == ["bob's", "alice's"],
    ),
    "test_action": (
        ("/studio/add-one/test/public/0/duplicate/", lambda p, c: {}),
        ("/studio/add-one/test/public/1/delete/", lambda p, c: {}),
        lambda v: [t["name"] for t in v.public_tests] == ["public 0", "public 0 (2)"],
    ),
    "parts": (
        ("/studio/add-one/parts/", lambda p, c: parts_data(c, title="Bob's title")),
        (
            "/studio/add-one/parts/",
            lambda p, c: parts_data(c, hints_as_text="on", hints="Alice's hint"),
        ),
        lambda v: v.title == "Bob's title" and v.hints == ["Alice's hint"],
    ),
    "wrong_add": (
        ("/studio/add-one/wrong/", lambda p, c: wrong_form("wrong/bob.py")),
        ("/studio/add-one/wrong/", lambda p, c: wrong_form("wrong/alice.py")),
        lambda v: [w["file"] for w in v.wrong_solutions][-2:] == ["wrong/bob.py", "wrong/alice.py"],
    ),
    "wrong_delete": (
        ("/studio/add-one/wrong/0/delete/", lambda p, c: {}),
        ("/studio/add-one/wrong/1/delete/", lambda p, c: {}),
        lambda v: v.wrong_solutions == [],
    ),
    "known_add": (
        ("/studio/add-one/known/", lambda p, c: {"file": "known/bob.py", "code": "x = 1\n"}),
        ("/studio/add-one/known/", lambda p, c: {"file": "known/alice.py", "code": "x = 2\n"}),
        # a package lists its known/ folder by name
        lambda v: {"known/bob.py", "known/alice.py"} <= {k["file"] for k in v.known_solutions},
    ),
    "known_delete": (
        ("/studio/add-one/known/0/delete/", lambda p, c: {}),
        ("/studio/add-one/known/1/delete/", lambda p, c: {}),
        lambda v: v.known_solutions == [],
    ),
    "apply_limit": (
        (
            "/studio/add-one/statement/",
            lambda p, c: {"statement_md": STATEMENT.replace("# Add one", "# Bob's")},
        ),
        ("/studio/add-one/v1/limit/", lambda p, c: {}),
        lambda v: v.statement_md.startswith("# Bob's") and v.limits["test_cpu_seconds"] == 4.5,
    ),
}


def test_every_edit_form_has_a_two_authors_case() -> None:
    # the rebuild runs the reference in the sandbox: its case is the docker test below
    assert set(TWO_AUTHORS) | {"generated_rebuild"} == EDIT_FORMS


@pytest.mark.parametrize("form", sorted(TWO_AUTHORS))
def test_two_authors_saving_stale_copies_of_a_form_lose_nothing(
    problem: Problem, alice: User, bob: User, form: str
) -> None:
    (bob_url, bob_data), (alice_url, alice_data), both_kept = TWO_AUTHORS[form]
    bob_page, alice_page = client_for(bob), client_for(alice)
    base = token(problem)  # both pages loaded now
    bob_post, alice_post = bob_data(problem, bob_page), alice_data(problem, alice_page)
    assert bob_page.post(bob_url, bob_post | {"base": base}).status_code == 302
    saved = alice_page.post(alice_url, alice_post | {"base": base}, follow=True)
    assert saved.status_code == 200, saved.content.decode()[-3000:]
    assert "Merged with bob" in saved.content.decode()
    assert both_kept(head(problem)), form


OVERLAPS: dict[
    str, tuple[str, Callable[[Problem], dict[str, Any]], Callable[[Problem], dict[str, Any]], str]
] = {
    "statement": (
        "/studio/add-one/statement/",
        lambda p: {"statement_md": STATEMENT.replace("x + 1", "x+1") + "\nBob's.\n"},
        lambda p: {"statement_md": STATEMENT.replace("x + 1", "x plus 1")},
        "statement.md#1",
    ),
    "limits": (
        "/studio/add-one/limits/",
        lambda p: limits_data(p, memory_mb=300, test_wall_seconds=5.0),
        lambda p: limits_data(p, memory_mb=512),
        "limits.memory_mb",
    ),
    "test_save": (
        "/studio/add-one/test/",
        lambda p: row_form("public 0", "100") | {"where": "public", "index": "0"},
        lambda p: row_form("public 0", "200") | {"where": "public", "index": "0"},
        "public_tests:public 0",
    ),
}


@pytest.mark.parametrize("form", sorted(OVERLAPS))
def test_an_overlapping_stale_save_shows_both_sides_and_resolves_keeping_the_rest(
    problem: Problem, alice: User, bob: User, form: str
) -> None:
    url, bob_data, alice_data, hunk = OVERLAPS[form]
    base = token(problem)
    assert client_for(bob).post(url, bob_data(problem) | {"base": base}).status_code == 302
    theirs = head(problem)
    alice_page = client_for(alice)
    refused = alice_page.post(url, alice_data(problem) | {"base": base})
    assert refused.status_code == 409
    page = refused.content.decode()
    assert f'name="resolve:{hunk}" value="mine" checked' in page
    assert 'class="hunk-side hunk-theirs"' in page
    assert head(problem).pk == theirs.pk and token(problem) == "2.0"  # nothing saved
    resolved = alice_page.post(
        url, alice_data(problem) | {"base": base, "onto": "2.0", f"resolve:{hunk}": "mine"}
    )
    assert resolved.status_code == 302
    newest = head(problem)
    if form == "statement":  # her line, and bob's other paragraph
        assert "Return x plus 1." in newest.statement_md and "Bob's." in newest.statement_md
    elif form == "limits":  # her memory, bob's wall limit
        assert newest.limits["memory_mb"] == 512 and newest.limits["test_wall_seconds"] == 5.0
    else:
        assert newest.public_tests[0]["expected"] == 200


@pytest.mark.docker
def test_two_authors_rebuilding_generated_tests_from_stale_pages_lose_nothing(
    problem: Problem, alice: User, bob: User
) -> None:
    base = token(problem)
    client_for(bob).post(
        "/studio/add-one/statement/",
        {"statement_md": STATEMENT.replace("# Add one", "# Bob's"), "base": base},
    )
    response = client_for(alice).post("/studio/add-one/tests/rebuild/", {"base": base}, follow=True)
    assert "Merged with bob" in response.content.decode()
    newest = head(problem)
    assert newest.statement_md.startswith("# Bob's")
    assert newest.hidden_tests[-1]["expected"] == newest.hidden_tests[-1]["input"]["args"][0] + 1
