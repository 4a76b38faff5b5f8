"""Signals with measure (issue 36): a tab leave records how long the candidate was away (the
server's clock), a flicker under MIN_TAB_LEAVE_MS is not counted, and the review says the total
time away."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from interviews import services
from interviews.models import SessionEvent
from interviews.review.suggest import (
    MIN_TAB_LEAVE_MS,
    Signals,
    away_text,
    integrity_note,
    session_signals,
    tab_absences,
)
from tests.factories import tiny_problem, user_with_role

T0 = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_a_leave_runs_from_hidden_to_the_next_visible_and_an_open_one_to_the_end() -> None:
    hidden, visible = SessionEvent.Kind.TAB_HIDDEN, SessionEvent.Kind.TAB_VISIBLE
    events = [
        (hidden, at(10)),
        (visible, at(40)),
        (visible, at(41)),  # a repeated return
        (hidden, at(100)),
        (hidden, at(101)),
        (visible, at(101.5)),  # a repeated leave
        (hidden, at(200)),
    ]  # still away when the session ended
    assert tab_absences(events, at(260)) == [30_000, 1_500, 60_000]
    assert tab_absences([], at(0)) == []
    assert tab_absences([(visible, at(5))], at(10)) == []


def test_the_integrity_line_counts_leaves_of_two_seconds_or_more_and_says_the_time_away() -> None:
    assert MIN_TAB_LEAVE_MS == 2000
    signals = Signals(tab_leaves=2, tab_away_ms=185_000, short_tab_leaves=1)
    assert integrity_note(signals) == (
        "left the tab 2 times (3 min 5 s away in all); 1 shorter leave (under 2 s) not counted"
    )
    assert integrity_note(Signals()) == "no large paste, never left the tab"
    assert integrity_note(Signals(short_tab_leaves=2)) == (
        "no large paste, never left the tab; 2 shorter leaves (under 2 s) not counted"
    )
    assert [away_text(ms) for ms in (400, 59_400, 60_000, 3_720_000, 7_200_000)] == [
        "0 s",
        "59 s",
        "1 min",
        "1 h 2 min",
        "2 h",
    ]


@pytest.mark.django_db
def test_coming_back_records_the_time_away_on_the_servers_clock() -> None:
    interviewer = user_with_role("int", "interviewer")
    candidate = user_with_role("cand", "candidate")
    session = services.session_schedule_live(
        interviewer=interviewer, problem_slug=tiny_problem().slug, duration=timedelta(minutes=5)
    )
    assert session.invite_token
    services.session_join(token=session.invite_token, user=candidate)
    hidden = services.page_event_report(session_id=session.pk, user=candidate, kind="tab_hidden")
    assert hidden is not None
    SessionEvent.objects.filter(pk=hidden.pk).update(at=hidden.at - timedelta(seconds=12))
    back = services.page_event_report(session_id=session.pk, user=candidate, kind="tab_visible")
    assert back is not None and 12_000 <= back.data["away_ms"] < 60_000
    # A second return with no leave open is not a signal: nothing is recorded.
    again = services.page_event_report(session_id=session.pk, user=candidate, kind="tab_visible")
    assert again is None
    signals = session_signals(session)
    assert (signals.tab_leaves, signals.short_tab_leaves) == (1, 0)
    assert signals.tab_away_ms == back.data["away_ms"]
