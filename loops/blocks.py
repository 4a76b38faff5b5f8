"""The loops' blocks on the session pages (registered in `interviews.hooks` by LoopsConfig):
a round's page says which loop it belongs to and leads to the next round; the sessions list
links the loop builder for those who build loops; a round's own schedule page sends its moves
and cancellations to the loop's page, where the other rounds are checked with it."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString

from interviews.hooks import ScheduleKeeper
from interviews.models import InterviewSession
from loops import access, selectors


def round_block(request: HttpRequest, session: InterviewSession, role: Any) -> SafeString | str:
    """On a loop round's page: "round 1 of 3", and the next round (its link for whoever may
    open it, and the loop page), for someone who sees the loop."""
    found = selectors.next_round_of(session)
    if found is None:
        return ""
    loop, after = found
    if not access.loop_visible(loop, request.user):
        return ""
    day = selectors.loop_day(loop, request.user)
    this = next((r for r in day.rounds if r.session_id == session.pk), None)
    following = (next((r for r in day.rounds if r.session_id == after.session_id), None)
                 if after is not None else None)
    return render_to_string("loops/_round_block.html", {
        "loop": loop, "day": day, "this": this, "following": following,
        "total": len(day.rounds)}, request=request)


def builder_link(request: HttpRequest) -> SafeString | str:
    if not access.loop_build_allowed(request.user):
        return ""
    return render_to_string("loops/_builder_link.html", request=request)


def round_schedule_keeper(session: InterviewSession, viewer: Any) -> ScheduleKeeper | None:
    """A loop round is moved and cancelled with its loop (never alone, from its own page: its
    neighbours would not be checked for overlap, nor the breaks and the itinerary redone);
    the round after it keeps its start when this one is given more time."""
    this = selectors.round_of(session)
    if this is None:
        return None
    loop, after = this.loop, selectors.round_after(this)
    following: dict[str, Any] = {}
    if after is not None and after.session.scheduled_for is not None:
        name = f" ({after.label})" if after.label else ""
        following = {"next_what": f"round {after.position}{name}",
                     "next_start": after.session.scheduled_for}
    return ScheduleKeeper(
        what=f"round {this.position} of the loop “{loop.title}”",
        where="on the loop's page, where no round may start before the one before it ends",
        url=reverse("loops:loop", args=[loop.pk]) if access.loop_visible(loop, viewer) else "",
        **following,
    )
