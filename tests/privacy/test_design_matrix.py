"""The visibility matrix for a design round (issue 29): the reference design (its Markdown text
and its board's text elements) carries a marker, read on every channel as every viewer.

A design problem's reference design is private exactly as a reference solution is
(`core.visibility.REFERENCE_SOLUTION`): the session page renders it in the interviewer's
cockpit, the admin's problem page holds it, nothing else renders it. The candidate's own
drawing goes where the report goes, and its picture's URLs follow the report's access rules;
a share link carries the final diagram (`SHARE_LINK_SECTIONS` "board") but not the notes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User

from core import visibility
from core.visibility import Channel, Viewer
from interviews import services
from interviews.review import services as review_services
from interviews.review.selectors import DESIGN_SECTIONS, report_data
from tests.factories import client_for, user_with_role
from tests.interviews.worlds import (
    DRAWN,
    NOTES,
    REF_BOARD,
    REF_TEXT,
    DesignWorld,
    design_world,
    scores,
)
from tests.interviews.ydoc_client import YClient
from tests.pdf import pdf_text
from tests.sockets import run_scenario

pytestmark = pytest.mark.django_db(transaction=True)

REF = visibility.REFERENCE_SOLUTION
MARKERS = (REF_TEXT, REF_BOARD)
VIEWERS: dict[str, Viewer] = {
    "candidate": Viewer.CANDIDATE,
    "assigned": Viewer.ASSIGNED,
    "unassigned": Viewer.UNASSIGNED,
    "author": Viewer.AUTHOR,
    "admin": Viewer.ADMIN,
    "other": Viewer.OTHER,
    "anonymous": Viewer.ANONYMOUS,
    "share_link": Viewer.SHARE_LINK,
}
PARTICIPANTS = {"candidate", "assigned"}
READERS = {"candidate", "assigned", "admin"}
# channel → (Channel, URL template, renders the reference design?, viewers who get a 200).
LIVE_CHANNELS: dict[str, tuple[Channel, str, bool, set[str]]] = {
    "session page": (Channel.PAGE, "/sessions/{id}/", True, PARTICIPANTS),
    "session state": (Channel.JSON, "/sessions/{id}/state", False, PARTICIPANTS),
    "board moment": (
        Channel.REPORT,
        "/sessions/{id}/report/board.svg?t=360000",
        False,
        {"assigned", "admin"},
    ),
}
SIGNED_IN = set(VIEWERS) - {"anonymous", "share_link"}
FINISHED_CHANNELS: dict[str, tuple[Channel, str, bool, set[str]]] = {
    "session page": (Channel.PAGE, "/sessions/{id}/", True, PARTICIPANTS),
    # The problem's own pages (helper P's): its statement, never its reference design.
    "problem page": (Channel.PAGE, "/problems/{slug}/", False, SIGNED_IN),
    "problem list": (Channel.PAGE, "/", False, set(VIEWERS)),
    "review page": (Channel.PAGE, "/sessions/{id}/review/", False, {"assigned", "admin"}),
    "admin problem page": (
        Channel.PAGE,
        "/admin/problems/problem/{problem}/change/",
        True,
        {"admin"},
    ),
    "replay page": (Channel.REPLAY, "/sessions/{id}/replay/", False, READERS),
    "replay data": (Channel.REPLAY, "/sessions/{id}/replay/data", False, READERS),
    "api review session": (Channel.API, "/api/review/sessions/{id}", False, READERS),
    "api review scores": (Channel.API, "/api/review/sessions/{id}/scores", False, READERS),
    "api review report": (Channel.API, "/api/review/sessions/{id}/report", False, READERS),
    "report": (Channel.REPORT, "/sessions/{id}/report/", False, READERS),
    "report pdf": (Channel.PDF, "/sessions/{id}/report.pdf", False, READERS),
    "report board": (Channel.REPORT, "/sessions/{id}/report/board.svg", False, READERS),
    "board moment": (Channel.REPORT, "/sessions/{id}/report/board.svg?t=360000", False, READERS),
    "share link": (Channel.SHARE_LINK, "/sessions/shared/{token}/", False, set(VIEWERS)),
    "share link pdf": (Channel.SHARE_LINK, "/sessions/shared/{token}/pdf", False, set(VIEWERS)),
    "share link board": (
        Channel.SHARE_LINK,
        "/sessions/shared/{token}/board.svg",
        False,
        set(VIEWERS),
    ),
}


def _users(world: DesignWorld) -> dict[str, User | None]:
    return {
        "candidate": world.candidate,
        "assigned": world.interviewer,
        "unassigned": world.unassigned,
        "author": user_with_role("author", "author"),
        "admin": world.admin,
        "other": world.other,
        "anonymous": None,
        "share_link": None,
    }


def _read(user: User | None, url: str) -> tuple[bool, str]:
    response = client_for(user).get(url)
    body = response.content
    text = pdf_text(body) if body.startswith(b"%PDF") else body.decode(errors="replace")
    return response.status_code == 200, text


def _check(
    world: DesignWorld,
    channels: dict[str, tuple[Channel, str, bool, set[str]]],
    users: dict[str, User | None],
) -> list[str]:
    ids = {
        "id": world.session.pk,
        "problem": world.session.problem_id,
        "slug": world.session.problem.slug,
        "token": world.share.token if world.share else "",
    }
    failures = []
    for name, viewer in VIEWERS.items():
        for channel_name, (channel, template, renders, opens) in channels.items():
            opened, text = _read(users[name], template.format(**ids))
            if opened != (name in opens):
                failures.append(f"{name} on {channel_name}: opened={opened}")
            expected = renders and opened and visibility.may_see(REF, viewer, channel)
            for marker in MARKERS:
                if channel_name == "admin problem page" and marker == REF_BOARD:
                    # The admin may see it; whether its form shows the JSON field is the
                    # admin's layout (helper P's), so only a leak would matter here.
                    continue
                if (marker in text) != expected:
                    failures.append(
                        f"{name} on {channel_name}: {marker} shown="
                        f"{marker in text} expected={expected}"
                    )
    return failures


def _socket_text(user: User, world: DesignWorld) -> str:
    """Everything the user's document socket carries: the synced document (code, board and
    notes) and every JSON event, while the interviewer acts and then ends the round."""

    async def scenario() -> str:
        watcher = YClient(user, world.session.pk)
        await watcher.connect()
        await watcher.drain()

        def act() -> None:
            services.chat_send(
                session_id=world.session.pk, user=world.interviewer, text="walk me through it"
            )
            services.session_finish_by(session_id=world.session.pk, user=world.interviewer)

        await database_sync_to_async(act)()
        await watcher.drain(timeout=1.0)
        await watcher.disconnect()
        doc: dict[str, Any] = {
            name: watcher.doc.get(name, type=kind).to_py()
            for name, kind in (("board", _map()), ("notes", _text()))
        }
        return json.dumps(doc) + "\n" + "\n".join(json.dumps(e) for e in watcher.events)

    return run_scenario(scenario)


def _map() -> Any:
    import pycrdt

    return pycrdt.Map


def _text() -> Any:
    import pycrdt

    return pycrdt.Text


def test_the_reference_design_appears_exactly_where_the_reference_row_allows() -> None:
    world = design_world(finish=False)
    users = _users(world)
    failures = _check(world, LIVE_CHANNELS, users)
    # The candidate's socket syncs the board they draw on: never the reference board.
    frames = _socket_text(world.candidate, world)
    assert DRAWN in frames and NOTES in frames  # the search does read the synced board
    failures += [f"candidate socket: {m}" for m in MARKERS if m in frames]
    world.session.refresh_from_db()
    world.share = review_services.share_create(session=world.session, user=world.candidate)
    review_services.scorecard_save(
        session=world.session,
        user=world.interviewer,
        recommendation="yes",
        summary="Clear.",
        scores=scores(["moment:360000"]),
        submit=True,
    )
    review_services.scores_release(session=world.session, user=world.interviewer)
    failures += _check(world, FINISHED_CHANNELS, users)
    assert failures == [], "\n".join(failures)


def test_the_candidates_drawing_goes_where_the_report_goes() -> None:
    world = design_world()
    users = _users(world)
    for name in VIEWERS:
        for channel_name in ("report board", "share link board", "report pdf", "share link pdf"):
            _, template, _, opens = FINISHED_CHANNELS[channel_name]
            opened, text = _read(
                users[name], template.format(id=world.session.pk, token=world.share.token)
            )
            assert opened == (name in opens), (name, channel_name)
            assert (DRAWN in text) == opened, (name, channel_name)


def test_a_share_link_carries_the_diagram_and_not_the_design_notes() -> None:
    """ "board" is a share-link section (the candidate's drawing: their final code);
    "board_notes" is not (the report's promise: never your notes)."""
    assert "board" in visibility.SHARE_LINK_SECTIONS
    assert "board_notes" not in visibility.SHARE_LINK_SECTIONS
    world = design_world()
    own = report_data(world.session)
    shared = report_data(world.session, Channel.SHARE_LINK)
    assert set(DESIGN_SECTIONS) == {"board", "board_notes"}
    assert own["board"] and shared["board"] == own["board"]
    assert own["board_notes"] == NOTES and shared["board_notes"] == ""
    _, text = _read(None, f"/sessions/shared/{world.share.token}/")
    assert NOTES not in text
