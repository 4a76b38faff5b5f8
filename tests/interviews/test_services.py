"""Session services against the real database: start, join, the deadline, runs, questions."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pycrdt
import pytest
from django.utils import timezone

from grading.models import Submission
from interviews import collab, services
from interviews.models import DocUpdate, InterviewSession, Question, SessionEvent
from interviews.services import SessionError
from tests.factories import tiny_problem, user_with_role
from tests.processes import wait_for, worker

pytestmark = pytest.mark.django_db(transaction=True)

CLARIFICATIONS = [
    {"question": "Can x be negative?", "answer": "Yes, any integer.", "key": True},
    {"question": "How large can x get?", "answer": "Up to 10**9.", "key": False},
    {"question": "Is the input always an integer?", "answer": "Always an int.", "key": True},
]


def append_update(session: InterviewSession, text: str) -> bytes:
    """An update that appends `text` to the session's current document, as a client makes it."""
    doc: pycrdt.Doc = pycrdt.Doc()
    ytext = doc.get(collab.TEXT_NAME, type=pycrdt.Text)
    for _, data in services.doc_updates(session.pk):
        doc.apply_update(data)
    before = doc.get_state()
    ytext += text
    return doc.get_update(before)


def overdue(session: InterviewSession) -> None:
    """Move the session's deadline into the past, as if its time had run out."""
    InterviewSession.objects.filter(pk=session.pk).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )


def test_solo_session_starts_now_with_a_server_deadline_and_the_starter_code() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    before = timezone.now()

    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=30)
    )

    assert session.status == "active" and session.kind == "solo"
    assert session.started_at is not None and session.started_at >= before
    assert session.deadline == session.started_at + timedelta(minutes=30)
    assert session.invite_token is None
    assert services.session_code(session.pk) == problem.starter_code


def test_durations_out_of_range_and_unknown_problems_are_refused() -> None:
    tiny_problem()
    candidate = user_with_role("cand", "candidate")
    with pytest.raises(SessionError) as exc:
        services.session_start_solo(
            candidate=candidate, problem_slug="add-one", duration=timedelta(seconds=1)
        )
    assert exc.value.code == "bad_duration"
    with pytest.raises(SessionError) as exc:
        services.session_start_solo(
            candidate=candidate, problem_slug="nope", duration=timedelta(minutes=5)
        )
    assert exc.value.code == "unknown_problem"


def test_live_session_waits_for_the_candidate_who_joins_by_an_unguessable_link() -> None:
    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    intruder = user_with_role("other", "candidate")

    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=problem.slug, duration=timedelta(minutes=45)
    )
    assert session.status == "scheduled" and session.deadline is None
    assert session.invite_token and len(session.invite_token) >= 40

    # The interviewer opening their own link starts nothing.
    assert services.session_join(token=session.invite_token, user=interviewer).status == "scheduled"
    with pytest.raises(SessionError):
        services.session_join(token="guess", user=candidate)

    joined = services.session_join(token=session.invite_token, user=candidate)
    assert joined.status == "active" and joined.candidate_id == candidate.pk
    assert joined.deadline == joined.started_at + timedelta(minutes=45)

    # The link is now the candidate's: someone else cannot take the seat; rejoining is fine.
    with pytest.raises(SessionError) as exc:
        services.session_join(token=session.invite_token, user=intruder)
    assert exc.value.code == "forbidden"
    again = services.session_join(token=session.invite_token, user=candidate)
    assert again.deadline == joined.deadline


def test_only_interviewers_schedule_live_sessions() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    with pytest.raises(SessionError) as exc:
        services.session_schedule_live(
            interviewer=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
        )
    assert exc.value.code == "forbidden"


def test_edits_are_stored_until_the_deadline_and_refused_after_it() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    first = append_update(session, "# before\n")
    assert services.doc_update_store(session_id=session.pk, author_id=candidate.pk, data=first)

    overdue(session)
    late = append_update(session, "# after\n")
    assert (
        services.doc_update_store(session_id=session.pk, author_id=candidate.pk, data=late) is None
    )
    assert services.session_code(session.pk).endswith("# before\n")
    assert DocUpdate.objects.filter(session=session).count() == 2  # starter + one edit


def test_finishing_at_the_deadline_submits_the_last_stored_code_once() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    update = append_update(session, "# final answer\n")
    services.doc_update_store(session_id=session.pk, author_id=candidate.pk, data=update)

    assert services.session_expire_if_due(session.pk) is False  # not yet due
    overdue(session)
    assert services.session_expire_if_due(session.pk) is True
    assert services.session_expire_if_due(session.pk) is False  # a second call changes nothing

    session.refresh_from_db()
    assert session.status == "finished" and session.finish_reason == "deadline"
    submissions = Submission.objects.filter(user=candidate)
    assert submissions.count() == 1
    final = submissions.get()
    assert final.mode == "submit" and final.code == problem.starter_code + "# final answer\n"
    assert session.final_submission_id == final.pk
    marks = SessionEvent.objects.filter(session=session, kind="final_submit")
    assert [m.submission_id for m in marks] == [final.pk]


def test_the_deadline_task_and_the_sweeper_finish_overdue_sessions() -> None:
    from interviews.tasks import session_expire, sessions_expire_overdue

    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    first = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    second = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    assert session_expire(first.pk) is False
    overdue(first)
    overdue(second)
    assert session_expire(first.pk) is True
    assert sessions_expire_overdue() == 1  # only the second was still active
    assert set(InterviewSession.objects.values_list("status", flat=True)) == {"finished"}


def test_runs_grade_the_servers_copy_for_the_candidate_whoever_clicks() -> None:
    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    assert session.invite_token
    services.session_join(token=session.invite_token, user=candidate)
    update = append_update(session, "# shared\n")
    services.doc_update_store(session_id=session.pk, author_id=candidate.pk, data=update)

    submission = services.session_run(session_id=session.pk, user=interviewer, mode="run")

    assert submission.user_id == candidate.pk and submission.mode == "run"
    assert submission.code.endswith("# shared\n")
    event = SessionEvent.objects.get(session=session, kind="run")
    assert event.submission_id == submission.pk and event.actor_id == interviewer.pk

    outsider = user_with_role("other", "candidate")
    with pytest.raises(SessionError) as exc:
        services.session_run(session_id=session.pk, user=outsider, mode="run")
    assert exc.value.code == "not_participant"


def test_the_session_desk_grades_one_click_once_and_refuses_the_untouched_starter() -> None:
    # Issue 26.4 at the session desk as at the practice desk: the page sends an
    # Idempotency-Key, and a Submit of the starter as given is refused with a message.
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    with pytest.raises(SessionError) as exc:
        services.session_run(session_id=session.pk, user=candidate, mode="submit")
    assert exc.value.code == "unchanged_starter"
    services.doc_update_store(
        session_id=session.pk, author_id=candidate.pk, data=append_update(session, "\n# worked\n")
    )
    first = services.session_run(
        session_id=session.pk, user=candidate, mode="submit", idempotency_key="click-1"
    )
    again = services.session_run(
        session_id=session.pk, user=candidate, mode="submit", idempotency_key="click-1"
    )
    assert again.pk == first.pk
    assert Submission.objects.filter(user=candidate, mode="submit").count() == 1


def test_a_run_after_the_deadline_finishes_the_session_instead() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    overdue(session)
    with pytest.raises(SessionError) as exc:
        services.session_run(session_id=session.pk, user=candidate, mode="run")
    assert exc.value.code == "not_active"
    assert Submission.objects.filter(user=candidate, mode="submit").count() == 1


def test_a_nul_typed_into_the_shared_editor_is_a_clear_refusal_of_the_run() -> None:
    # The code reaches the grader from the shared document, past the request's NUL guard:
    # PostgreSQL's text columns cannot store the character, so it is refused by name.
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    services.doc_update_store(
        session_id=session.pk, author_id=candidate.pk, data=append_update(session, "\n# \x00\n")
    )
    with pytest.raises(SessionError) as exc:
        services.session_run(session_id=session.pk, user=candidate, mode="run")
    assert exc.value.code == "bad_input" and "NUL" in exc.value.message
    assert not Submission.objects.filter(user=candidate).exists()


def test_live_questions_wait_for_the_interviewer_and_record_the_match() -> None:
    problem = tiny_problem()
    problem.clarifications = CLARIFICATIONS
    problem.save()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    session = services.session_schedule_live(
        interviewer=interviewer,
        problem_slug=problem.slug,
        duration=timedelta(minutes=5),
        candidate=candidate,
    )
    assert session.invite_token
    services.session_join(token=session.invite_token, user=candidate)

    question = services.question_ask(
        session_id=session.pk, user=candidate, text="Could x be negative?"
    )
    assert question.answer_source == "" and question.answer == ""
    assert question.matched_index == 0 and question.matched_key is True
    with pytest.raises(SessionError):
        services.question_answer(
            session_id=session.pk, question_id=question.pk, user=candidate, text="self-serve"
        )

    answered = services.question_answer(
        session_id=session.pk,
        question_id=question.pk,
        user=interviewer,
        text="Yes, negatives happen.",
    )
    assert answered.answer_source == "interviewer" and answered.answered_at is not None


def test_solo_questions_get_the_canned_answer_or_the_advice_to_state_an_assumption() -> None:
    problem = tiny_problem()
    problem.clarifications = CLARIFICATIONS
    problem.save()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )

    matched = services.question_ask(
        session_id=session.pk, user=candidate, text="Is x always an integer?"
    )
    unmatched = services.question_ask(
        session_id=session.pk, user=candidate, text="Which text editor do you like best?"
    )

    assert matched.answer_source == "canned"
    assert matched.answer == "Answering \u201cIs the input always an integer?\u201d: Always an int."
    assert matched.matched_key is True and matched.similarity is not None
    assert unmatched.answer_source == "assumption"
    assert unmatched.answer == services.ASSUMPTION_ANSWER
    assert unmatched.answer.startswith(
        "That is not specified here: state your assumption and go on"
    )
    assert unmatched.matched_index is None and unmatched.matched_key is False
    assert [q.text for q in Question.objects.filter(session=session)] == [
        "Is x always an integer?",
        "Which text editor do you like best?",
    ]


def test_notes_are_kept_per_session_and_the_interviewer_chooses_to_edit() -> None:
    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    assert session.invite_token
    services.session_join(token=session.invite_token, user=candidate)

    services.note_add(session_id=session.pk, user=candidate, text="O(1) per call, O(n) memory")
    services.note_add(
        session_id=session.pk, user=interviewer, text="asked about locking", kind="note"
    )
    assert [n.text for n in session.notes.all()] == [
        "O(1) per call, O(n) memory",
        "asked about locking",
    ]

    assert services.role_can_edit(session, "interviewer") is False
    services.session_set_interviewer_edit(session_id=session.pk, user=interviewer, can_edit=True)
    session.refresh_from_db()
    assert services.role_can_edit(session, "interviewer") is True
    with pytest.raises(SessionError):
        services.session_set_interviewer_edit(session_id=session.pk, user=candidate, can_edit=False)


def test_tab_changes_are_recorded_for_the_candidate_only() -> None:
    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    assert session.invite_token
    services.session_join(token=session.invite_token, user=candidate)

    assert services.page_event_report(session_id=session.pk, user=candidate, kind="tab_hidden")
    assert (
        services.page_event_report(session_id=session.pk, user=interviewer, kind="tab_hidden")
        is None
    )
    with pytest.raises(SessionError):
        services.page_event_report(session_id=session.pk, user=candidate, kind="anything")
    assert list(
        SessionEvent.objects.filter(session=session, kind__startswith="tab").values_list(
            "kind", "actor_id"
        )
    ) == [("tab_hidden", candidate.pk)]


@pytest.mark.slow
def test_a_real_worker_finishes_the_session_at_its_deadline_with_no_request(
    tmp_path: Path,
) -> None:
    """Nobody touches the session: only the session clock (the worker's beat) runs."""
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    with worker(tmp_path / "worker.log", beat=True):
        session = services.session_start_solo(
            candidate=candidate, problem_slug=problem.slug, duration=timedelta(seconds=10)
        )
        update = append_update(session, "# last words\n")
        services.doc_update_store(session_id=session.pk, author_id=candidate.pk, data=update)
        wait_for(
            lambda: InterviewSession.objects.filter(pk=session.pk, status="finished").exists(),
            timeout=90,
            what="the deadline task",
        )
    session.refresh_from_db()
    assert session.finish_reason == "deadline" and session.finished_at is not None
    assert session.deadline is not None and session.finished_at >= session.deadline
    assert session.final_submission is not None
    assert session.final_submission.code.endswith("# last words\n")


def test_hints_open_one_at_a_time_are_recorded_and_feed_the_review_signal() -> None:
    from interviews.models import SessionEvent
    from interviews.review.suggest import session_signals

    problem = tiny_problem()
    problem.hints = ["Think about time.", "Clamp at capacity."]
    problem.save()
    candidate = user_with_role("cand", "candidate")
    session = services.session_start_solo(
        candidate=candidate, problem_slug=problem.slug, duration=timedelta(minutes=10)
    )
    assert services.session_hint_reveal(session_id=session.pk, user=candidate) == (
        1,
        "Think about time.",
    )
    assert services.session_hint_reveal(session_id=session.pk, user=candidate) == (
        2,
        "Clamp at capacity.",
    )
    assert services.session_hint_reveal(session_id=session.pk, user=candidate) is None
    assert services.hints_revealed(session) == problem.hints
    assert session.events.filter(kind=SessionEvent.Kind.HINT).count() == 2
    assert session_signals(session).hints_used == 2


def test_custom_and_console_runs_at_the_desk_are_on_the_interviewers_timeline() -> None:
    # Issue 26: the session's desk has the practice page's custom input and console; the
    # interviewer sees those runs on the timeline, and the review never counts them as runs.
    from interviews.review.selectors import session_runs
    from interviews.selectors import replay_data

    problem = tiny_problem()
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=problem.slug, duration=timedelta(minutes=5)
    )
    assert session.invite_token
    services.session_join(token=session.invite_token, user=candidate)

    custom = services.session_run(
        session_id=session.pk, user=candidate, mode="custom", custom_input={"x": 3}
    )
    script = services.session_run(session_id=session.pk, user=candidate, mode="script")

    assert (custom.mode, custom.custom_input, custom.user_id) == ("custom", {"x": 3}, candidate.pk)
    assert script.mode == "script" and script.custom_input is None
    kinds = list(
        SessionEvent.objects.filter(session=session, submission__isnull=False).values_list(
            "kind", "submission_id"
        )
    )
    assert kinds == [("custom_run", custom.pk), ("console_run", script.pk)]
    marks = replay_data(session=session, user=interviewer)["marks"]
    labels = {mark["kind"]: mark["label"] for mark in marks}
    assert labels["custom_run"] == "Custom input run"
    assert labels["console_run"].startswith("Console run")
    assert session_runs(session, staff=True) == []  # neither is a run nor a pass

    with pytest.raises(SessionError) as exc:
        services.session_run(
            session_id=session.pk, user=candidate, mode="custom", custom_input={1, 2}
        )
    assert exc.value.code == "bad_input"
    with pytest.raises(SessionError) as exc:
        services.session_run(session_id=session.pk, user=candidate, mode="debug")
    assert exc.value.code == "bad_mode"
