"""Who may open a submission's websocket, and with what close code the others are refused."""

from __future__ import annotations

from typing import Any

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from config.asgi import application
from config.routing import websocket_urlpatterns
from grading.consumers import CLOSE_NOT_FOUND, CLOSE_UNAUTHENTICATED
from grading.models import Submission
from tests.factories import ADD_ONE, tiny_problem, user_with_role
from tests.sockets import WithUser, run_scenario

pytestmark = pytest.mark.django_db(transaction=True)


async def _close_code(
    app: Any, path: str, headers: list[tuple[bytes, bytes]] | None = None
) -> int | None:
    communicator = WebsocketCommunicator(
        app, path, headers=headers or [(b"origin", b"http://localhost")]
    )
    connected, _ = await communicator.connect(timeout=30)
    assert connected
    output = await communicator.receive_output(timeout=5)
    code = output.get("code") if output["type"] == "websocket.close" else None
    # As a real server does after a close: the consumer exits now (`wait()` alone gave it a
    # second and then cancelled it; tests/interviews/ydoc_client.py close_code_for says why
    # one second stays the most).
    await communicator.disconnect(code=code or 1000)
    return code


def close_code(app: Any, path: str) -> int | None:
    return run_scenario(_close_code, app, path)


def _submission() -> Submission:
    problem = tiny_problem()
    owner = user_with_role("owner", "candidate")
    return Submission.objects.create(
        user=owner, problem=problem, version=problem.live_version, mode="run", code=ADD_ONE
    )


def test_without_a_session_the_socket_closes_4401() -> None:
    submission = _submission()
    assert close_code(application, f"/ws/submissions/{submission.pk}/") == CLOSE_UNAUTHENTICATED


def test_unknown_submission_closes_4404() -> None:
    app = WithUser(URLRouter(websocket_urlpatterns), user_with_role("someone", "candidate"))
    assert close_code(app, "/ws/submissions/999999/") == CLOSE_NOT_FOUND


def test_another_candidates_submission_closes_like_a_missing_one() -> None:
    submission = _submission()
    app = WithUser(URLRouter(websocket_urlpatterns), user_with_role("other", "candidate"))
    assert close_code(app, f"/ws/submissions/{submission.pk}/") == CLOSE_NOT_FOUND


def test_anonymous_user_in_scope_closes_4401() -> None:
    submission = _submission()
    app = WithUser(URLRouter(websocket_urlpatterns), AnonymousUser())
    assert close_code(app, f"/ws/submissions/{submission.pk}/") == CLOSE_UNAUTHENTICATED


def test_an_unknown_path_closes_4404_even_without_a_login() -> None:
    assert close_code(application, "/ws/nope/") == CLOSE_NOT_FOUND
    assert close_code(application, "/ws/submissions/abc/") == CLOSE_NOT_FOUND


def test_garbage_and_binary_frames_are_ignored_and_the_socket_stays_open() -> None:
    submission = _submission()
    app = WithUser(URLRouter(websocket_urlpatterns), submission.user)

    async def scenario() -> list[str]:
        communicator = WebsocketCommunicator(app, f"/ws/submissions/{submission.pk}/")
        connected, _ = await communicator.connect(timeout=30)
        assert connected
        first = await communicator.receive_json_from(timeout=5)
        await communicator.send_to(text_data="not json {")
        await communicator.send_to(bytes_data=b"\x00\xff\xfe")
        await communicator.send_to(text_data='{"type": "whatever"}')
        # Still open: no close arrives, and the socket answers nothing to the client's frames.
        assert await communicator.receive_nothing(timeout=0.5)
        await communicator.disconnect()
        return [first["type"]]

    assert run_scenario(scenario) == ["status"]
