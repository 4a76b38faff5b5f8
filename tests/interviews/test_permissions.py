"""Permissions of every review page and API endpoint, as a matrix of seven roles.

anonymous, another candidate, the owner candidate, an interviewer not assigned to the session,
the assigned interviewer, an author (who reviews no candidate's session), an admin. Refusals
of a specific session are 404s (no existence leak); anonymous page requests go to the login
page, anonymous API calls get 401/403.
Candidates never see hidden-test data, interviewer notes or unreleased scores.
"""

from __future__ import annotations

import pytest

from interviews.review import services
from tests.factories import client_for
from tests.interviews.worlds import PRIVATE_NOTE, SECRET_INPUT, World, build_world, full_scores

pytestmark = pytest.mark.django_db

ROLES = [
    "anonymous",
    "other_candidate",
    "owner",
    "unassigned_interviewer",
    "assigned_interviewer",
    "author",
    "admin",
]
LOGIN = "login"
DENIED = "denied"  # API: 401 or 403 for anonymous


def _expect(table: dict[str, object], role: str) -> object:
    return table[role]


REVIEWERS = {
    "anonymous": LOGIN,
    "other_candidate": 404,
    "owner": 404,
    "unassigned_interviewer": 404,
    "assigned_interviewer": 200,
    "author": 404,
    "admin": 200,
}
READERS = REVIEWERS | {"owner": 200}
PAGES = {
    "/sessions/review/": REVIEWERS
    | {"other_candidate": 403, "owner": 403, "unassigned_interviewer": 200, "author": 403},
    "/sessions/{id}/review/": REVIEWERS,
    "/sessions/{id}/report/": READERS,
    "/sessions/{id}/report.pdf": READERS,
    "/sessions/history/": dict.fromkeys(ROLES, 200) | {"anonymous": LOGIN},
}
API = {
    "/api/review/sessions": dict.fromkeys(ROLES, 200) | {"anonymous": DENIED},
    "/api/review/sessions/{id}": READERS | {"anonymous": DENIED},
    "/api/review/sessions/{id}/scores": READERS | {"anonymous": DENIED},
    "/api/review/sessions/{id}/report": READERS | {"anonymous": DENIED},
}


def _check(status: int, location: str, expected: object) -> None:
    if expected == LOGIN:
        assert status == 302 and location.startswith("/accounts/login/")
    elif expected == DENIED:
        assert status in (401, 403)
    else:
        assert status == expected


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("url", list(PAGES))
def test_pages(url: str, role: str) -> None:
    world = build_world()
    response = client_for(world.users()[role]).get(url.format(id=world.session.pk))
    _check(response.status_code, response.get("Location", ""), PAGES[url][role])
    body = response.content.decode(errors="replace")
    if role in ("owner", "other_candidate"):
        assert SECRET_INPUT not in body and PRIVATE_NOTE not in body and "secret 1" not in body


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("url", list(API))
def test_api_reads(url: str, role: str) -> None:
    world = build_world()
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary="UNRELEASED-SUMMARY",
        scores=full_scores(3),
        submit=True,
    )
    response = client_for(world.users()[role]).get(url.format(id=world.session.pk))
    _check(response.status_code, "", API[url][role])
    body = response.content.decode()
    if role in ("owner", "other_candidate"):
        for secret in (
            SECRET_INPUT,
            PRIVATE_NOTE,
            "secret 1",
            "UNRELEASED-SUMMARY",
            "c-correctness",
        ):
            assert secret not in body, (url, secret)
    if url == "/api/review/sessions" and response.status_code == 200:
        ids = [s["id"] for s in response.json()["sessions"]]
        assert (world.session.pk in ids) == (READERS[role] == 200)


def _post_expectations(world: World) -> dict[str, tuple[str, dict[str, object]]]:
    sid = world.session.pk
    return {
        "note": (
            f"/sessions/{sid}/review/notes",
            REVIEWERS | {"assigned_interviewer": 302, "admin": 302},
        ),
        "scorecard": (
            f"/sessions/{sid}/review/scorecard",
            REVIEWERS | {"assigned_interviewer": 302, "admin": 302},
        ),
        "release": (
            f"/sessions/{sid}/review/release",
            REVIEWERS | {"assigned_interviewer": 302, "admin": 302},
        ),
        # The session's own interviewer adds co-interviewers, not only admins (issue 27).
        "assign": (
            f"/sessions/{sid}/review/assign",
            REVIEWERS | {"assigned_interviewer": 302, "admin": 302},
        ),
        "share": (
            f"/sessions/{sid}/report/share",
            READERS | {"owner": 302, "assigned_interviewer": 302, "admin": 302},
        ),
    }


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", ["note", "scorecard", "release", "assign", "share"])
def test_page_actions(action: str, role: str) -> None:
    world = build_world()
    url, table = _post_expectations(world)[action]
    data = {"text": "a note", "username": "unassigned", "recommendation": "yes", "action": "save"}
    response = client_for(world.users()[role]).post(url, data)
    _check(response.status_code, response.get("Location", ""), table[role])


@pytest.mark.parametrize("role", ROLES)
def test_api_scorecard_post(role: str) -> None:
    world = build_world()
    expected = REVIEWERS | {"anonymous": DENIED, "owner": 404}
    body = {
        "recommendation": "yes",
        "scores": {"correctness": {"level": 3, "evidence": [{"kind": "moment", "value": 60_000}]}},
    }
    response = client_for(world.users()[role]).post(
        f"/api/review/sessions/{world.session.pk}/scores", body, content_type="application/json"
    )
    _check(response.status_code, "", expected[role])
    if response.status_code == 200:
        own = response.json()["own"]
        assert own["scores"]["correctness"]["evidence"] == [{"kind": "moment", "value": 60_000}]


@pytest.mark.parametrize("role", ROLES)
def test_share_revoke(role: str) -> None:
    world = build_world()
    share = services.share_create(session=world.session, user=world.owner)
    response = client_for(world.users()[role]).post(
        f"/sessions/{world.session.pk}/report/share/{share.pk}/revoke"
    )
    expected = READERS | {"owner": 302, "assigned_interviewer": 302, "admin": 302}
    _check(response.status_code, response.get("Location", ""), expected[role])
    share.refresh_from_db()
    assert (share.revoked_at is not None) == (expected[role] == 302)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("suffix", ["", "pdf"])
def test_share_links_work_for_whoever_holds_them_until_revoked(role: str, suffix: str) -> None:
    world = build_world()
    share = services.share_create(session=world.session, user=world.owner)
    client = client_for(world.users()[role])
    response = client.get(f"/sessions/shared/{share.token}/{suffix}")
    assert response.status_code == 200
    body = response.content.decode(errors="replace")
    assert SECRET_INPUT not in body and PRIVATE_NOTE not in body and "secret 1" not in body
    services.share_revoke(session=world.session, user=world.owner, share_id=share.pk)
    assert client.get(f"/sessions/shared/{share.token}/{suffix}").status_code == 404
