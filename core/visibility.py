"""Who sees what: the one visibility policy of every private field, on every channel.

Why here, in `core`: every app needs to ask (grading for submissions, interviews for pages,
replays, reports and sockets, later the cockpit's chat and side panel), and the dependency
rule lets all of them import `core` while `core` imports none of them. So this module holds
the vocabulary and the rules as data, and knows no model:

* `Viewer`: who is looking, relative to one interview session. Which viewer a user is for a
  given object needs the models, so each app registers a *resolver* for its kind of object
  in its `AppConfig.ready` (`viewer_resolver_register`), and callers ask `viewer_of`. The
  interviews app registers the resolver of sessions and of submissions (it alone knows which
  sessions a submission belongs to and who is assigned to them); grading asks for a
  submission without importing interviews.
* `Channel`: where a field could be shown (page, JSON view, REST API, websocket, replay,
  report, PDF, share link, webhook payload). A rule may differ per channel; today the only
  difference is that share links and webhook payloads never carry anything private.
* `PRIVATE_FIELDS`: the table, one row per private field: (field, the viewers who may see it).
  Adding a field (the cockpit's chat, rubric, canned answers...) is one row here, and one
  planted marker in tests/privacy.

Every reader asks `may_see(field, viewer, channel)`; nothing else decides.

And when: `session_access(relation, state)` is every door of a session (its page, JSON, POSTs,
replay, review, report, share link, sockets) for each relation in each state of its clock, the
access matrix by state written once (tests/privacy/test_doors.py walks it whole).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from core.realtime import CLOSE_GONE, CLOSE_NOT_FOUND, CLOSE_NOT_STARTED, CLOSE_UNAUTHENTICATED


class Viewer(StrEnum):
    """Who is looking, relative to one session (or the session a submission belongs to)."""

    CANDIDATE = "candidate"  # the session's candidate (the submission's owner)
    ASSIGNED = "assigned_interviewer"  # the session's interviewer or one on its review panel
    UNASSIGNED = "unassigned_interviewer"  # an interviewer with no part in this session
    AUTHOR = "author"  # writes problems; no part in candidates' sessions
    ADMIN = "admin"  # staff or superuser
    ANONYMOUS = "anonymous"  # not logged in, no token
    SHARE_LINK = "share_link"  # anyone holding a report's share token
    OTHER = "other"  # logged in, none of the above (another candidate)


class Channel(StrEnum):
    PAGE = "page"
    JSON = "json"  # the session page's own JSON endpoints
    API = "api"  # the REST API under /api/
    WEBSOCKET = "websocket"
    REPLAY = "replay"
    REPORT = "report"
    PDF = "pdf"
    SHARE_LINK = "share_link"
    WEBHOOK = "webhook"


# Channels that leave the platform for someone who is not a user: nothing private, ever.
OUTSIDE_CHANNELS = frozenset({Channel.SHARE_LINK, Channel.WEBHOOK})

REVIEW_NOTE = "review_note"
DRAFT_SCORECARD = "draft_scorecard"
SCORECARD = "scorecard"
HIDDEN_TEST_IO = "hidden_test_io"
REFERENCE_SOLUTION = "reference_solution"
INTERVIEWER_PROMPTS = "interviewer_prompts"
UNRELEASED_HINT = "unreleased_hint"
ACTIVITY_SIGNALS = "activity_signals"
SESSION_CHAT = "session_chat"
DRAFT_PROBLEM = "draft_problem"
ACCOMMODATION = "accommodation"
COPIED_CODE = "copied_code"

_REVIEWERS = frozenset({Viewer.ASSIGNED, Viewer.ADMIN})

# The table: (private field, who may see it). A viewer not listed never sees the field, on any
# channel. Relationship rules on top of a row are written next to it.
PRIVATE_FIELDS: dict[str, frozenset[Viewer]] = {
    # The reviewers' private notes on a session (`ReviewNote`).
    REVIEW_NOTE: _REVIEWERS,
    # A scorecard not yet submitted: its writer alone (`own=True`); no other reviewer.
    DRAFT_SCORECARD: frozenset(),
    # A submitted scorecard (summary, comments, evidence), released or not: reviewers only,
    # and a reviewer who scores sees the others' only once their own is submitted
    # (independent scoring). Once released, the candidate reads the submitted cards' mean
    # levels, comments, summary and evidence as labels (`released_feedback_visible`).
    SCORECARD: _REVIEWERS,
    # Hidden tests' inputs, expected and actual outputs, errors, names. Authors see them for
    # their own submissions (their own tests), not for candidates'.
    HIDDEN_TEST_IO: frozenset({Viewer.ASSIGNED, Viewer.ADMIN, Viewer.AUTHOR}),
    # A problem's reference solution: its authors and admins (studio, admin), and the
    # interviewer running a session on it (the cockpit's side panel, collapsed). For a design
    # problem it is the reference design: its text (`reference_code`) and its board
    # (`reference_board`), shown in the cockpit's reference-design panel.
    REFERENCE_SOLUTION: frozenset({Viewer.AUTHOR, Viewer.ADMIN, Viewer.ASSIGNED}),
    # What the cockpit's side panel prompts the interviewer with: rubric anchors, follow-up
    # questions, canned answers, hints not yet revealed. The session's interviewers, admins.
    INTERVIEWER_PROMPTS: _REVIEWERS,
    # A hint of a live session not yet released: the interviewer releases hints (the cockpit's
    # button) and the candidate reads a hint once released. Whether the candidate's own
    # button opens the next one is the session's setting `candidate_opens_hints`: on for solo
    # practice, off by default for a live session.
    UNRELEASED_HINT: _REVIEWERS,
    # The candidate's pastes and tab leaves: the live page's Activity panel shows them to the
    # interviewer alone, and every later channel (the replay included, the candidate's own
    # replay too) follows it.
    ACTIVITY_SIGNALS: _REVIEWERS,
    # The session's chat: shared by the two sides, read by the reviewers; never on a share
    # link (the interviewer's words are not the candidate's to publish).
    SESSION_CHAT: frozenset({Viewer.CANDIDATE, Viewer.ASSIGNED, Viewer.ADMIN}),
    # A problem not offered to candidates (a draft, a withdrawn one): its authors (`own=True`)
    # and admins, in every list and filter. Offered problems are no secret.
    DRAFT_PROBLEM: frozenset({Viewer.ADMIN}),
    # Extra time granted to the candidate at scheduling (WCAG 2.2.1): the candidate's own, the
    # interviewer who granted it (`own=True`) and admins. The other interviewers of the session
    # see the clock, never that time was granted or how much.
    ACCOMMODATION: frozenset({Viewer.CANDIDATE, Viewer.ADMIN}),
    # Copied code (grading/copies.py): a submission whose closest match (another candidate's
    # submission of the problem, a known solution) is above the threshold, its matched regions
    # side by side. A prompt to those who judge, never a verdict: never the candidate's, never
    # on a report or a share link. The other candidate is named, and their code shown, only to
    # a viewer this table also lets see the flag of the other submission (both sessions).
    COPIED_CODE: _REVIEWERS,
}

# What a share link shows of a report: the candidate's own work and how it did, nothing of
# anyone else. Every other section of the report (the chat, the interviewers' released
# feedback, anything private above) stays off it; `report_section_visible` is the one test.
SHARE_LINK_SECTIONS = frozenset({
    "problem",  # the problem's title and statement link
    "candidate",  # the candidate's username
    "final",  # the final submission's verdict and pass count
    "final_code",  # the code as graded
    "public_tests",  # the public tests' verdicts (hidden ones: `hidden_by_tag` counts only)
    "hidden_by_tag",
    "outcome",  # released mean levels per criterion, the consensus recommendation
    "timeline",  # edits, runs and the candidate's questions through time
    "questions",  # the candidate's clarifying questions and the answers they got
    "strong", "strong_titled",  # the rubric's description of a strong answer
    "follow_ups",  # a solo session's reading list (a live one has none)
    # A design round's final diagram: the candidate's own drawing, its "final code". Its
    # notes pane ("board_notes") stays off, as every note of the candidate's does.
    "board",
})


def may_see(field: str, viewer: Viewer | None, channel: Channel | None = None, *,
             own: bool = False) -> bool:
    """Whether `viewer` may see `field` on `channel`; `own`: the viewer wrote this one.

    An unknown field is private to admins; nothing private leaves on an outside channel.
    """
    if viewer is None or channel in OUTSIDE_CHANNELS:
        return False
    if own:
        return True
    allowed = PRIVATE_FIELDS.get(field, frozenset({Viewer.ADMIN}))
    return viewer in allowed


def report_section_visible(section: str, channel: Channel) -> bool:
    """Whether a section of the candidate's report goes out on `channel`: a share link carries
    only `SHARE_LINK_SECTIONS`; the report's own readers get every section built for them."""
    if channel == Channel.SHARE_LINK:
        return section in SHARE_LINK_SECTIONS
    return channel != Channel.WEBHOOK


def others_scorecards_visible(viewer: Viewer | None, *, own_card: str | None) -> bool:
    """Independent scoring, on top of the SCORECARD row: a reviewer with a scorecard of their
    own sees the others' only once theirs is submitted (`own_card` "draft" / "submitted");
    without one, an admin reads them all and an assigned interviewer must score first."""
    if not may_see(SCORECARD, viewer):
        return False
    if own_card is not None:
        return own_card == "submitted"
    return viewer == Viewer.ADMIN


def released_feedback_visible(viewer: Viewer | None, *, released: bool) -> bool:
    """On top of the SCORECARD row: once the scores are released, the session's candidate
    reads the submitted scorecards' comments, summary and evidence in their report (never a
    draft). Evidence goes as labels made only of what both sides saw (runs, questions, chat,
    pastes, tab changes: interviews/review/evidence.py), never a link into the review page."""
    return viewer == Viewer.CANDIDATE and released


# ---------------------------------------------------------------- a loop's rounds


class LoopViewer(StrEnum):
    """Who is looking, relative to one onsite loop (several sessions, one hiring packet)."""

    HIRING_MANAGER = "hiring_manager"  # the loop's hiring manager: reads every round, decides
    INTERVIEWER = "loop_interviewer"  # on the panel of one of its rounds (its own or co-)
    RECRUITER = "recruiter"  # the recruiter who runs it (built it)
    ADMIN = "admin"
    CANDIDATE = "candidate"  # the loop's candidate: their combined report, once released
    OTHER = "other"  # logged in, none of the above
    ANONYMOUS = "anonymous"


# Who judges a loop: reads every round's submitted scorecards in the hiring packet, records
# the decision and releases the candidate's combined report.
LOOP_JUDGES = frozenset({LoopViewer.HIRING_MANAGER, LoopViewer.RECRUITER, LoopViewer.ADMIN})
# Who opens a loop's hiring packet (an interviewer reads in it what `loop_round_visible` lets).
LOOP_PACKET_READERS = LOOP_JUDGES | {LoopViewer.INTERVIEWER}
# The loop's setting `feedback_visibility` (loops.models.Loop.FeedbackVisibility).
FEEDBACK_NEVER, FEEDBACK_ALWAYS, FEEDBACK_AFTER_OWN = "never", "always", "after_own"


def loop_round_visible(viewer: LoopViewer | None, *, on_panel: bool, setting: str,
                       own_submitted: bool) -> bool:
    """Independent feedback across a loop: whether `viewer` reads one round's submitted
    scorecards (summary, comments, evidence, recommendation) and its integrity signals.

    * A judge (hiring manager, recruiter, admin) reads every round.
    * An interviewer reads the round they are on (`on_panel`) as the session's own rule says
      (`others_scorecards_visible`: their own, the others once theirs is submitted); another
      round as the loop's `setting` says (Greenhouse's three answers): never, always, or only
      after submitting their own (`own_submitted`: a submitted scorecard on every round of the
      loop they are on), so that no interviewer is swayed before writing.
    * Nobody else, the candidate included, reads a scorecard here (their combined report is
      the single-session report's released feedback, once the loop's is released).
    """
    if viewer in LOOP_JUDGES:
        return True
    if viewer != LoopViewer.INTERVIEWER:
        return False
    if on_panel:
        return True  # the round's own page rules apply to its other scorecards
    if setting == FEEDBACK_ALWAYS:
        return True
    if setting == FEEDBACK_AFTER_OWN:
        return own_submitted
    return False


def loop_round_viewer(viewer: LoopViewer | None, *, admin: bool) -> Viewer | None:
    """Who a reader of the packet is to the private fields (`PRIVATE_FIELDS`) of a round
    `loop_round_visible` lets them read: a reviewer of it, as its own panel is."""
    if viewer not in LOOP_PACKET_READERS:
        return None
    return Viewer.ADMIN if admin else Viewer.ASSIGNED


# ---------------------------------------------------------------- viewer resolution

Resolver = Callable[[Any, Any], "Viewer | None"]
_RESOLVERS: dict[str, list[Resolver]] = {}


def viewer_resolver_register(kind: str, resolver: Resolver) -> None:
    """Called from an app's `ready()`: one way to tell who `user` is for an object of `kind`.

    Several apps may register for one kind (grading knows a submission's owner, interviews
    the interviewers of its session); they are asked in registration order and the first
    answer that is not None wins.
    """
    resolvers = _RESOLVERS.setdefault(kind, [])
    if resolver not in resolvers:
        resolvers.append(resolver)


def viewer_of(kind: str, obj: Any, user: Any) -> Viewer | None:
    """Who `user` is for `obj` ("session", "submission"); None: may not see it at all."""
    resolvers = _RESOLVERS.get(kind)
    if not resolvers:
        raise LookupError(f"no viewer resolver registered for {kind!r}")
    for resolver in resolvers:
        viewer = resolver(obj, user)
        if viewer is not None:
            return viewer
    return None


def base_viewer(user: Any) -> Viewer:
    """Who `user` is before any relationship to an object: admin, author, interviewer..."""
    from core.roles import is_admin, is_author, is_interviewer

    if user is None or not getattr(user, "is_authenticated", False):
        return Viewer.ANONYMOUS
    if is_admin(user):
        return Viewer.ADMIN
    if is_interviewer(user):
        return Viewer.UNASSIGNED
    if is_author(user):
        return Viewer.AUTHOR
    return Viewer.OTHER


# ---------------------------------------------------------------- the doors of a session


class Relation(StrEnum):
    """Who is knocking at a session's doors: `Viewer` with the interviewers told apart (the
    session's own runs the room; a co-interviewer on its panel watches it)."""

    CANDIDATE = "candidate"  # the invited candidate
    OTHER_CANDIDATE = "other_candidate"  # logged in, no part in this session
    INTERVIEWER = "interviewer"  # the session's own interviewer (assigned when scheduled)
    CO_INTERVIEWER = "co_interviewer"  # added to its panel from the cockpit
    OTHER_INTERVIEWER = "other_interviewer"  # an interviewer with no part in this session
    AUTHOR = "author"
    ADMIN = "admin"
    ANONYMOUS = "anonymous"
    SHARE_LINK = "share_link"  # holds a share token of the report, logged in or not


class SessionState(StrEnum):
    """When they knock: the session's state on the clock
    (`interviews.services.session_clock_state` tells which one a session is in)."""

    SCHEDULED = "scheduled"  # planned; the invitation's margin has not opened yet
    MARGIN = "margin"  # inside the margin before the start: the link is open, the clock is not
    LIVE = "live"  # the clock runs
    FINISHED = "finished"  # over; the scores are not released
    RELEASED = "released"  # over; the scores are released to the candidate
    CANCELLED = "cancelled"  # called off before it started
    EXPIRED = "expired"  # its planned slot went by and nobody joined (a no-show)


class Door(StrEnum):
    """What one door of a session answers (`DOOR_STATUS`, `DOOR_CLOSE`: as HTTP, as a socket)."""

    OPEN = "open"  # the whole thing (what a role may do inside is the service's to say)
    WAITING = "waiting"  # the waiting room: when and how to join, nothing of the problem
    NOT_STARTED = "not_started"  # 409: nothing of the problem or the work until the start
    GONE = "gone"  # 410: called off or expired; nothing to open any more
    SCHEDULE = "schedule"  # the page sends its interviewers to the schedule (to reschedule)
    NOT_FOUND = "not_found"  # 404, worded as a missing session: no existence leak
    LOGIN = "login"  # not signed in: the login page (a socket: 4401)


# As HTTP (a page's GET; a JSON door answers the same status with its code) and as a socket's
# close code (core.realtime's CLOSE_*; None: accepted).
DOOR_STATUS: dict[Door, int] = {
    Door.OPEN: 200, Door.WAITING: 200, Door.NOT_STARTED: 409, Door.GONE: 410,
    Door.SCHEDULE: 302, Door.NOT_FOUND: 404, Door.LOGIN: 302,
}
DOOR_CLOSE: dict[Door, int | None] = {
    Door.OPEN: None, Door.WAITING: CLOSE_NOT_STARTED, Door.NOT_STARTED: CLOSE_NOT_STARTED,
    Door.GONE: CLOSE_GONE, Door.SCHEDULE: CLOSE_GONE, Door.NOT_FOUND: CLOSE_NOT_FOUND,
    Door.LOGIN: CLOSE_UNAUTHENTICATED,
}


@dataclass(frozen=True)
class SessionAccess:
    """Every door of one session for one relation in one state."""

    page: Door  # `/sessions/<id>/`: the room (statement, desk or board, chat, questions)
    work: Door  # the room's JSON (its state) and its POSTs: chat, questions, runs, notes...
    doc: Door  # the document socket (the code, the board, the notes) and the events on it
    panel: bool  # the interviewers' private side panel (what it holds: the rows above)
    replay: Door  # the replay page and its data (every stored update: the starter included)
    review: Door  # the review page and its POSTs (notes, scorecards, release, assignments)
    schedule: Door  # the schedule page: reschedule, resend, cancel
    report: Door  # the report (HTML, PDF, board picture) and its share links' management
    share: Door  # a share link's report (`SHARE_LINK_SECTIONS` only)
    submissions: Door  # the submission socket of a run made in the session
    api: Door  # the REST API's review of the session (its summary, runs, scores)

    @property
    def sees_work(self) -> bool:
        """Whether any door shows the problem or the work (statement, starter, board, chat,
        questions): never before the start for the candidate."""
        return Door.OPEN in (self.page, self.work, self.doc, self.replay, self.review,
                             self.report, self.share, self.api)


NOT_YET = frozenset({SessionState.SCHEDULED, SessionState.MARGIN})
STARTED = frozenset({SessionState.LIVE, SessionState.FINISHED, SessionState.RELEASED})
OVER = frozenset({SessionState.FINISHED, SessionState.RELEASED})
CALLED_OFF = frozenset({SessionState.CANCELLED, SessionState.EXPIRED})
IN_THE_ROOM = frozenset({Relation.CANDIDATE, Relation.INTERVIEWER, Relation.CO_INTERVIEWER})
PANEL = frozenset({Relation.INTERVIEWER, Relation.CO_INTERVIEWER})
REVIEWING = PANEL | {Relation.ADMIN}


def session_access(relation: Relation, state: SessionState) -> SessionAccess:
    """The access matrix by state, written once: every door of a session for `relation` in
    `state`. Views and consumers ask it (thin edges); tests/privacy/test_doors.py walks it.

    * The candidate waits in the waiting room until the start: before it the statement, the
      starter, the board, the chat and the questions are behind every door (409 on the JSON
      doors, 4425 on the document socket); once called off or expired, 410.
    * The session's interviewers (its own and co-interviewers) are in the room from when it is
      scheduled (they prepare): the page, the private panel, the live document (read-only for
      a co-interviewer unless the session lets interviewers edit), the review, the replay.
      Called off or expired, their page is the schedule (to reschedule).
    * Admins review every session (review, replay, schedule, report) but are not in the room.
    * Anyone else: the 404 of a missing session; anonymous: the login. A share link opens the
      shared report of a finished session and nothing else.
    """
    login = relation in (Relation.ANONYMOUS, Relation.SHARE_LINK)
    refused = Door.LOGIN if login else Door.NOT_FOUND
    share = Door.OPEN if relation == Relation.SHARE_LINK and state in OVER else Door.NOT_FOUND
    if relation == Relation.CANDIDATE:
        if state in NOT_YET:
            page, work = Door.WAITING, Door.NOT_STARTED
        elif state in CALLED_OFF:
            page = work = Door.GONE
        else:
            page = work = Door.OPEN
        return SessionAccess(
            page=page, work=work, doc=work, panel=False,
            replay=Door.OPEN if state in STARTED else Door.NOT_FOUND, review=Door.NOT_FOUND,
            schedule=Door.NOT_FOUND, report=Door.OPEN if state in OVER else Door.NOT_FOUND,
            share=Door.NOT_FOUND, submissions=Door.OPEN,
            api=Door.OPEN if state in STARTED else Door.NOT_FOUND)
    if relation in REVIEWING:
        in_room = relation in PANEL
        page = (Door.SCHEDULE if state in CALLED_OFF else Door.OPEN) if in_room else refused
        return SessionAccess(
            page=page, work=Door.OPEN if in_room else refused,
            doc=(Door.GONE if state in CALLED_OFF else Door.OPEN) if in_room else refused,
            panel=in_room, replay=Door.OPEN, review=Door.OPEN, schedule=Door.OPEN,
            report=Door.OPEN if state in OVER else Door.NOT_FOUND, share=Door.NOT_FOUND,
            submissions=Door.OPEN, api=Door.OPEN)
    return SessionAccess(page=refused, work=refused, doc=refused, panel=False, replay=refused,
                         review=refused, schedule=refused, report=refused, share=share,
                         submissions=refused, api=refused)


# Who each relation is to the rows of `PRIVATE_FIELDS` (both interviewers are ASSIGNED).
RELATION_VIEWER: dict[Relation, Viewer] = {
    Relation.CANDIDATE: Viewer.CANDIDATE,
    Relation.OTHER_CANDIDATE: Viewer.OTHER,
    Relation.INTERVIEWER: Viewer.ASSIGNED,
    Relation.CO_INTERVIEWER: Viewer.ASSIGNED,
    Relation.OTHER_INTERVIEWER: Viewer.UNASSIGNED,
    Relation.AUTHOR: Viewer.AUTHOR,
    Relation.ADMIN: Viewer.ADMIN,
    Relation.ANONYMOUS: Viewer.ANONYMOUS,
    Relation.SHARE_LINK: Viewer.SHARE_LINK,
}


def relation_of(viewer: Viewer | None, *, co_interviewer: bool = False) -> Relation:
    """The relation of a `Viewer` (ASSIGNED is the session's own interviewer unless
    `co_interviewer`)."""
    return {
        Viewer.CANDIDATE: Relation.CANDIDATE,
        Viewer.ASSIGNED: Relation.CO_INTERVIEWER if co_interviewer else Relation.INTERVIEWER,
        Viewer.UNASSIGNED: Relation.OTHER_INTERVIEWER,
        Viewer.AUTHOR: Relation.AUTHOR,
        Viewer.ADMIN: Relation.ADMIN,
        Viewer.SHARE_LINK: Relation.SHARE_LINK,
        Viewer.OTHER: Relation.OTHER_CANDIDATE,
    }.get(viewer or Viewer.ANONYMOUS, Relation.ANONYMOUS)
