"""The visibility matrix (issue 13): every channel, every viewer, a marker in every private field.

A finished live session (tests/interviews/worlds.py's) gets one marker text per
private field of `core.visibility.PRIVATE_FIELDS`: a review note, a draft scorecard (written by
a panel interviewer), a submitted but unreleased scorecard (written by the session's
interviewer), hidden tests' inputs and outputs, the problem's reference solution. Then each
viewer reads each channel for real (test client, the ASGI websocket, the PDF's text), and each
marker must appear exactly where the policy says and nowhere else:

    shown = the channel renders that field  and  the viewer may open the channel
            and  core.visibility allows the field to that viewer

`RENDERS` and `OPENS` describe the channels (what each shows, who gets a 200); the policy is
asked, never restated. A field the cockpit adds is one row in core.visibility, one marker
below and the channels that render it in `RENDERS`.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User

from config.routing import websocket_urlpatterns
from core import visibility
from core.visibility import Channel, Viewer
from interviews.models import ReviewAssignment
from interviews.review import services
from interviews.review.services import scored_data
from interviews.review.webhooks import session_finished_data, webhook_body
from tests.factories import client_for, user_with_role
from tests.interviews.worlds import PRIVATE_NOTE, SECRET_INPUT, build_world, full_scores
from tests.pdf import pdf_text
from tests.sockets import WithUser, run_scenario

pytestmark = pytest.mark.django_db(transaction=True)

DRAFT = "MARK-DRAFT-SCORECARD-3141"
SUBMITTED = "MARK-SUBMITTED-SCORECARD-2718"
REFERENCE = "MARK-REFERENCE-SOLUTION-1618"
PROMPTS = "MARK-INTERVIEWER-PROMPT-1414"  # a follow-up question of the cockpit's side panel
HINT = "MARK-UNRELEASED-HINT-1732"  # the second hint; the interviewer released the first
ACTIVITY = "731953"  # a paste's size (a number: the signals sum it), in every label of it
CHAT = "MARK-SESSION-CHAT-2646"
DRAFT_TITLE = "MARK-DRAFT-PROBLEM-1123"  # another author's unpublished problem
EXTRA_MINUTES = 97  # extra time granted at scheduling (an accommodation), as the page says it
ACCOMMODATION = f"{EXTRA_MINUTES} min extra time"
COPIED = "MARK-COPIED-CODE-5772"  # in the other candidate's code the final submission matches
MARKERS = {
    visibility.REVIEW_NOTE: PRIVATE_NOTE,
    visibility.DRAFT_SCORECARD: DRAFT,
    visibility.SCORECARD: SUBMITTED,
    visibility.HIDDEN_TEST_IO: SECRET_INPUT,
    visibility.REFERENCE_SOLUTION: REFERENCE,
    visibility.INTERVIEWER_PROMPTS: PROMPTS,
    visibility.UNRELEASED_HINT: HINT,
    visibility.ACTIVITY_SIGNALS: ACTIVITY,
    visibility.SESSION_CHAT: CHAT,
    visibility.DRAFT_PROBLEM: DRAFT_TITLE,
    visibility.ACCOMMODATION: ACCOMMODATION,
    visibility.COPIED_CODE: COPIED,
}
# Who each matrix viewer is to the policy, and whose scorecard they hold.
VIEWERS: dict[str, Viewer] = {
    "candidate": Viewer.CANDIDATE,
    "assigned": Viewer.ASSIGNED,  # the session's interviewer; wrote the submitted scorecard
    "panel": Viewer.ASSIGNED,  # assigned to review; wrote the draft
    "unassigned": Viewer.UNASSIGNED,
    "author": Viewer.AUTHOR,
    "admin": Viewer.ADMIN,
    "other": Viewer.OTHER,
    "anonymous": Viewer.ANONYMOUS,
    "share_link": Viewer.SHARE_LINK,
}
OWN_CARD = {"assigned": "submitted", "panel": "draft"}
# What each wrote or granted themselves (`own=True`): the session's interviewer scheduled it.
WROTE = {"assigned": {visibility.SCORECARD, visibility.ACCOMMODATION},
         "panel": {visibility.DRAFT_SCORECARD}}

H, R, D, S, REF, P = (
    visibility.HIDDEN_TEST_IO,
    visibility.REVIEW_NOTE,
    visibility.DRAFT_SCORECARD,
    visibility.SCORECARD,
    visibility.REFERENCE_SOLUTION,
    visibility.INTERVIEWER_PROMPTS,
)
UH, ACT, CH, DP, AC, CC = (
    visibility.UNRELEASED_HINT,
    visibility.ACTIVITY_SIGNALS,
    visibility.SESSION_CHAT,
    visibility.DRAFT_PROBLEM,
    visibility.ACCOMMODATION,
    visibility.COPIED_CODE,
)
# In the room: the candidate, the session's interviewer and its co-interviewer (issue 35.2:
# the panel watches live, with the private panel).
PARTICIPANTS = {"candidate", "assigned", "panel"}
REVIEWERS = {"assigned", "panel", "admin"}
READERS = REVIEWERS | {"candidate"}
# channel name → (Channel, URL template, fields it renders, viewers who get a 200).
CHANNELS: dict[str, tuple[Channel, str, set[str], set[str]]] = {
    # The cockpit's side panel: the interviewer's own private notes and the reference.
    "session page": (Channel.PAGE, "/sessions/{id}/", {R, REF, P, UH, CH, AC}, PARTICIPANTS),
    "review page": (
        Channel.PAGE,
        "/sessions/{id}/review/",
        {H, R, D, S, CH, ACT, CC},
        REVIEWERS,
    ),
    "admin problem page": (
        Channel.PAGE,
        "/admin/problems/problem/{problem}/change/",
        {REF, P, UH},
        {"admin"},
    ),
    # The filters list problems and interviewers: only those the viewer may see.
    "dashboard": (
        Channel.PAGE,
        "/sessions/review/",
        {DP},
        {"assigned", "panel", "unassigned", "admin"},
    ),
    "session state": (Channel.JSON, "/sessions/{id}/state", {CH}, PARTICIPANTS),
    "api review session": (Channel.API, "/api/review/sessions/{id}", {H, ACT}, READERS),
    "api review scores": (Channel.API, "/api/review/sessions/{id}/scores", {D, S, ACT}, READERS),
    "api review report": (Channel.API, "/api/review/sessions/{id}/report", {CH}, READERS),
    "api submission": (
        Channel.API,
        "/api/submissions/{final}",
        {H},
        {"candidate", "assigned", "panel", "admin"},
    ),
    "submission socket": (
        Channel.WEBSOCKET,
        "/ws/submissions/{final}/",
        {H},
        {"candidate", "assigned", "panel", "admin"},
    ),
    "replay page": (Channel.REPLAY, "/sessions/{id}/replay/", set(), READERS),
    # The candidate's own replay follows the live page: no pastes, no tab leaves.
    "replay data": (Channel.REPLAY, "/sessions/{id}/replay/data", {ACT, CH}, READERS),
    "report": (Channel.REPORT, "/sessions/{id}/report/", {CH}, READERS),
    "report pdf": (Channel.PDF, "/sessions/{id}/report.pdf", {CH}, READERS),
    # Whoever holds the token reads the report, logged in or not, as a share-link reader:
    # the report's sections of `visibility.SHARE_LINK_SECTIONS`, which has no chat.
    "share link": (Channel.SHARE_LINK, "/sessions/shared/{token}/", {CH}, set(VIEWERS)),
    "share link pdf": (Channel.SHARE_LINK, "/sessions/shared/{token}/pdf", {CH}, set(VIEWERS)),
}


def allowed(field: str, name: str, channel: Channel) -> bool:
    viewer = VIEWERS[name]
    own = field in WROTE.get(name, set())
    if field == visibility.SCORECARD and not own:
        return channel not in visibility.OUTSIDE_CHANNELS and (
            visibility.others_scorecards_visible(viewer, own_card=OWN_CARD.get(name))
        )
    return visibility.may_see(field, viewer, channel, own=own)


async def _socket_frames(user: User | None, path: str) -> tuple[bool, str]:
    from django.contrib.auth.models import AnonymousUser

    app = WithUser(URLRouter(websocket_urlpatterns), user or AnonymousUser())
    communicator = WebsocketCommunicator(app, path)
    connected, _ = await communicator.connect(timeout=30)
    assert connected
    frames: list[str] = []
    closed = False
    # The first answer (a frame or the close) however late a loaded machine sends it; then
    # the socket's frames until it goes quiet or says done.
    wait = 60.0
    while True:
        try:
            output = await communicator.receive_output(timeout=wait)
        except TimeoutError:
            break
        wait = 2.0
        if output["type"] == "websocket.close":
            closed = True
            break
        frames.append(output.get("text", ""))
        if '"type": "done"' in frames[-1]:
            break
    await communicator.disconnect()
    return (not closed and bool(frames)), "\n".join(frames)


def _world() -> dict[str, Any]:
    world = build_world()
    problem = world.session.problem
    problem.reference_code = f"# {REFERENCE}\ndef solve(x):\n    return x + 1\n"
    problem.follow_ups = [f"How would you shard it? {PROMPTS}"]
    problem.hints = ["Think of the empty input.", f"Add one at the end. {HINT}"]
    problem.save()
    _plant_session_markers(world)
    panel = user_with_role("panel", "interviewer")
    ReviewAssignment.objects.create(session=world.session, interviewer=panel)
    # The marker in the summary and in a criterion's comment: pages show one or the other.
    submitted, draft = full_scores(3), full_scores(2)
    submitted["correctness"]["comment"] = SUBMITTED
    draft["correctness"]["comment"] = DRAFT
    services.scorecard_save(
        session=world.session,
        user=world.assigned,
        recommendation="yes",
        summary=SUBMITTED,
        scores=submitted,
        submit=True,
    )
    services.scorecard_save(
        session=world.session,
        user=panel,
        recommendation="no",
        summary=DRAFT,
        scores=draft,
        submit=False,
    )
    _plant_copied_code(world, panel)
    share = services.share_create(session=world.session, user=world.owner)
    users: dict[str, User | None] = {
        "candidate": world.owner,
        "assigned": world.assigned,
        "panel": panel,
        "unassigned": world.unassigned,
        "author": world.author,
        "admin": world.admin,
        "other": world.other,
        "anonymous": None,
        "share_link": None,
    }
    ids = {
        "id": world.session.pk,
        "final": world.final.pk,
        "problem": problem.pk,
        "token": share.token,
    }
    return {"world": world, "users": users, "ids": ids}


def _plant_session_markers(world: Any) -> None:
    """The interviewer released the first hint; the candidate pasted and left the tab; both
    chatted; another author keeps a draft problem."""
    from interviews.models import ChatMessage, Note, SessionEvent
    from problems.models import Problem

    session = world.session
    start = session.started_at
    session.extra_time = timedelta(minutes=EXTRA_MINUTES)
    session.save(update_fields=["extra_time"])
    SessionEvent.objects.create(
        session=session,
        kind=SessionEvent.Kind.HINT,
        actor=world.assigned,
        at=start + timedelta(minutes=6),
        data={"number": 1, "by": "interviewer"},
    )
    SessionEvent.objects.create(
        session=session,
        kind=SessionEvent.Kind.PASTE,
        actor=world.owner,
        at=start + timedelta(minutes=7),
        data={"chars": int(ACTIVITY)},
    )
    SessionEvent.objects.create(
        session=session,
        kind=SessionEvent.Kind.TAB_HIDDEN,
        actor=world.owner,
        at=start + timedelta(minutes=8),
    )
    ChatMessage.objects.create(
        session=session,
        author=world.owner,
        role="candidate",
        text=f"Can I use a dict? {CHAT}",
        created_at=start + timedelta(minutes=9),
    )
    # The candidate's own entry of the shared notes panel: their report lists it (issue 26).
    Note.objects.create(
        session=session,
        author=world.owner,
        kind="tradeoff",
        text="A dict costs memory",
        created_at=start + timedelta(minutes=10),
    )
    draft = Problem.objects.create(
        slug="someone-elses-draft",
        title=DRAFT_TITLE,
        statement_md="Draft.",
        reference_code="pass",
        owner=user_with_role("other_author", "author"),
    )
    assert not Problem.objects.offered().filter(pk=draft.pk).exists()


def _plant_copied_code(world: Any, panel: User) -> None:
    """Another candidate's session, reviewed by the same interviewer and panel, whose final
    submission the session's final one matches above the threshold (grading/copies.py): its
    code, with the marker, is what the flag shows beside the final's."""
    from grading.models import CodePrint, Submission
    from interviews.models import InterviewSession

    session = world.session
    theirs = Submission.objects.create(
        user=world.other,
        problem=session.problem,
        version=world.final.version,
        mode="submit",
        code=f"def solve(x):\n    # {COPIED}\n    return x + 1\n",
        status="done",
    )
    their_session = InterviewSession.objects.create(
        problem=session.problem,
        candidate=world.other,
        interviewer=world.assigned,
        kind="live",
        status="finished",
        duration=session.duration,
        started_at=session.started_at,
        deadline=session.deadline,
        finished_at=session.finished_at,
        finish_reason="candidate",
        final_submission=theirs,
    )
    ReviewAssignment.objects.create(session=their_session, interviewer=panel)
    CodePrint.objects.create(
        submission=world.final,
        problem=session.problem,
        status=CodePrint.Status.DONE,
        match=theirs,
        match_score=0.95,
    )


def _read(
    users: dict[str, User | None], ids: dict[str, Any], name: str, channel_name: str
) -> tuple[bool, str]:
    channel, template, _, _ = CHANNELS[channel_name]
    url = template.format(**ids)
    if channel == Channel.WEBSOCKET:
        return run_scenario(_socket_frames, users[name], url)
    response = client_for(users[name]).get(url)
    if channel == Channel.PDF or url.endswith("/pdf"):
        text = pdf_text(response.content)
    else:
        text = response.content.decode(errors="replace")
    return response.status_code == 200, text


def test_every_marker_appears_exactly_where_the_policy_allows() -> None:
    built = _world()
    failures: list[str] = []
    for name in VIEWERS:
        for channel_name, (channel, _, renders, opens) in CHANNELS.items():
            opened, text = _read(built["users"], built["ids"], name, channel_name)
            if opened != (name in opens):
                failures.append(f"{name} on {channel_name}: opened={opened}")
            for field, marker in MARKERS.items():
                expected = field in renders and name in opens and allowed(field, name, channel)
                if (marker in text) != expected:
                    failures.append(
                        f"{name} on {channel_name}: {field} shown={marker in text}"
                        f" expected={expected}"
                    )
    assert failures == [], "\n".join(failures)


def test_webhook_payloads_carry_no_private_field() -> None:
    built = _world()
    world = built["world"]
    card = world.session.scorecards.get(interviewer=world.assigned)
    bodies = webhook_body(
        "session.finished", session_finished_data(world.session.pk)
    ) + webhook_body("session.scored", scored_data(card))
    for field, marker in MARKERS.items():
        assert visibility.may_see(field, Viewer.ADMIN, Channel.WEBHOOK) is False
        assert marker not in bodies, field


def test_released_scores_give_the_candidate_the_submitted_feedback_never_a_draft() -> None:
    """Once released, the report carries the submitted scorecards' comments and summary
    (issue 14); a draft never reaches the candidate, released or not."""
    built = _world()
    world = built["world"]
    assert visibility.released_feedback_visible(Viewer.CANDIDATE, released=True)
    services.scores_release(session=world.session, user=world.admin)
    for channel_name in ("report", "report pdf"):
        opened, text = _read(built["users"], built["ids"], "candidate", channel_name)
        assert opened
        assert SUBMITTED in text and DRAFT not in text
    for channel_name in ("api review report", "api review scores"):
        opened, text = _read(built["users"], built["ids"], "candidate", channel_name)
        assert opened
        assert DRAFT not in text
    api = client_for(world.owner).get(f"/api/review/sessions/{world.session.pk}/scores").json()
    assert api["outcome"]["reviewers"] == 1  # the levels are there, the words are not


def test_every_private_field_has_a_marker_in_this_matrix() -> None:
    """Adding a row to the policy without a marker here fails: the matrix stays complete."""
    assert set(MARKERS) == set(visibility.PRIVATE_FIELDS)


def test_released_evidence_reads_as_labels_made_of_nothing_private() -> None:
    """Issue 14: the released report shows each cited item as a label. A moment is cited right
    when the interviewer wrote a private note and revealed nothing else: its label describes
    what both sides saw, and no private field's marker reaches the candidate or a share link."""
    from datetime import timedelta

    from interviews.models import CriterionScore, ReviewNote

    built = _world()
    world = built["world"]
    start = world.session.started_at
    assert start is not None
    ReviewNote.objects.filter(session=world.session).update(created_at=start + timedelta(minutes=2))
    score = CriterionScore.objects.get(
        scorecard__interviewer=world.assigned, criterion="correctness"
    )
    # 07:00 is the candidate's paste: the Activity panel's, so the candidate's label of it
    # says nothing of it.
    score.evidence = [
        {"kind": "moment", "value": 120_000},
        {"kind": "moment", "value": 420_000},
        {"kind": "submission", "value": world.final.pk},
        {"kind": "question", "value": world.question.pk},
    ]
    score.save()
    services.scores_release(session=world.session, user=world.admin)
    for name, channel_name in (
        ("candidate", "report"),
        ("candidate", "report pdf"),
        ("share_link", "share link"),
        ("share_link", "share link pdf"),
    ):
        opened, text = _read(built["users"], built["ids"], name, channel_name)
        assert opened, channel_name
        if channel_name == "report":
            assert "02:00 asked" in text and "Question: Can x be negative?" in text
            assert re.search(r"Run \d \(final\)", text), channel_name
            assert "07:00 in the replay" in text
        # Released: the submitted card's words are the candidate's to read, nothing else.
        released = visibility.released_feedback_visible(VIEWERS[name], released=True)
        leaked = [
            field
            for field, marker in MARKERS.items()
            if marker in text
            and not allowed(field, name, CHANNELS[channel_name][0])
            and not (field == visibility.SCORECARD and released)
        ]
        assert leaked == [], f"{channel_name}: {leaked}"
        assert "#sub-" not in text and f"submission:{world.final.pk}" not in text
    # The candidate's replay has no scoring bar; the assigned interviewer's has.
    _, replay = _read(built["users"], built["ids"], "candidate", "replay page")
    assert 'id="replay-cite"' not in replay
    _, own = _read(built["users"], built["ids"], "panel", "replay page")
    assert 'id="replay-cite"' in own


def test_a_live_candidate_opens_no_hint_the_interviewer_did_not_release() -> None:
    """The hint row on the one channel that writes: in a live session (the setting off by
    default) the candidate's own hint request is refused while the session runs, so the
    unreleased hint's marker reaches nobody but the session's interviewers."""
    from django.utils import timezone

    built = _world()
    session = built["world"].session
    session.status, session.deadline = "active", timezone.now() + timedelta(minutes=10)
    session.save()
    assert session.candidate_opens_hints is False
    for name, user in built["users"].items():
        response = client_for(user).post(f"/sessions/{session.pk}/hints")
        assert HINT not in response.content.decode(), name
        assert response.status_code >= 300, name
    _, page = _read(built["users"], built["ids"], "candidate", "session page")
    assert HINT not in page and "Think of the empty input." in page


def test_a_share_link_shows_only_the_sections_the_policy_names() -> None:
    """What a share link shows is written in core.visibility (SHARE_LINK_SECTIONS): every
    other section of the report is empty there, while the candidate's own report has it."""
    from interviews.review.selectors import DESIGN_SECTIONS, REPORT_SECTIONS, report_data

    built = _world()
    session = built["world"].session
    services.scores_release(session=session, user=built["world"].admin)
    own, shared = report_data(session), report_data(session, Channel.SHARE_LINK)
    left_off = [s for s in REPORT_SECTIONS if s not in visibility.SHARE_LINK_SECTIONS]
    assert {"chat", "released_feedback"} <= set(left_off)
    for section in REPORT_SECTIONS:
        if section in DESIGN_SECTIONS:  # a coding session has none: test_design_matrix.py
            assert not own[section] and not shared[section], section
        elif section in visibility.SHARE_LINK_SECTIONS:
            assert shared[section] == own[section], section
        else:
            assert own[section] and not shared[section], section
    _, text = _read(built["users"], built["ids"], "share_link", "share link")
    assert CHAT not in text and SUBMITTED not in text
    _, mine = _read(built["users"], built["ids"], "candidate", "report")
    assert CHAT in mine and SUBMITTED in mine
