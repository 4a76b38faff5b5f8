"""Every URL route, walked from the resolver (never a hand list), answers bad input without a
server error: as anonymous, candidate, interviewer, author and admin; with the real ids of
objects that exist (sessions, questions, submissions, problems, drafts, shares, tokens, admin
rows) and with junk ids; by GET (plain and with a junk query) and by POSTs of no body,
malformed JSON, a JSON array, deep JSON, wrong types, huge strings and bad forms.

And every JSON answer outside the REST API comes from a view on the one JSON edge
(core.endpoints.json_endpoint): a view writing its own parsing would drift again. Every other
view that takes a POST is on the one edge of HTML form posts (core.edges.form_edge: its rate
limit, its refusals as pages, its 429 page), but Django's own: the admin's and the accounts'
(django.contrib.auth, whose sign-in axes throttles: core/loginlock.py).

Websocket routes are not URL routes (tests/interviews/test_consumers.py covers them).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from itertools import cycle
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.test.client import encode_multipart
from rest_framework.views import APIView

from core.tokens import token_create
from grading.models import Submission
from interviews import services
from interviews.models import Question
from interviews.review import services as review_services
from loops.services import practice
from loops.services.mail import loop_token
from loops.services.practice import RoundSpec
from problems.models import Problem
from tests.factories import tiny_problem
from tests.interviews.worlds import build_world
from tests.loops.factories import loop_with_rounds
from tests.privacy.routes import Route, url_routes

# About a minute and a half of requests: the full suite walks it, the fast loop stays near a minute.
pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# Deeper than Python's recursion limit: a parser without the depth bound would fail on it.
DEEP = b"[" * 5_000 + b"]" * 5_000
# Longer than any text the platform keeps (4000 characters at most).
HUGE = "x" * 5_000
# Past SQLite's and PostgreSQL's integers, zero, and a long word where a slug or token goes.
JUNK_IDS = ["0", str(2**63), "n" * 300]
# Every field name a view or form of the platform reads, so each body reaches its checks.
FIELDS = [
    "text",
    "kind",
    "mode",
    "call_link",
    "criterion",
    "evidence",
    "interviewer_can_edit",
    "problem",
    "code",
    "input",
    "summary",
    "recommendation",
    "scores",
    "submit",
    "name",
    "username",
    "slug",
    "title",
    "statement_md",
    "public_tests",
    "hidden_tests",
    "minutes",
    "starts_date",
    "starts_time",
    "tz",
    "email",
    "candidate",
    "level-correctness",
    "comment-correctness",
    "evidence-correctness",
    "action",
    "where",
    "index",
    "visibility",
    "tag",
    "expected",
    "file",
    "verdict",
    "why",
    "groups",
    "says",
    "difficulty",
    "queue",
    "topics",
    "entry",
    "driver",
    "compare",
    "float_rel",
    "float_abs",
    "memory_mb",
    "test_wall_seconds",
    "test_cpu_seconds",
    "output_bytes",
    "starter_code",
    "reference_code",
    "hints",
    "follow_ups",
    "clarifications",
    "rubric",
    "wrong",
    "password",
    "old_password",
    "new_password1",
    "new_password2",
    "q",
    "page",
    "sort",
    "status",
]
WRONG_TYPES = dict(
    zip(FIELDS, cycle([123, [], {"a": [1]}, None, True, -1.5, [{"b": None}]]), strict=False)
)
# Values that look like the field and are wrong (never "post": an admin delete needs it).
JUNK_FORM = {
    "minutes": "1e400",
    "starts_date": "2026-13-45",
    "starts_time": "25:99",
    "tz": "Mars/Olympus",
    "email": "not an address",
    "call_link": "javascript:alert(1)",
    "problem": "../../etc/passwd",
    "level-correctness": "99",
    "evidence-correctness": "submission:abc",
    "action": "submit",
    "index": "99999999999999999999",
    "where": "public",
    "public_tests": "[{",
    "hidden_tests": "{}",
    "memory_mb": "lots",
    "test_wall_seconds": "inf",
    "float_rel": "nan",
    "statement_md": "\x00",
    "username": "\x00root",
    "name": "n" * 300,
    "slug": "Not A Slug",
    "entry": "1abc",
    "driver": "magic",
    "compare": "fuzzy",
    "topics": ",,,",
    "code": "\x00",
    "kind": "nope",
    "mode": "nope",
    "visibility": "secret",
    "tag": "nope",
    "expected": "{",
    "input": "{",
    "verdict": "XX",
    "file": "../../x.py",
    "groups": "[",
    "text": "\x00" * 3,
    "interviewer_can_edit": "maybe",
    "recommendation": "maybe",
    "scores": "x",
    "page": "-1",
}
FORM = "application/x-www-form-urlencoded"
POSTS: list[tuple[str, bytes | str, str]] = [
    ("no body", b"", FORM),
    ("malformed JSON", b'{"text": ', "application/json"),
    ("JSON array", b"[1, 2, 3]", "application/json"),
    ("deep JSON", DEEP, "application/json"),
    ("wrong types", json.dumps(WRONG_TYPES), "application/json"),
    ("huge strings", json.dumps(dict.fromkeys(FIELDS, HUGE)), "application/json"),
    ("huge form", urlencode(dict.fromkeys(FIELDS, HUGE)), FORM),
    ("junk form", "a=%ZZ&&=&%ff=%00&" + urlencode(JUNK_FORM), FORM),
    (
        "junk multipart",
        b'--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb',
        "multipart/form-data; boundary=xyz",
    ),
    (
        "junk upload",
        encode_multipart(
            "junkboundary", {**JUNK_FORM, "archive": SimpleUploadedFile("p.zip", b"PK\x03\x04junk")}
        ),
        "multipart/form-data; boundary=junkboundary",
    ),
    ("multipart without boundary", b"junk", "multipart/form-data"),
]
JUNK_QUERY = "?" + urlencode(
    {
        "page": "abc",
        "page_size": "-5",
        "sort": "nope",
        "v": "x",
        "edit": "public:99",
        "problem": "p" * 500,
        "mode": "x",
        "criterion": "\x00",
        "status": "zzz",
        "q": "%",
        "o": "99.x",
        "p": "-1",
        "e": "1",
        "all": "",
        "_changelist_filters": "x=y",
    }
)
FEW = ("no body", "wrong types", "junk form")
ROLES = ("anonymous", "candidate", "interviewer", "author", "admin")
# Run last, in this order: they end what the others need (a session, a row, a login). The
# admin's delete pages take any non-empty POST as the confirmation, so they go after all.
LAST = (
    "finish",
    "unpublish",
    "wrong_delete",
    "coauthor_remove",
    "share_revoke",
    "account-token-revoke",
    "admin-delete",
    "logout",
)


@dataclass
class World:
    users: dict[str, User | None]
    values: dict[str, list[str]]  # real values per path parameter
    admin_ids: dict[str, list[str]]  # "app/model/" -> real primary keys


def _world() -> World:
    reviewed = build_world()  # a finished live session: owner, assigned interviewer, author
    candidate, interviewer, author = reviewed.owner, reviewed.assigned, reviewed.author
    minutes = timedelta(minutes=30)
    live = services.session_schedule_live(
        interviewer=interviewer, problem_slug="add-one", duration=minutes, candidate=candidate
    )
    services.session_join(token=live.invite_token or "", user=candidate)
    services.question_ask(session_id=live.pk, user=candidate, text="Can x be negative?")
    scheduled = services.session_schedule_live(
        interviewer=interviewer, problem_slug="add-one", duration=minutes, candidate=candidate
    )
    solo = services.session_start_solo(
        candidate=candidate, problem_slug="add-one", duration=minutes
    )
    strangers = services.session_start_solo(
        candidate=reviewed.other, problem_slug="add-one", duration=minutes
    )
    share = review_services.share_create(session=reviewed.session, user=candidate)
    draft = tiny_problem("draft-one", published=False)
    Problem.objects.filter(pk=draft.pk).update(owner=author)
    draft.coauthors.add(reviewed.unassigned)
    tiny_problem("others-draft", published=False)
    token, _ = token_create(user=candidate, name="ci")
    # A loop of two rounds, the second the reviewed session's interviewer's, whose hiring
    # manager is the admin (its packet, debrief and combined report).
    loop = loop_with_rounds(candidate=candidate, created_by=reviewed.admin,
                            rounds=[(reviewed.session.problem, interviewer)] * 2,
                            hiring_manager=reviewed.admin)
    # The candidate's mock onsite (loops), its first round taken.
    practice_loop = practice.practice_book(
        candidate=candidate, rounds=[RoundSpec("Coding", "implement", 30, problem="add-one")])
    practice.practice_round_start(loop_id=practice_loop.pk, user=candidate, position=1)
    sessions = [live, solo, reviewed.session, scheduled, strangers]
    values = {
        "session_id": [str(s.pk) for s in sessions],
        "question_id": [str(q.pk) for q in Question.objects.order_by("pk")],
        "index": ["0", "1"],
        "share_id": [str(share.pk)],
        "token": [live.invite_token or "", scheduled.invite_token or "", share.token,
                  loop_token(loop)],
        "submission_id": [str(s.pk) for s in Submission.objects.order_by("pk")],
        "slug": ["draft-one", "add-one", "others-draft"],
        "number": ["1", "2"],
        "where": ["public", "hidden"],
        "op": ["duplicate", "delete"],
        "user_id": [str(reviewed.unassigned.pk)],
        "token_id": [str(token.pk)],
        "app_label": sorted({m._meta.app_label for m in admin.site._registry}),
        "content_type_id": ["1"],
        "object_id": ["1"],
        "url": ["nope/"],
        "loop_id": [str(loop.pk), str(practice_loop.pk)],
        "position": ["1", "2"],
    }
    admin_ids = {
        f"admin/{model._meta.app_label}/{model._meta.model_name}/": [
            quote(str(pk), safe="")
            for pk in model._default_manager.values_list("pk", flat=True).order_by("pk")[:3]
        ]
        or ["1"]
        for model in admin.site._registry
    }
    users: dict[str, User | None] = {
        "anonymous": None,
        "candidate": candidate,
        "interviewer": interviewer,
        "author": author,
        "admin": reviewed.admin,
    }
    return World(users, values, admin_ids)


def _fillings(route: Route, world: World) -> Iterator[tuple[str, str]]:
    """(path, depth) for the route: each real value of each parameter once (the first with
    depth "first", the others "real"), then the junk ones ("junk")."""
    if not route.params:
        yield "/" + route.template, "first"
        return

    def real(name: str) -> list[str]:
        if name == "object_id":
            for prefix, ids in world.admin_ids.items():
                if route.template.startswith(prefix):
                    return ids
        return world.values.get(name, ["1"])

    reals = {name: real(name) for name in route.params}
    for i in range(max(len(v) for v in reals.values())):
        yield (
            "/" + route.template % {n: quote(v[i % len(v)], safe="") for n, v in reals.items()},
            "first" if i == 0 else "real",
        )
    for junk in JUNK_IDS:
        yield "/" + route.template % dict.fromkeys(route.params, quote(junk, safe="")), "junk"


def _requests(path: str, depth: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every request for the first real filling of a route; a few for each other one (the
    bodies meet the same edge whatever the id); a GET and an empty POST for a junk id."""
    yield "GET", path, {}
    if depth == "junk":
        yield "POST no body", path, {"data": b"", "content_type": FORM}
        return
    yield "GET", path + JUNK_QUERY, {}
    posts = POSTS if depth == "first" else [p for p in POSTS if p[0] in FEW]
    for what, body, content_type in posts:
        yield f"POST {what}", path, {"data": body, "content_type": content_type}


def _ordered(routes: list[Route]) -> list[Route]:
    def rank(route: Route) -> int:
        name = (
            "admin-delete"
            if route.template.startswith("admin/") and route.name.endswith("_delete")
            else route.name
        )
        return LAST.index(name) + 1 if name in LAST else 0

    return sorted(routes, key=rank)


def _on_the_json_edge(callback: Callable[..., Any]) -> bool:
    view_class = getattr(callback, "cls", None)
    return bool(getattr(callback, "json_endpoint", False)) or (
        isinstance(view_class, type) and issubclass(view_class, APIView)
    )


def _on_the_form_edge(callback: Callable[..., Any]) -> bool:
    return bool(getattr(callback, "form_edge", False))


def _djangos_own(route: Route) -> bool:
    """The admin's pages and the accounts' (django.contrib.auth): Django's forms, not ours."""
    return route.template.startswith("admin/") or route.callback.__module__.startswith(
        "django.contrib.auth."
    )


def _off_the_edges(route: Route) -> bool:
    """A view on neither edge: it may take no POST."""
    return not (
        _on_the_json_edge(route.callback)
        or _on_the_form_edge(route.callback)
        or _djangos_own(route)
    )


def test_the_walk_finds_every_kind_of_route() -> None:
    names = {route.name for route in url_routes()}
    # the session cockpit, the review, the studio, the API, the admin and the accounts
    assert {
        "call_link",
        "private_notes",
        "scorecard_cite",
        "import",
        "api-submission",
        "api-review-scores",
        "metrics",
        "login",
    } <= names
    assert sum(route.template.startswith("admin/") for route in url_routes()) > 40


def _send(client: Client, what: str, url: str, kwargs: dict[str, Any]) -> Any:
    """The response, or the exception the test client re-raised from the view."""
    try:
        return client.get(url) if what == "GET" else client.post(url, **kwargs)
    except Exception as exc:
        return exc


def _walk(world: World) -> tuple[list[str], set[str], set[str]]:
    """Every request of every route as every role: the server errors, the routes that
    answered JSON outside the REST API from a view off the JSON edge, and the routes that
    took a POST (answered it other than 405) from a view off both edges."""
    failures: list[str] = []
    off_the_edge: set[str] = set()
    posted_off_the_edges: set[str] = set()
    clients = {role: Client() for role in ROLES}
    for route in _ordered(list(url_routes())):
        for role, client in clients.items():
            user = world.users[role]
            if user is not None and not User.objects.filter(pk=user.pk).exists():
                continue  # deleted by an admin delete page walked before
            if user is not None:
                client.force_login(user)  # again: a walked logout route signs it out
            for path, depth in _fillings(route, world):
                for what, url, kwargs in _requests(path, depth):
                    answer = _send(client, what, url, kwargs)
                    where = f"{role} {what} {url[:120]}"
                    if isinstance(answer, Exception):
                        failures.append(f"{where}: {type(answer).__name__}: {str(answer)[:200]}")
                    elif answer.status_code >= 500:
                        failures.append(f"{where}: {answer.status_code}")
                    # Whether the view takes a POST: the admin's empty one (every role's gate
                    # opens to the admin; a bad body can be refused before any view) to a real
                    # path (a junk id may match no route: a 404) is not refused for its method.
                    if (
                        role == "admin"
                        and what == "POST no body"
                        and depth != "junk"
                        and not isinstance(answer, Exception)
                        and answer.status_code != 405
                        and _off_the_edges(route)
                    ):
                        posted_off_the_edges.add(route.name or route.template)
                    if isinstance(answer, Exception):
                        continue
                    if (
                        answer.get("Content-Type", "").startswith("application/json")
                        and not url.startswith("/api/")
                        and answer.resolver_match is not None
                        and not _on_the_json_edge(answer.resolver_match.func)
                    ):
                        off_the_edge.add(route.name or route.template)
    return failures, off_the_edge, posted_off_the_edges


@pytest.fixture
def _quiet_request_log() -> Iterator[None]:
    """Thousands of 4xx answers are each a warning of django.request: kept to errors (a 5xx
    still logs) so the walk is not spent formatting them."""
    logger = logging.getLogger("django.request")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


@pytest.mark.usefixtures("_quiet_request_log")
def test_every_route_answers_bad_input_as_every_role_without_a_server_error() -> None:
    # given objects of every kind, each role's user, and every route from the resolver
    world = _world()
    # when every route gets every bad request as every role
    failures, off_the_edge, posted_off_the_edges = _walk(world)
    # then nothing is a server error
    assert failures == []
    # and every JSON answer outside the REST API came from a view on the one JSON edge
    assert off_the_edge == set()
    # and every other view that took a POST is on the one edge of HTML form posts
    assert posted_off_the_edges == set()


def test_every_view_that_takes_a_post_is_on_the_json_edge_or_the_form_edge() -> None:
    """The walk's last check, quickly: one empty POST per route as an admin (every role's
    pages open), junk ids; a view that is on no edge must refuse the method (405)."""
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    taking: set[str] = set()
    off: set[str] = set()
    for route in url_routes():
        if _djangos_own(route):
            continue
        path = "/" + route.template % dict.fromkeys(route.params, "0")
        answer = _send(client, "POST", path, {"data": b"", "content_type": FORM})
        if isinstance(answer, Exception) or answer.status_code != 405:
            taking.add(route.name)
            if _off_the_edges(route):
                off.add(route.name)
    assert off == set()
    # the studio's, the sessions', the review's and the tokens' forms are all found (and so
    # on the form edge), with their rate-limit scope
    assert {"publish", "import", "schedule", "release", "account-token-revoke"} <= taking
    scopes = {route.name: getattr(route.callback, "form_edge", None) for route in url_routes()}
    assert (scopes["publish"], scopes["schedule"], scopes["release"]) == (
        "studio", "sessions", "reviews")
