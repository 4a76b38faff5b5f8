"""Independent feedback across a loop: a marker planted in round 1's scorecard reaches the
round-2 interviewer on no page, PDF or API answer before the loop's setting allows it
(never / always / only after submitting their own), and the candidate sees nothing of it
before the combined report is released."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from core import visibility
from core.visibility import LoopViewer
from loops.models import Loop
from loops.services import debrief
from tests.loops.worlds import MARK_COMMENT, MARK_SUMMARY, LoopWorld, loop_world, submit
from tests.pdf import pdf_text

pytestmark = pytest.mark.django_db

MARKERS = (MARK_SUMMARY, MARK_COMMENT)


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _pages(world: LoopWorld) -> list[str]:
    """Every page and endpoint a person of the loop could try: each round's review, replay,
    report and REST API, the review dashboard, the loop's packet, its PDF and its report."""
    loop = world.loop.pk
    urls = ["/sessions/review/", "/api/review/sessions", f"/loops/{loop}/packet/",
            f"/loops/{loop}/packet.pdf", f"/loops/{loop}/report/"]
    for session in world.sessions:
        urls += [f"/sessions/{session.pk}/review/", f"/sessions/{session.pk}/replay/",
                 f"/sessions/{session.pk}/report/", f"/sessions/{session.pk}/report.pdf",
                 f"/api/review/sessions/{session.pk}", f"/api/review/sessions/{session.pk}/scores",
                 f"/api/review/sessions/{session.pk}/report"]
    return urls


def _shown(client: Client, world: LoopWorld) -> dict[str, list[str]]:
    """Per marker, the URLs whose answer shows it (a PDF read as text)."""
    shown: dict[str, list[str]] = {m: [] for m in MARKERS}
    for url in _pages(world):
        response = client.get(url)
        assert response.status_code < 500, url
        body = response.content
        text = (pdf_text(body) if response.get("Content-Type", "").startswith("application/pdf")
                else body.decode("utf-8", "replace"))
        for marker in MARKERS:
            if marker in text:
                shown[marker].append(url)
    return shown


def _plant(world: LoopWorld) -> None:
    submit(world.sessions[0], world.interviewers[0], summary=f"Summary {MARK_SUMMARY}",
           comment=f"Comment {MARK_COMMENT}")


@pytest.mark.parametrize(("setting", "before", "after"), [
    (Loop.FeedbackVisibility.NEVER, False, False),
    (Loop.FeedbackVisibility.ALWAYS, True, True),
    (Loop.FeedbackVisibility.AFTER_OWN, False, True),
])
def test_the_round_two_interviewer_reads_round_one_as_the_setting_says(
        setting: str, before: bool, after: bool) -> None:
    # given a loop whose round 1 scorecard carries the markers
    world = loop_world(setting)
    _plant(world)
    client = _client(world.interviewers[1])
    # when the round-2 interviewer fetches every page before writing their own scorecard
    shown = _shown(client, world)
    # then round 1 shows only where the setting allows, and only in the packet (and its PDF)
    packet_urls = {f"/loops/{world.loop.pk}/packet/", f"/loops/{world.loop.pk}/packet.pdf"}
    for marker in MARKERS:
        assert set(shown[marker]) == (packet_urls if before else set()), (marker, shown)
    if setting == Loop.FeedbackVisibility.AFTER_OWN:
        page = client.get(f"/loops/{world.loop.pk}/packet/").content.decode()
        assert "Submit your own scorecard first" in page
    # when they submit their own
    submit(world.sessions[1], world.interviewers[1])
    shown = _shown(client, world)
    # then round 1 shows as the setting says after one's own
    for marker in MARKERS:
        assert set(shown[marker]) == (packet_urls if after else set()), (marker, shown)


def test_after_own_means_every_round_of_ones_own_in_the_loop() -> None:
    # given an interviewer on rounds 2 and 3 (the third's panel too), round 1 planted
    world = loop_world(Loop.FeedbackVisibility.AFTER_OWN)
    _plant(world)
    from interviews.services import co_interviewer_add

    co_interviewer_add(session=world.sessions[2], user=world.interviewers[2],
                       username=world.interviewers[1].username)
    client = _client(world.interviewers[1])
    submit(world.sessions[1], world.interviewers[1])
    # when only one of their two scorecards is in
    # then round 1 stays closed
    assert not any(_shown(client, world).values())
    # and once both are, it opens
    submit(world.sessions[2], world.interviewers[1])
    assert all(_shown(client, world).values())


def test_outsiders_and_the_candidate_see_nothing_before_release() -> None:
    # given round 1 planted (every setting lets the judges read it)
    world = loop_world(Loop.FeedbackVisibility.ALWAYS)
    _plant(world)
    # then an interviewer of no round, another candidate and the candidate see it nowhere
    for user in (world.outsider, world.other_candidate, world.candidate):
        assert not any(_shown(_client(user), world).values()), user.username
    # and the packet and the combined report are missing loops to them
    for user in (world.outsider, world.other_candidate, world.candidate):
        client = _client(user)
        assert client.get(f"/loops/{world.loop.pk}/packet/").status_code == 404
        assert client.get(f"/loops/{world.loop.pk}/report/").status_code == 404
    # and the judges read it in the packet
    for user in (world.hiring_manager, world.recruiter, world.admin):
        page = _client(user).get(f"/loops/{world.loop.pk}/packet/").content.decode()
        assert MARK_SUMMARY in page and MARK_COMMENT in page, user.username


def test_the_candidate_reads_the_combined_report_once_released() -> None:
    # given round 1 planted and every round's scorecard submitted
    world = loop_world(Loop.FeedbackVisibility.AFTER_OWN)
    _plant(world)
    for session, person in zip(world.sessions[1:], world.interviewers[1:], strict=True):
        submit(session, person)
    client = _client(world.candidate)
    assert client.get(f"/loops/{world.loop.pk}/report/").status_code == 404
    # when the hiring manager releases the combined report
    debrief.feedback_release(loop=world.loop, user=world.hiring_manager)
    # then the candidate reads round 1's released feedback in it, and never the packet
    page = client.get(f"/loops/{world.loop.pk}/report/")
    assert page.status_code == 200
    assert MARK_SUMMARY in page.content.decode()
    assert client.get(f"/loops/{world.loop.pk}/packet/").status_code == 404


def test_the_policy_is_one_table_of_three_answers() -> None:
    def sees(viewer: LoopViewer, setting: str, *, own: bool, panel: bool = False) -> bool:
        return visibility.loop_round_visible(viewer, on_panel=panel, setting=setting,
                                             own_submitted=own)

    for setting in ("never", "always", "after_own"):
        for judge in visibility.LOOP_JUDGES:
            assert sees(judge, setting, own=False)
        for nobody in (LoopViewer.CANDIDATE, LoopViewer.OTHER, LoopViewer.ANONYMOUS):
            assert not sees(nobody, setting, own=True)
        assert sees(LoopViewer.INTERVIEWER, setting, own=False, panel=True)
    interviewer = LoopViewer.INTERVIEWER
    assert [sees(interviewer, "never", own=o) for o in (False, True)] == [False, False]
    assert [sees(interviewer, "always", own=o) for o in (False, True)] == [True, True]
    assert [sees(interviewer, "after_own", own=o) for o in (False, True)] == [False, True]
