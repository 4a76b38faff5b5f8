"""A three-round loop built through the loop service, for the loops tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from icalendar import Calendar

from loops.models import Loop
from loops.services.scheduling import RoundPlan, loop_schedule
from problems.models import Problem
from tests.factories import tiny_problem, user_with_role

SITE = "https://onsite.test"


def interviewer(name: str) -> User:
    """The interviewer `name` (made once), with an e-mail address."""
    found = User.objects.filter(username=name).first()
    if found is not None:
        return found
    user = user_with_role(name, "interviewer")
    user.email = f"{name}@example.com"
    user.save()
    return user


def first_start() -> datetime:
    """Tomorrow at 09:00 UTC (whole minutes, as a form gives them)."""
    day = (timezone.now() + timedelta(days=1)).astimezone(UTC).date()
    return datetime(day.year, day.month, day.day, 9, 0, tzinfo=UTC)


def three_rounds(by: Any = None, *, email: str = "ada@example.com", candidate: str = "",
                 **extra: Any) -> Loop:
    """Coding 45 min, a 15-minute break, debugging 30 min, a 30-minute break, design 45 min;
    three interviewers (ivy, max, zoe), zoe also on the coding round's panel."""
    if not Problem.objects.filter(slug="add-one").exists():
        tiny_problem()
    ivy, _, _ = interviewer("ivy"), interviewer("max"), interviewer("zoe")
    start = first_start()
    rounds = [
        RoundPlan(problem="add-one", interviewer="ivy", start=start,
                  duration=timedelta(minutes=45), label="Coding", co_interviewers=("zoe",)),
        RoundPlan(problem="add-one", interviewer="max", start=start + timedelta(minutes=60),
                  duration=timedelta(minutes=30), label="ML debugging"),
        RoundPlan(problem="add-one", interviewer="zoe", start=start + timedelta(minutes=120),
                  duration=timedelta(minutes=45), label="System design"),
    ]
    return loop_schedule(by=by or ivy, title="ML infrastructure onsite", rounds=rounds,
                         candidate_email=email, candidate=candidate,
                         candidate_timezone="Europe/Berlin", site=SITE, **extra)


def calendar_of(message: EmailMessage) -> tuple[Calendar, list[Any], str]:
    """The parsed .ics of a mail, its VEVENTs, and the attachment's `method` parameter."""
    (part,) = [p for p in message.iter_attachments() if p.get_filename() == "loop.ics"]
    assert part.get_content_type() == "text/calendar"
    raw = part.get_content()
    calendar = Calendar.from_ical(raw if isinstance(raw, bytes) else raw.encode())
    return calendar, list(calendar.walk("VEVENT")), str(part.get_param("method"))
