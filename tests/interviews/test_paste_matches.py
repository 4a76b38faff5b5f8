"""A large paste is compared with other candidates' code and the known solutions (issue 41.5):
what it matched is kept beside the paste and read on the interviewer's timeline."""

from __future__ import annotations

import pytest

from grading import copies
from grading.models import CodePrint, Submission
from interviews import selectors, services
from tests.interviews.worlds import build_world

pytestmark = pytest.mark.django_db

THEIRS = '''
def solve(x):
    total = 0
    squares = []
    for i in range(x):
        squares.append(i * i)
        if i % 2 == 0:
            total += i
        else:
            total -= 1
    while total < 0:
        total += len(squares)
    best = max(squares, default=0)
    return total + best - best + 1
'''
PASTED = THEIRS.replace("total", "acc").replace("squares", "sq")


def _stored(world: object) -> None:
    """Another candidate's Submit of the problem, fingerprinted by the background job."""
    theirs = Submission.objects.create(
        user=world.other,  # type: ignore[attr-defined]
        problem=world.session.problem,  # type: ignore[attr-defined]
        version=world.final.version,  # type: ignore[attr-defined]
        mode="submit",
        code=THEIRS,
    )
    codeprint = CodePrint.objects.create(submission=theirs, problem=theirs.problem)
    copies.codeprint_compute(codeprint_id=codeprint.pk)


def test_a_paste_of_another_candidates_code_says_so_beside_the_paste() -> None:
    world = build_world()
    _stored(world)

    event = services.paste_record(
        session_id=world.session.pk, actor=world.owner, role="candidate",
        chars=len(PASTED), text=PASTED,
    )  # fmt: skip

    assert event.data["similar"] >= 100 * copies.threshold()
    assert event.data["similar_to"] == ""
    label = selectors.paste_label(event.data)
    assert label.startswith(f"Large paste ({len(PASTED)} characters): ")
    assert label.endswith("% of it is in another candidate's submitted code")


def test_a_paste_of_ones_own_or_unrelated_code_is_just_a_paste() -> None:
    world = build_world()
    _stored(world)
    unrelated = "def solve(x):\n    return sorted({x, x + 1, x + 2})[1] * 1\n" * 3

    event = services.paste_record(
        session_id=world.session.pk, actor=world.owner, role="candidate",
        chars=len(unrelated), text=unrelated,
    )  # fmt: skip

    assert "similar" not in event.data
    assert selectors.paste_label(event.data) == f"Large paste ({len(unrelated)} characters)"
