"""The interviewer dashboard's filters, sorting and pages (interviews/review/dashboard.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.http import QueryDict
from django.utils import timezone

from interviews.models import InterviewSession, ReviewAssignment
from interviews.review import dashboard, services
from interviews.review.dashboard import DashboardFilters
from tests.factories import client_for, user_with_role
from tests.interviews.worlds import World, build_world, full_scores

pytestmark = pytest.mark.django_db


def _session(world: World, **fields: Any) -> InterviewSession:
    defaults: dict[str, Any] = {
        "problem": world.session.problem,
        "candidate": world.other,
        "interviewer": world.assigned,
        "kind": "live",
        "status": "finished",
        "duration": timedelta(minutes=30),
    }
    return InterviewSession.objects.create(**(defaults | fields))


def _ids(world: World, user: Any = None, **filters: Any) -> list[int]:
    page = dashboard.dashboard_page(
        user=user or world.assigned, filters=DashboardFilters(**filters)
    )
    return [row["session"].pk for row in page.object_list]


def _scored(world: World, session: InterviewSession, level: int, recommendation: str) -> None:
    services.scorecard_save(
        session=session,
        user=world.assigned,
        recommendation=recommendation,
        summary="",
        scores=full_scores(level),
        submit=True,
    )


# ---------------------------------------------------------------- parsing


def test_parsing_keeps_known_values_and_drops_the_rest() -> None:
    params = QueryDict(
        "status=finished&recommendation=yes&problem=p&interviewer=me"
        "&candidate=%20ada%20&from=2026-01-02&to=2026-13-40&sort=-score&page=3"
    )
    filters = dashboard.dashboard_filters_parse(params=params)
    assert filters == DashboardFilters(
        status="finished",
        recommendation="yes",
        problem="p",
        interviewer="me",
        candidate="ada",
        date_from=filters.date_from,
        date_to=None,
        sort="-score",
        page=3,
    )
    assert str(filters.date_from) == "2026-01-02" and filters.active
    bad = dashboard.dashboard_filters_parse(
        params=QueryDict("status=evil&recommendation=maybe&sort=password&page=-1&from=yesterday")
    )
    assert bad == DashboardFilters() and not bad.active
    assert not DashboardFilters(sort="score", page=4).active  # sorting is not filtering


# ---------------------------------------------------------------- filters


def test_status_filters_read_the_clock_like_the_status_column() -> None:
    world = build_world()
    now = timezone.now()
    overdue = _session(
        world,
        status="active",
        started_at=now - timedelta(hours=1),
        deadline=now - timedelta(minutes=1),
    )
    running = _session(world, status="active", started_at=now, deadline=now + timedelta(minutes=30))
    scheduled = _session(world, status="scheduled")
    assert set(_ids(world, status="finished")) == {world.session.pk, overdue.pk}
    assert _ids(world, status="active") == [running.pk]
    assert _ids(world, status="scheduled") == [scheduled.pk]


def test_recommendation_filter_uses_the_consensus_and_none_means_not_scored() -> None:
    world = build_world()
    low = _session(world)
    unscored = _session(world)
    _scored(world, world.session, 3, "yes")
    _scored(world, low, 1, "strong_no")
    assert _ids(world, recommendation="yes") == [world.session.pk]
    assert _ids(world, recommendation="strong_no") == [low.pk]
    assert _ids(world, recommendation="none") == [unscored.pk]
    assert _ids(world, recommendation="strong_yes") == []
    page = client_for(world.assigned).get("/sessions/review/").content.decode()
    row = page[page.index(f'data-session="{unscored.pk}"') :]
    assert '<td class="rec-cell" data-label="Recommendation"><span class="muted">—</span>' in row


def test_interviewer_filter_mine_and_by_name() -> None:
    world = build_world()
    second = user_with_role("second", "interviewer")
    theirs = _session(world, interviewer=second)
    panel = _session(world, interviewer=second)
    ReviewAssignment.objects.create(session=panel, interviewer=world.assigned)
    # An admin sees all three; "mine" is what the reader interviews or is on the panel of.
    assert set(_ids(world, world.admin)) == {world.session.pk, theirs.pk, panel.pk}
    assert set(_ids(world, world.assigned, interviewer="me")) == {world.session.pk, panel.pk}
    assert _ids(world, world.admin, interviewer="me") == []
    assert set(_ids(world, world.admin, interviewer="second")) == {theirs.pk, panel.pk}
    # Filtering never widens what a reader may review.
    assert _ids(world, world.assigned, interviewer="second") == [panel.pk]
    assert dashboard.dashboard_interviewers(user=world.admin) == ["assigned", "second"]


def test_candidate_search_reads_name_username_and_email() -> None:
    world = build_world()
    world.other.first_name, world.other.email = "Grace", "grace@example.com"
    world.other.save()
    invited = _session(
        world, candidate=None, status="scheduled", candidate_email="linus@example.org"
    )
    grace = _session(world)
    assert _ids(world, candidate="GRAC") == [grace.pk]
    assert _ids(world, candidate="example.org") == [invited.pk]
    assert _ids(world, candidate="own") == [world.session.pk]  # the username "owner"
    assert _ids(world, candidate="nobody") == []


def test_date_range_is_inclusive() -> None:
    world = build_world()
    old = _session(world)
    InterviewSession.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(days=10)
    )
    # The days the two interviews fell on (UTC, the filters' default zone): the world's began
    # half an hour ago, which is yesterday in the first half hour of a day.
    assert world.session.started_at is not None
    day = world.session.started_at.astimezone(UTC).date()
    old_day = (timezone.now() - timedelta(days=10)).astimezone(UTC).date()
    assert _ids(world, date_from=day) == [world.session.pk]
    assert _ids(world, date_to=old_day) == [old.pk]
    assert set(_ids(world, date_from=old_day, date_to=day)) == {world.session.pk, old.pk}


# ---------------------------------------------------------------- sorting and pages


def test_sorting_by_score_recommendation_and_status_puts_unscored_last() -> None:
    world = build_world()
    low = _session(world)
    unscored = _session(world, status="scheduled")
    _scored(world, world.session, 4, "strong_yes")
    _scored(world, low, 2, "no")
    assert _ids(world, sort="-score") == [world.session.pk, low.pk, unscored.pk]
    assert _ids(world, sort="score") == [unscored.pk, low.pk, world.session.pk]
    assert _ids(world, sort="-recommendation") == [world.session.pk, low.pk, unscored.pk]
    assert _ids(world, sort="status")[-1] == unscored.pk
    assert _ids(world, sort="-when")[0] == unscored.pk
    assert _ids(world, sort="-created") == _ids(world, sort="-when")  # an old link still sorts


def test_the_interview_time_is_the_start_else_the_schedule_never_the_creation() -> None:
    """Issue 27: the dashboard filtered and sorted by when a session was created."""
    world = build_world()
    now = timezone.now()
    # Created long ago, interviewed next week; created today, interviewed two weeks ago.
    later = _session(world, status="scheduled", scheduled_for=now + timedelta(days=7))
    InterviewSession.objects.filter(pk=later.pk).update(created_at=now - timedelta(days=30))
    earlier = _session(world, started_at=now - timedelta(days=14))
    today = timezone.localdate()
    assert _ids(world, sort="-when") == [later.pk, world.session.pk, earlier.pk]
    assert _ids(world, sort="when") == [earlier.pk, world.session.pk, later.pk]
    assert _ids(world, date_from=today + timedelta(days=7)) == [later.pk]
    assert _ids(world, date_to=today - timedelta(days=14)) == [earlier.pk]
    assert (
        _ids(world, date_from=today - timedelta(days=30), date_to=today - timedelta(days=20)) == []
    )  # later's creation is no match
    rows = {
        r["session"].pk: r
        for r in dashboard.dashboard_page(
            user=world.assigned, filters=DashboardFilters()
        ).object_list
    }
    assert rows[later.pk]["when_kind"] == "scheduled" and rows[earlier.pk]["when_kind"] == "started"


def test_a_date_is_a_day_of_the_viewers_zone() -> None:
    world = build_world()
    # 23:30 UTC on 1 March is already 2 March in Tokyo.
    moment = datetime(2026, 3, 1, 23, 30, tzinfo=UTC)
    late = _session(world, started_at=moment)
    march_2 = moment.date() + timedelta(days=1)
    assert late.pk not in _ids(world, date_from=march_2, date_to=march_2)
    assert _ids(world, date_from=march_2, date_to=march_2, tz="Asia/Tokyo") == [late.pk]
    parsed = dashboard.dashboard_filters_parse(params=QueryDict("tz=Asia/Tokyo"))
    assert parsed.tz == "Asia/Tokyo" and not parsed.active
    for bad in ("Mars/Olympus", "../../etc/passwd", "", "x" * 300):
        assert dashboard.dashboard_filters_parse(params=QueryDict(f"tz={bad}")).tz == "UTC"


def test_a_split_panel_shows_each_choice_not_one_word() -> None:
    """Issue 27: one Yes and one No read as "Yes" (the mean, half up)."""
    world = build_world()
    second = user_with_role("second", "interviewer")
    services.reviewer_assign(session=world.session, user=world.admin, username="second")
    _scored(world, world.session, 3, "yes")
    services.scorecard_save(
        session=world.session,
        user=second,
        recommendation="no",
        summary="",
        scores=full_scores(2),
        submit=True,
    )
    row = dashboard.dashboard_page(user=world.assigned, filters=DashboardFilters()).object_list[0]
    assert [(r["label"], r["count"]) for r in row["split"]] == [("Yes", 1), ("No", 1)]
    page = client_for(world.assigned).get("/sessions/review/").content.decode()
    assert "Split:" in page and "1 × Yes" in page and "1 × No" in page


def test_pages_of_25_and_a_page_past_the_end_is_the_last() -> None:
    world = build_world()
    for _ in range(30):
        _session(world)
    first = dashboard.dashboard_page(user=world.assigned, filters=DashboardFilters())
    assert len(first.object_list) == 25 and first.paginator.count == 31
    second = dashboard.dashboard_page(user=world.assigned, filters=DashboardFilters(page=2))
    assert len(second.object_list) == 6
    assert {r["session"].pk for r in first.object_list}.isdisjoint(
        r["session"].pk for r in second.object_list
    )
    assert (
        dashboard.dashboard_page(user=world.assigned, filters=DashboardFilters(page=99)).number == 2
    )


# ---------------------------------------------------------------- the page


def test_the_page_keeps_filters_in_its_links_and_says_when_nothing_matches() -> None:
    world = build_world()
    for _ in range(30):
        _session(world)
    client = client_for(world.assigned)
    page = client.get("/sessions/review/?status=finished&candidate=oth").content.decode()
    assert "30 sessions match the filters · page 1 of 2" in page
    assert 'href="?status=finished&amp;candidate=oth&amp;page=2"' in page
    # A sort link keeps the filters and goes back to page 1.
    assert 'href="?status=finished&amp;candidate=oth&amp;sort=-score"' in page
    assert '<option value="finished" selected>' in page and 'value="oth"' in page
    empty = client.get("/sessions/review/?candidate=nobody").content.decode()
    assert 'id="review-empty"' in empty and "No sessions match these filters" in empty
    assert 'id="review-sessions"' not in empty
    fresh = client_for(user_with_role("fresh", "interviewer")).get("/sessions/review/")
    assert "Nothing to review yet" in fresh.content.decode()
    assert client.get("/sessions/review/?page=abc&from=x&sort=zzz").status_code == 200
    # A NUL is refused at the door (core.textguard: PostgreSQL cannot hold it), clearly.
    assert client.get("/sessions/review/?page=abc&from=x&sort=%00").status_code == 400
    assert client_for(world.owner).get("/sessions/review/").status_code == 403


# ---------------------------------------------------------------- the filters' own lists


def test_the_problem_filter_lists_only_problems_the_viewer_may_see() -> None:
    """Issue 25: another author's draft never reaches an interviewer's filter; one's own draft
    and the problems of the sessions one reviews do; an admin's filter lists every problem."""
    from problems.models import Problem

    world = build_world()
    theirs = Problem.objects.create(
        slug="their-draft",
        title="THEIR-DRAFT",
        statement_md="x",
        reference_code="pass",
        owner=user_with_role("writer", "author"),
    )
    mine = Problem.objects.create(
        slug="my-draft",
        title="MY-DRAFT",
        statement_md="x",
        reference_code="pass",
        owner=world.assigned,
    )
    withdrawn = world.session.problem
    Problem.objects.filter(pk=withdrawn.pk).update(published=False)  # reviewed, unpublished
    listed = set(dashboard.dashboard_problems(user=world.assigned))
    assert theirs not in listed and {mine, withdrawn} <= listed
    assert theirs not in set(dashboard.dashboard_problems(user=world.unassigned))
    assert withdrawn not in set(dashboard.dashboard_problems(user=world.unassigned))
    assert {theirs, mine, withdrawn} <= set(dashboard.dashboard_problems(user=world.admin))
    page = client_for(world.assigned).get("/sessions/review/").content.decode()
    assert "MY-DRAFT" in page and "THEIR-DRAFT" not in page
