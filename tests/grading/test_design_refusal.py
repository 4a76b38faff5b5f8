"""A design problem has nothing to run (issue 29): every entry that would grade code on one
refuses it with a clear error and stores nothing: the grading service, the REST API (an
author's try-out included), a session's Run/Submit, the `grade` command; a design session
still finishes, with no final submission."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from grading.models import Submission
from grading.services import DESIGN_REFUSED, GradingError, grade_now, submission_create
from interviews import services as sessions
from interviews.models import SessionEvent
from interviews.services import SessionError
from problems.models import Problem
from problems.package import package_read
from problems.services import BANK_DIR, problem_load
from tests.factories import client_for, user_with_role

pytestmark = pytest.mark.django_db


@pytest.fixture
def design() -> Problem:
    problem, _ = problem_load(package=package_read(BANK_DIR / "llm-inference-gateway"))
    return problem


def test_the_grading_service_refuses_a_design_problem(design: Problem) -> None:
    with pytest.raises(GradingError) as error:
        grade_now(problem=design, code="print(1)", mode="run")
    assert error.value.code == "design_problem" and error.value.message == DESIGN_REFUSED
    user = user_with_role("cand", "candidate")
    for mode in ("run", "submit", "custom", "script"):
        with pytest.raises(GradingError) as error:
            submission_create(
                user=user,
                problem_slug=design.slug,
                code="x = 1",
                mode=mode,
                custom_input={"args": []} if mode == "custom" else None,
            )
        assert error.value.code == "design_problem"
    assert not Submission.objects.exists()


def test_the_api_answers_a_clear_409_and_stores_nothing(design: Problem) -> None:
    client = client_for(user_with_role("cand", "candidate"))
    for mode in ("run", "submit"):
        response = client.post(
            "/api/submissions",
            {"problem": design.slug, "code": "x = 1", "mode": mode},
            content_type="application/json",
        )
        assert response.status_code == 409
        assert response.json() == {"detail": DESIGN_REFUSED, "code": "design_problem"}
    # An author's try-out of a version is refused the same way.
    admin = client_for(user_with_role("root", admin=True))
    response = admin.post(
        "/api/submissions",
        {"problem": design.slug, "code": "x = 1", "mode": "run", "version": 1},
        content_type="application/json",
    )
    assert response.status_code == 409 and response.json()["code"] == "design_problem"
    assert not Submission.objects.exists()


def test_a_design_sessions_run_is_refused_and_it_finishes_without_a_submission(
    design: Problem,
) -> None:
    candidate = user_with_role("cand", "candidate")
    session = sessions.session_start_solo(
        candidate=candidate, problem_slug=design.slug, duration=timedelta(minutes=45)
    )
    with pytest.raises(SessionError) as error:
        sessions.session_run(session_id=session.pk, user=candidate, mode="submit")
    assert error.value.code == "design_problem"
    client = client_for(candidate)
    response = client.post(
        f"/sessions/{session.pk}/run", {"mode": "run"}, content_type="application/json"
    )
    assert response.status_code == 409 and response.json()["detail"] == DESIGN_REFUSED
    finished = client.post(f"/sessions/{session.pk}/finish")
    assert finished.status_code == 200 and finished.json() == {
        "status": "finished",
        "submission": None,
    }
    # nothing is submitted at the end either: no final-submit event, the board is kept instead
    assert not SessionEvent.objects.filter(session=session, kind="final_submit").exists()
    assert not Submission.objects.exists()


def test_the_grade_command_refuses_it_with_a_message(design: Problem, tmp_path: Path) -> None:
    solution = tmp_path / "s.py"
    solution.write_text("x = 1\n")
    with pytest.raises(CommandError) as error:
        call_command("grade", design.slug, str(solution))
    assert "nothing to run or submit" in str(error.value)
