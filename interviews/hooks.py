"""What the apps built on sessions add to the session pages, without interviews importing them.

The dependency rule (docs/architecture.md) forbids interviews to import loops; loops registers
here in its `AppConfig.ready` instead. The one place for every such hook:

* session blocks: a function of the request, the session and the viewer's role that returns
  rendered HTML, or "" for nothing (a loop round's "round 1 of 3" and its next round);
* list blocks: the same on the sessions list (the loop builder's link);
* next steps: what comes after a session for its candidate (a practice loop's next round), a
  `NextStep` or None; the first answer wins, and the page shows it beside "Read your feedback
  report" once the session is over: a button when the step changes something (a POST, with the
  CSRF token), a link otherwise;
* schedule keepers: who keeps a session's time when the session does not keep it alone (a loop
  round, moved and called off with the loop's other rounds), a `ScheduleKeeper` or None; the
  session's own schedule page then neither moves nor cancels it, and says where that is done;
  and what starts next there, so that more time past that start is said when it is given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.http import HttpRequest
from django.utils.safestring import SafeString

from interviews.models import InterviewSession


@dataclass(frozen=True)
class NextStep:
    url: str
    label: str
    post: bool = False  # a button posting to `url` (it starts something), else a link


@dataclass(frozen=True)
class ScheduleKeeper:
    what: str  # what the session is there, e.g. "round 2 of the loop “Staff ML infra”"
    where: str  # where it is moved or called off, e.g. "on the loop's page, with its rounds"
    url: str  # that page, for a viewer who may open it ("" otherwise)
    next_what: str = ""  # what starts after it there, e.g. "round 2 (ML debugging)"
    next_start: datetime | None = None  # when that starts (it keeps its time)


SessionBlock = Callable[[HttpRequest, InterviewSession, Any], SafeString | str]
ListBlock = Callable[[HttpRequest], SafeString | str]
NextStepResolver = Callable[[InterviewSession, Any], NextStep | None]
_session_blocks: list[SessionBlock] = []
_list_blocks: list[ListBlock] = []
_next_steps: list[NextStepResolver] = []
ScheduleKeeperResolver = Callable[[InterviewSession, Any], ScheduleKeeper | None]
_schedule_keepers: list[ScheduleKeeperResolver] = []


def session_block_register(block: SessionBlock) -> None:
    if block not in _session_blocks:
        _session_blocks.append(block)


def list_block_register(block: ListBlock) -> None:
    if block not in _list_blocks:
        _list_blocks.append(block)


def next_step_register(resolver: NextStepResolver) -> None:
    """Add a resolver (once: registering it again changes nothing)."""
    if resolver not in _next_steps:
        _next_steps.append(resolver)


def session_blocks(request: HttpRequest, session: InterviewSession, role: Any) -> list[Any]:
    """The registered blocks of a session's page, rendered (empty ones left out)."""
    return [html for block in _session_blocks if (html := block(request, session, role))]


def list_blocks(request: HttpRequest) -> list[Any]:
    """The registered blocks of the sessions list, rendered (empty ones left out)."""
    return [html for block in _list_blocks if (html := block(request))]


def next_step(session: InterviewSession, user: Any) -> NextStep | None:
    """The first registered answer for this session and user, or None."""
    for resolver in _next_steps:
        step = resolver(session, user)
        if step is not None:
            return step
    return None


def schedule_keeper_register(resolver: ScheduleKeeperResolver) -> None:
    """Add a resolver (once: registering it again changes nothing)."""
    if resolver not in _schedule_keepers:
        _schedule_keepers.append(resolver)


def schedule_keeper(session: InterviewSession, viewer: Any) -> ScheduleKeeper | None:
    """Who keeps this session's time besides the session itself, as `viewer` is told, or
    None."""
    for resolver in _schedule_keepers:
        keeper = resolver(session, viewer)
        if keeper is not None:
            return keeper
    return None
