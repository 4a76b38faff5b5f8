"""What comes after a session, as the apps built on sessions tell it (a practice loop's next
round): interviews never imports them (tests/test_dependencies.py), so each registers a
resolver here when it starts (its AppConfig.ready) and the session page asks.

A resolver takes the session and the user and answers a `NextStep` or None; the first answer
wins. The page shows it beside "Read your feedback report" once the session is over: a button
when the step changes something (a POST, with the CSRF token), a link otherwise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from interviews.models import InterviewSession


@dataclass(frozen=True)
class NextStep:
    url: str
    label: str
    post: bool = False  # a button posting to `url` (it starts something), else a link


Resolver = Callable[[InterviewSession, Any], NextStep | None]
_RESOLVERS: list[Resolver] = []


def register(resolver: Resolver) -> None:
    """Add a resolver (once: registering it again changes nothing)."""
    if resolver not in _RESOLVERS:
        _RESOLVERS.append(resolver)


def next_step(session: InterviewSession, user: Any) -> NextStep | None:
    """The first registered answer for this session and user, or None."""
    for resolver in _RESOLVERS:
        step = resolver(session, user)
        if step is not None:
            return step
    return None
