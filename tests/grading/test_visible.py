"""One builder for what a viewer sees of a test (issue 25): every channel gives the same
redaction for each role.

A finished live session's final submission has two public tests and three hidden ones (their
input is a marker). For each role, the JSON API, the websocket a late joiner reads, the review
page and its JSON, and the report with its PDF are read for real; each must show exactly the
tests `grading.visible.graded_tests_view` builds for that role from the policy, no more and no
less, with the same fields wherever the channel is JSON.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User

from config.routing import websocket_urlpatterns
from core.visibility import Channel, Viewer
from grading import visible
from tests.factories import client_for
from tests.interviews.worlds import SECRET_INPUT, World, build_world
from tests.pdf import pdf_text
from tests.sockets import WithUser, run_scenario

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = ("public 0", "public 1", "secret 0", "secret 1", "secret 2")  # the final's tests


def _roles(world: World) -> dict[str, tuple[User, Viewer]]:
    return {
        "candidate": (world.owner, Viewer.CANDIDATE),
        "assigned": (world.assigned, Viewer.ASSIGNED),
        "admin": (world.admin, Viewer.ADMIN),
    }


def _expected(world: World, viewer: Viewer, channel: Channel) -> list[dict[str, Any]]:
    return visible.graded_tests_view(
        world.final.results.order_by("index"), audience=visible.Audience.of(viewer, channel)
    )


async def _socket_tests(user: User, submission_id: int) -> list[dict[str, Any]]:
    communicator = WebsocketCommunicator(
        WithUser(URLRouter(websocket_urlpatterns), user), f"/ws/submissions/{submission_id}/"
    )
    connected, _ = await communicator.connect(timeout=30)
    assert connected
    events: list[dict[str, Any]] = []
    while not events or events[-1].get("type") != "done":
        events.append(json.loads(await communicator.receive_from(timeout=5)))
    await communicator.disconnect()
    return [{k: v for k, v in e.items() if k != "type"} for e in events if e["type"] == "test"]


def _shown(text: str) -> set[str]:
    return {name for name in NAMES if name in text}


def test_the_api_and_the_websocket_carry_the_builders_view_for_every_role() -> None:
    world = build_world()
    for role, (user, viewer) in _roles(world).items():
        api = client_for(user).get(f"/api/submissions/{world.final.pk}").json()["tests"]
        assert api == _expected(world, viewer, Channel.API), role
        socket = run_scenario(_socket_tests, user, world.final.pk)
        assert socket == _expected(world, viewer, Channel.WEBSOCKET) == api, role
        review = client_for(user).get(f"/api/review/sessions/{world.session.pk}").json()
        final_run = next(run for run in review["runs"] if run["id"] == world.final.pk)
        assert final_run["tests"] == api, role
        hidden_shown = any(test["hidden"] for test in api)
        assert hidden_shown == (role != "candidate"), role
        assert (SECRET_INPUT in json.dumps(api)) == hidden_shown, role


def test_the_review_page_and_the_report_with_its_pdf_redact_as_the_builder_does() -> None:
    world = build_world()
    public = {t["name"] for t in _expected(world, Viewer.CANDIDATE, Channel.REPORT)}
    assert public == {"public 0", "public 1"}
    for role, (user, viewer) in _roles(world).items():
        client = client_for(user)
        page = client.get(f"/sessions/{world.session.pk}/review/")
        if role == "candidate":
            assert page.status_code == 404  # the candidate reads the report, not the review
        else:
            html = page.content.decode()
            assert _shown(html) == {t["name"] for t in _expected(world, viewer, Channel.PAGE)}
            assert SECRET_INPUT in html
        # The report is what the candidate may see, whoever reads it: public tests only.
        report = client.get(f"/sessions/{world.session.pk}/report/").content.decode()
        pdf = pdf_text(client.get(f"/sessions/{world.session.pk}/report.pdf").content)
        api = client.get(f"/api/review/sessions/{world.session.pk}/report").json()
        for channel, text in (
            ("report", report),
            ("pdf", pdf),
            ("report api", json.dumps(api["public_tests"])),
        ):
            assert _shown(text) == public, f"{role} on {channel}"
            assert SECRET_INPUT not in text, f"{role} on {channel}"
