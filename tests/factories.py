"""Small factories for tests: users with roles and a tiny published problem."""

from __future__ import annotations

from dataclasses import asdict
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import Group, User
from django.test import Client

from interviews import services as session_services
from interviews.models import InterviewSession
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


DESIGN_RUBRIC = [
    {
        "criterion": "requirements",
        "weight": 1,
        "strong": "Pins down the scope first.",
        "levels": ["1: none", "2: some", "3: most", "4: all"],
    },
    {
        "criterion": "architecture",
        "weight": 2,
        "strong": "A clear, scalable diagram.",
        "levels": ["1: none", "2: some", "3: most", "4: all"],
    },
]


def design_problem(
    slug: str = "batch-api",
    *,
    reference_text: str = "Use a queue.",
    reference_board: list[dict[str, object]] | None = None,
) -> Problem:
    """A published system-design problem (kind "design"): no tests, a reference text and
    board, a design rubric."""
    problem = tiny_problem(slug, hidden=0)
    problem.title = "Design a batch inference API"
    problem.kind = "design"
    problem.statement_md = "Design a **batch inference API** for 10k requests a second."
    problem.starter_code = ""
    problem.reference_code = reference_text
    problem.reference_board = reference_board or []
    problem.rubric = DESIGN_RUBRIC
    problem.save()
    version = problem.live_version
    assert version is not None
    version.kind = "design"
    version.public_tests = []
    for name in CONTENT_FIELDS:
        setattr(version, name, getattr(problem, name))
    version.reference_board = problem.reference_board
    version.save()
    return problem


def board_update(
    session_id: int,
    elements: list[dict[str, object]],
    *,
    notes: str = "",
    author_id: int | None = None,
) -> int | None:
    """Draw `elements` on a session's board (and append `notes`) as a browser would: one Yjs
    update on top of the stored document, stored through the session's one door."""
    import pycrdt

    from interviews import collab
    from interviews.services import doc_update_store, doc_updates

    doc: pycrdt.Doc = pycrdt.Doc()
    board = doc.get(collab.BOARD_NAME, type=pycrdt.Map)
    text = doc.get(collab.NOTES_NAME, type=pycrdt.Text)
    for _, data in doc_updates(session_id):
        doc.apply_update(data)
    before = doc.get_state()
    for element in elements:
        board[str(element["id"])] = element
    if notes:
        text += notes
    return doc_update_store(session_id=session_id, author_id=author_id, data=doc.get_update(before))


def joined_live_session(
    problem: Problem, *, interviewer_name: str = "int", **schedule: Any
) -> tuple[InterviewSession, User, User]:
    """A 30-minute live session of `problem` that its candidate has joined:
    (session, candidate, interviewer); `schedule` goes to `session_schedule_live`."""
    interviewer = user_with_role(interviewer_name, "interviewer")
    candidate = user_with_role("cand", "candidate")
    session = session_services.session_schedule_live(
        interviewer=interviewer,
        problem_slug=problem.slug,
        duration=timedelta(minutes=30),
        **schedule,
    )
    assert session.invite_token
    session = session_services.session_join(token=session.invite_token, user=candidate)
    return session, candidate, interviewer
