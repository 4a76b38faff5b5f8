"""The interviewer dashboard: the sessions a reviewer may review, filtered, sorted, paged.

Everything comes from GET parameters (a filtered view is a URL to share), parsed here once for
the page and the API. A bad parameter is ignored, never an error page: a stale or hand-edited
link still shows the dashboard.

Score and recommendation are computed from the submitted scorecards with the rubric's weights
(in `selectors`), which SQL cannot see; so the filtered sessions get their rows computed, then
are filtered by recommendation, sorted and cut into pages. That is a few queries per page
view (scorecards and their scores are prefetched), linear in the sessions the filters leave.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.core.paginator import Page, Paginator
from django.db.models import Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.dateparse import parse_date

from interviews.models import InterviewSession, Scorecard
from interviews.review import access
from interviews.review.selectors import (
    RECOMMENDATION_LABEL,
    RECOMMENDATION_VALUE,
    half_up,
    rubric_rows,
    rubric_weight,
)
from problems.models import Problem

PAGE_SIZE = 25
# Sort keys of the columns; a leading "-" sorts descending. "when" is the interview's time:
# when it started, else when it is scheduled for, else (neither yet) when it was created.
SORTS = ("when", "score", "candidate", "problem", "status", "recommendation")
DEFAULT_SORT = "-when"
# Links shared before the column was the interview's time still sort by it.
LEGACY_SORTS = {"created": "when", "-created": "-when"}
# The form's "Sort by" (the column headers sort too; on a phone the form is what shows).
SORT_CHOICES = (("-when", "Latest interview first"), ("when", "Earliest interview first"),
                ("-score", "Highest score"), ("score", "Lowest score"),
                ("-recommendation", "Strongest recommendation"),
                ("recommendation", "Weakest recommendation"), ("status", "Status"),
                ("candidate", "Candidate A–Z"), ("problem", "Problem A–Z"))
MINE = "me"
NO_RECOMMENDATION = "none"  # no submitted scorecard with a recommendation yet
MAX_TEXT_CHARS = 100


@dataclass(frozen=True)
class DashboardFilters:
    status: str = ""
    recommendation: str = ""
    problem: str = ""
    interviewer: str = ""  # "", MINE, or an interviewer's username
    candidate: str = ""  # text searched in the candidate's name, username and e-mail
    date_from: date | None = None
    date_to: date | None = None
    sort: str = DEFAULT_SORT
    page: int = 1
    tz: str = "UTC"  # the viewer's zone (the page's script sends it): what a date means

    @property
    def active(self) -> bool:
        """Any filter set (the sort, the page and the zone are not filters)."""
        return self != replace(DashboardFilters(), sort=self.sort, page=self.page, tz=self.tz)


def recommendation_choices() -> list[tuple[str, str]]:
    return [(v, label) for v, label in Scorecard.Recommendation.choices if v] + [
        (NO_RECOMMENDATION, "Not scored yet")]


def _date(raw: Any) -> date | None:
    try:
        return parse_date(str(raw or "").strip())
    except ValueError:
        return None


def _choice(raw: Any, allowed: list[str]) -> str:
    value = str(raw or "").strip()
    return value if value in allowed else ""


def _page(raw: Any) -> int:
    text = str(raw or "").strip()
    return int(text) if text.isdigit() and 0 < int(text) < 100_000 else 1


def zone_name(raw: Any) -> str:
    """An IANA zone name the server knows, else UTC (a page's script sends the viewer's)."""
    name = str(raw or "").strip()[:MAX_TEXT_CHARS]
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return "UTC"
    return name


def dashboard_filters_parse(*, params: Any) -> DashboardFilters:
    """Filters from a query string; anything unknown or malformed is dropped."""
    sort = str(params.get("sort") or "").strip()
    sort = LEGACY_SORTS.get(sort, sort)
    return DashboardFilters(
        status=_choice(params.get("status"), list(InterviewSession.Status.values)),
        recommendation=_choice(params.get("recommendation"),
                               [v for v, _ in recommendation_choices()]),
        problem=str(params.get("problem") or "").strip()[:MAX_TEXT_CHARS],
        interviewer=str(params.get("interviewer") or "").strip()[:MAX_TEXT_CHARS],
        candidate=str(params.get("candidate") or "").strip()[:MAX_TEXT_CHARS],
        date_from=_date(params.get("from")),
        date_to=_date(params.get("to")),
        sort=sort if sort.lstrip("-") in SORTS else DEFAULT_SORT,
        page=_page(params.get("page")),
        tz=zone_name(params.get("tz")),
    )


def _status_q(status: str) -> Q:
    """The status as the dashboard shows it (`status_now`): a running session past its
    deadline is finished already, before the sweeper stores that."""
    over = Q(status=InterviewSession.Status.ACTIVE, deadline__lte=timezone.now())
    if status == InterviewSession.Status.FINISHED:
        return Q(status=status) | over
    if status == InterviewSession.Status.ACTIVE:
        return Q(status=status) & ~over
    return Q(status=status)


def dashboard_sessions(*, user: Any, filters: DashboardFilters) -> QuerySet[InterviewSession]:
    """The sessions the user may review that the SQL-side filters keep; newest first."""
    qs = access.sessions_for_review(user)
    if filters.status:
        qs = qs.filter(_status_q(filters.status))
    if filters.problem:
        qs = qs.filter(problem__slug=filters.problem)
    if filters.interviewer == MINE:
        qs = qs.filter(Q(interviewer=user) | Q(review_assignments__interviewer=user))
    elif filters.interviewer:
        qs = qs.filter(Q(interviewer__username=filters.interviewer)
                       | Q(review_assignments__interviewer__username=filters.interviewer))
    if filters.candidate:
        text = filters.candidate
        qs = qs.filter(Q(candidate__username__icontains=text)
                       | Q(candidate__first_name__icontains=text)
                       | Q(candidate__last_name__icontains=text)
                       | Q(candidate__email__icontains=text)
                       | Q(candidate_email__icontains=text))
    qs = qs.annotate(interview_at=Coalesce("started_at", "scheduled_for", "created_at"))
    if filters.date_from:
        qs = qs.filter(interview_at__gte=_day_start(filters.date_from, filters.tz))
    if filters.date_to:
        qs = qs.filter(interview_at__lt=_day_start(filters.date_to + timedelta(days=1),
                                                   filters.tz))
    return qs.distinct().order_by("-interview_at", "-id")


def _day_start(day: date, zone: str) -> datetime:
    """Midnight of `day` in the viewer's zone, as a UTC moment (a day's range is theirs)."""
    return datetime.combine(day, time.min, tzinfo=ZoneInfo(zone)).astimezone(UTC)


def interview_time(session: InterviewSession) -> tuple[datetime, str]:
    """When the interview is (or was): its start, else its schedule, else its creation; and
    which of those it is."""
    if session.started_at:
        return session.started_at, "started"
    if session.scheduled_for:
        return session.scheduled_for, "scheduled"
    return session.created_at, "created"


def dashboard_rows(*, sessions: QuerySet[InterviewSession]) -> list[dict[str, Any]]:
    """One row per session: the submitted scorecards' weighted level and consensus
    recommendation (for reviewers, released or not) and how many are in."""
    labels = dict(Scorecard.Recommendation.choices)
    rows = []
    for session in sessions.prefetch_related("scorecards__scores"):
        weights = {r["criterion"]: rubric_weight(r["weight"]) for r in rubric_rows(session)}
        cards = list(session.scorecards.all())
        submitted = [c for c in cards if c.submitted_at is not None]
        levels = [(weights.get(s.criterion, 1.0), s.level) for c in submitted
                  for s in c.scores.all() if s.level]
        total = sum(w for w, _ in levels)
        score = round(sum(w * lv for w, lv in levels) / total, 1) if total else None
        recs = [RECOMMENDATION_VALUE[c.recommendation] for c in submitted
                if c.recommendation in RECOMMENDATION_VALUE]
        value = half_up(sum(recs) / len(recs)) if recs else 0
        rec = RECOMMENDATION_LABEL[value] if recs else ""
        # A panel split between a yes and a no is not one word (half up would read "Yes"):
        # each choice is shown with how many chose it.
        split = ([{"value": v, "label": labels[RECOMMENDATION_LABEL[v]], "count": recs.count(v)}
                  for v in sorted(set(recs), reverse=True)]
                 if recs and min(recs) <= 2 < max(recs) else [])
        when, when_kind = interview_time(session)
        rows.append({"session": session, "status": session.status_now(), "score": score,
                     "when": when, "when_kind": when_kind,
                     # Not labels[""]: the empty choice is labelled "None", not blank.
                     "recommendation": labels[rec] if rec else "",
                     "rec_key": rec or NO_RECOMMENDATION, "rec_value": value, "split": split,
                     "submitted": len(submitted), "cards": len(cards)})
    return rows


_SORT_KEYS: dict[str, Any] = {
    "when": lambda r: r["when"],
    # Unscored sessions sort below every score, whichever way.
    "score": lambda r: (r["score"] is not None, r["score"] or 0),
    "candidate": lambda r: r["session"].candidate.get_username().lower()
    if r["session"].candidate else "",
    "problem": lambda r: r["session"].problem.title.lower(),
    "status": lambda r: r["status"],
    "recommendation": lambda r: r["rec_value"],
}


def dashboard_rows_sort(*, rows: list[dict[str, Any]], sort: str) -> list[dict[str, Any]]:
    """Rows by a sort key ("-" descending); ties keep the latest interview first."""
    ordered = sorted(rows, key=lambda r: (r["when"], r["session"].pk), reverse=True)
    sort = LEGACY_SORTS.get(sort, sort)
    return sorted(ordered, key=_SORT_KEYS[sort.lstrip("-")], reverse=sort.startswith("-"))


def dashboard_page(*, user: Any, filters: DashboardFilters) -> Page[dict[str, Any]]:
    """The page of rows the filters ask for (a page past the end is the last one)."""
    rows = dashboard_rows(sessions=dashboard_sessions(user=user, filters=filters))
    if filters.recommendation:
        rows = [r for r in rows if r["rec_key"] == filters.recommendation]
    rows = dashboard_rows_sort(rows=rows, sort=filters.sort)
    return Paginator(rows, PAGE_SIZE).get_page(filters.page)


def dashboard_interviewers(*, user: Any) -> list[str]:
    """Usernames of the interviewers of the sessions the user may review (the filter's list)."""
    sessions = access.sessions_for_review(user).exclude(interviewer=None)
    return sorted(set(sessions.values_list("interviewer__username", flat=True)))


def dashboard_problems(*, user: Any) -> QuerySet[Problem]:
    """The problem filter's list: the problems of the sessions the user may review, and the
    problems the policy lets them see (`Problem.objects.visible_to`): never another author's
    draft."""
    reviewed = access.sessions_for_review(user).values("problem_id")
    shown = Problem.objects.visible_to(user).values("pk")
    return (Problem.objects.filter(Q(pk__in=reviewed) | Q(pk__in=shown))
            .order_by("title").only("slug", "title"))
