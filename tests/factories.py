"""Small factories for tests: users with roles and a tiny published problem."""

from __future__ import annotations

from dataclasses import asdict

from django.contrib.auth.models import Group, User
from django.test import Client

from problems.models import CONTENT_FIELDS, Problem, ProblemVersion
from problems.package import Limits

ADD_ONE = "def solve(x):\n    return x + 1\n"


def user_with_role(username: str, role: str | None = None, *, admin: bool = False) -> User:
    user = User.objects.create_user(username=username, password="pw-" + username)
    user.is_staff = user.is_superuser = admin
    user.save()
    if role:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def tiny_problem(slug: str = "add-one", *, published: bool = True, hidden: int = 3) -> Problem:
    problem = Problem.objects.create(
        slug=slug,
        title="Add one",
        statement_md="Return x + 1.",
        starter_code="def solve(x):\n    pass\n",
        reference_code=ADD_ONE,
        published=published,
    )
    version = ProblemVersion.objects.create(
        problem=problem,
        number=1,
        tests_hash="t1",
        driver={"kind": "function", "entry": "solve"},
        compare={"mode": "exact", "float_rel": 1e-6, "float_abs": 1e-9},
        limits=asdict(Limits()),  # the package format's defaults, defined once
        # The live version holds what the problem shows (the problem's copy of it).
        **{name: getattr(problem, name) for name in CONTENT_FIELDS},
        public_tests=[
            {"name": f"public {i}", "input": {"args": [i]}, "expected": i + 1, "tag": "correctness"}
            for i in range(2)
        ],
        hidden_tests=[
            {
                "name": f"secret {i}",
                "input": {"args": [100 + i]},
                "expected": 101 + i,
                "tag": "edge_cases" if i % 2 else "correctness",
            }
            for i in range(hidden)
        ],
    )
    problem.live_version = version
    problem.save()
    return problem


def client_for(user: User | None) -> Client:
    """A test client logged in as ``user`` (anonymous for None)."""
    client = Client()
    if user is not None:
        client.force_login(user)
    return client
