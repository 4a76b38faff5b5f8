"""Everyone in a design room draws (issue 38, 2): a live design session scheduled without a
word about it lets its interviewers draw on the board (the interviewer can lock it in the
session, the "Interviewers draw too" box); a coding session keeps the editor the
candidate's; an explicit choice is kept either way."""

from __future__ import annotations

from datetime import timedelta

import pytest

from interviews import services
from interviews.models import InterviewSession
from tests.factories import client_for, design_problem, tiny_problem, user_with_role

pytestmark = pytest.mark.django_db


def test_a_design_round_lets_interviewers_draw_unless_told_otherwise() -> None:
    interviewer = user_with_role("ivy", "interviewer")
    design, code = design_problem("room-design"), tiny_problem()
    drawn = services.session_schedule_live(
        interviewer=interviewer, problem_slug=design.slug, duration=timedelta(minutes=45))
    typed = services.session_schedule_live(
        interviewer=interviewer, problem_slug=code.slug, duration=timedelta(minutes=45))
    locked = services.session_schedule_live(
        interviewer=interviewer, problem_slug=design.slug, duration=timedelta(minutes=45),
        interviewer_can_edit=False)
    assert drawn.interviewer_can_edit is True
    assert typed.interviewer_can_edit is False
    assert locked.interviewer_can_edit is False


def test_the_schedule_form_unticked_gives_a_design_round_a_shared_board() -> None:
    design, code = design_problem("room-form"), tiny_problem()
    client = client_for(user_with_role("ivy", "interviewer"))
    for problem in (design, code):
        response = client.post("/sessions/live/", {"problem": problem.slug, "minutes": "45"})
        assert response.status_code == 302, response.content.decode()[:2000]
    sessions = {s.problem.slug: s for s in InterviewSession.objects.select_related("problem")}
    assert sessions[design.slug].interviewer_can_edit is True
    assert sessions[code.slug].interviewer_can_edit is False
    page = client.get(f"/sessions/{sessions[design.slug].pk}/").content.decode()
    assert 'id="interviewer-edit" checked' in page and "Interviewers draw too" in page
