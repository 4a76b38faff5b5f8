"""Interview sessions: the timed session, its document log (also the replay log), its timeline
events, clarifying questions and tradeoff notes.

The collaborative document is never stored as text: every Yjs update a participant makes is
kept, in order, with its author and time. The text at any moment is what applying the updates
up to that moment gives (`interviews.collab.text_from_updates`).
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from grading.models import Submission
from problems.models import Problem, ProblemVersion


def new_invite_token() -> str:
    """256 random bits, URL-safe: the link itself is the candidate's invitation."""
    return secrets.token_urlsafe(32)


class InterviewSession(models.Model):
    class Kind(models.TextChoices):
        SOLO = "solo"
        LIVE = "live"

    class Status(models.TextChoices):
        SCHEDULED = "scheduled"
        ACTIVE = "active"
        FINISHED = "finished"
        CANCELLED = "cancelled"  # a scheduled session called off before it started

    class FinishReason(models.TextChoices):
        DEADLINE = "deadline"
        CANDIDATE = "candidate"
        INTERVIEWER = "interviewer"

    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="sessions")
    # The version the session was started on, when it is not the live one: an author's solo
    # round on a draft (issue 38, 5). Null: the problem's live content, as every other session.
    problem_version = models.ForeignKey(ProblemVersion, null=True, blank=True,
                                        on_delete=models.PROTECT, related_name="+")
    # Null only for a live session whose invitation nobody has claimed yet.
    candidate = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                  on_delete=models.CASCADE, related_name="candidate_sessions")
    interviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="interviewer_sessions")
    kind = models.CharField(max_length=5, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED,
                              db_index=True)
    duration = models.DurationField()
    # Extra time granted at scheduling (an accommodation, WCAG 2.2.1): the clock runs for
    # duration + extra_time. Why it was granted is the candidate's business and the scheduler's
    # (`core.visibility.ACCOMMODATION`): the other interviewers see only the clock.
    extra_time = models.DurationField(default=timedelta(0))
    interviewer_can_edit = models.BooleanField(default=False)
    # Whether the candidate's own button opens the next hint (`core.visibility`'s
    # UNRELEASED_HINT row): on for solo practice; off by default for a live session, where the
    # interviewer releases hints from the cockpit.
    candidate_opens_hints = models.BooleanField(default=False)
    invite_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # Fixed when the session starts; moved only by the interviewer's extension (an
    # `extended` event records each): the server, not the page, decides when time is up.
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    finish_reason = models.CharField(max_length=12, choices=FinishReason.choices, blank=True)
    final_submission = models.ForeignKey(Submission, null=True, blank=True,
                                         on_delete=models.SET_NULL, related_name="+")
    # Live sessions: when the interview is planned (the clock still starts when the candidate
    # joins), where the invitation went, and the video meeting both sides open beside it.
    scheduled_for = models.DateTimeField(null=True, blank=True)
    candidate_email = models.EmailField(blank=True)
    call_link = models.URLField(max_length=500, blank=True)
    invitation_sent_at = models.DateTimeField(null=True, blank=True)
    # Why the last attempt at the invitation e-mail failed (sent by a task on the io queue).
    invitation_error = models.CharField(max_length=200, blank=True)
    # The calendar entry's SEQUENCE (RFC 5545): raised by every reschedule, resend and cancel,
    # so a calendar replaces the entry it holds under the same UID. Its changes: ScheduleChange.
    calendar_sequence = models.PositiveIntegerField(default=0)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def status_now(self) -> str:
        """The status as the clock has it: a running session past its deadline reads as
        finished before the sweeper (interviews.tasks) has stored that. Readers use this, so
        no read ever has to write."""
        if self.status == self.Status.ACTIVE and self.deadline and self.deadline <= timezone.now():
            return str(self.Status.FINISHED)
        return str(self.status)

    @property
    def content(self) -> Problem | ProblemVersion:
        """What the session shows and reads of its problem (statement, kind, starter, hints,
        clarifications, rubric): the version it was started on, else the problem's live
        content. The one place that choice is made."""
        if self.problem_version_id is not None:
            assert self.problem_version is not None
            return self.problem_version
        return self.problem

    @property
    def on_a_draft(self) -> bool:
        """Whether it was started on a version candidates cannot see (an author's round of a
        draft): not the live version of an offered problem. Its report is never shared."""
        if self.problem_version_id is None:
            return False
        live = self.problem_version_id == self.problem.live_version_id
        return not (live and Problem.objects.offered().filter(pk=self.problem_id).exists())

    @property
    def clock_length(self) -> timedelta:
        """How long the clock runs once started: the length plus any extra time granted."""
        return self.duration + (self.extra_time or timedelta(0))

    @property
    def duration_label(self) -> str:
        """The length as people say it ("45 minutes"), never "0:45:00"."""
        seconds = int(self.duration.total_seconds())
        if seconds < 60 or seconds % 60:
            return f"{seconds} seconds" if seconds < 120 else f"{round(seconds / 60)} minutes"
        minutes = seconds // 60
        return "1 minute" if minutes == 1 else f"{minutes} minutes"

    def __str__(self) -> str:
        return f"session #{self.pk} {self.kind} {self.problem_id} {self.status}"


class DocUpdate(models.Model):
    """One Yjs update (binary, v1 encoding) as the server stored it, before anyone saw it."""

    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE,
                                related_name="doc_updates")
    # Null for the update the server wrote itself (the starter code).
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                               on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(db_index=True)
    data = models.BinaryField()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["session", "id"], name="docupdate_session_seq")]

    def __str__(self) -> str:
        return f"update #{self.pk} of session {self.session_id}"


class SessionEvent(models.Model):
    """Something that happened at a moment of the session, for the replay's timeline."""

    class Kind(models.TextChoices):
        JOINED = "joined"
        LEFT = "left"
        RUN = "run"
        SUBMIT = "submit"
        # Scratch runs at the desk (grading/scratch.py): graded on nothing hidden, never a
        # pass or a submission, but on the timeline the interviewer and the replay see.
        CUSTOM_RUN = "custom_run"
        CONSOLE_RUN = "console_run"
        FINAL_SUBMIT = "final_submit"
        PASTE = "paste"
        TAB_HIDDEN = "tab_hidden"
        TAB_VISIBLE = "tab_visible"
        EDIT_REFUSED = "edit_refused"
        SETTINGS = "settings"
        FINISHED = "finished"
        HINT = "hint"
        # The candidate of a live session says they have finished: only the interviewer ends
        # it, so this tells them (the cockpit's notice, the timeline) and changes nothing else.
        DONE = "done"
        # The interviewer gave the session more time (`data`: minutes, the new deadline).
        EXTENDED = "extended"

    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(db_index=True)
    data = models.JSONField(default=dict, blank=True)
    submission = models.ForeignKey(Submission, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.kind} at {self.at:%H:%M:%S} in session {self.session_id}"


class ScheduleChange(models.Model):
    """One step of a live session's schedule (invited, rescheduled, resent, cancelled): who,
    when, the start and length it set, the calendar SEQUENCE its e-mail carried, and whether
    that e-mail went out. The schedule page lists them; the e-mail is built from this row, so a
    mail that waited in the queue still says what its change said."""

    class Action(models.TextChoices):
        INVITED = "invited"
        RESCHEDULED = "rescheduled"
        RESENT = "resent"
        CANCELLED = "cancelled"

    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE,
                                related_name="schedule_changes")
    action = models.CharField(max_length=12, choices=Action.choices)
    sequence = models.PositiveIntegerField()
    scheduled_for = models.DateTimeField(null=True, blank=True)
    duration = models.DurationField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                           on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField()
    # The e-mail of this change: the addresses it went to, when, or why not.
    recipients = models.JSONField(default=list, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.action} #{self.sequence} of session {self.session_id}"


# The events the live page's Activity panel shows the interviewer alone (the candidate's
# pastes and tab leaves: `core.visibility.ACTIVITY_SIGNALS`); every later channel, the replay
# and the report's evidence labels, shows them to the same viewers.
ACTIVITY_KINDS = frozenset({SessionEvent.Kind.PASTE, SessionEvent.Kind.TAB_HIDDEN,
                            SessionEvent.Kind.TAB_VISIBLE})


class Question(models.Model):
    """A clarifying question, its answer, and how it compares with the problem's canned ones."""

    class Source(models.TextChoices):
        PENDING = ""  # a live question the interviewer has not answered yet
        INTERVIEWER = "interviewer"
        CANNED = "canned"  # solo: the matched clarification's answer
        ASSUMPTION = "assumption"  # solo: nothing matched; the candidate states an assumption

    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE,
                                related_name="questions")
    asked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                 related_name="+")
    text = models.TextField()
    asked_at = models.DateTimeField()
    answer = models.TextField(blank=True)
    answer_source = models.CharField(max_length=12, choices=Source.choices, blank=True)
    answered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="+")
    answered_at = models.DateTimeField(null=True, blank=True)
    # The closest canned clarification at or above the threshold, if any.
    matched_index = models.PositiveIntegerField(null=True, blank=True)
    matched_key = models.BooleanField(default=False)  # that clarification is a key question
    similarity = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["asked_at", "id"]

    def __str__(self) -> str:
        return f"question #{self.pk} in session {self.session_id}"


class Note(models.Model):
    """An entry of the session's tradeoffs/notes panel."""

    class Kind(models.TextChoices):
        TRADEOFF = "tradeoff"
        NOTE = "note"

    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE, related_name="notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                               related_name="+")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.TRADEOFF)
    text = models.TextField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} in session {self.session_id}"


class ChatMessage(models.Model):
    """A line of the session's text chat: seen by both sides, kept for the replay and report."""

    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE,
                                related_name="chat_messages")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                               related_name="+")
    role = models.CharField(max_length=12)  # "candidate" or "interviewer" when it was sent
    text = models.TextField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"chat #{self.pk} in session {self.session_id}"


# ---------------------------------------------------------------- review (issue 7)


class ReviewAssignment(models.Model):
    """An extra interviewer on a session's panel (besides `InterviewSession.interviewer`)."""

    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE,
                                related_name="review_assignments")
    interviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                    related_name="review_assignments")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "interviewer"],
                                               name="unique_review_assignment")]

    def __str__(self) -> str:
        return f"{self.interviewer_id} reviews session {self.session_id}"


class ReviewNote(models.Model):
    """A private interviewer note: never shown to the candidate, nor in the shared panel."""

    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE,
                                related_name="review_notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                               related_name="+")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"review note #{self.pk} on session {self.session_id}"


class Scorecard(models.Model):
    """One interviewer's rubric for one session. Editable until submitted."""

    class Recommendation(models.TextChoices):
        NONE = ""
        STRONG_NO = "strong_no", "Strong no"
        NO = "no", "No"
        YES = "yes", "Yes"
        STRONG_YES = "strong_yes", "Strong yes"

    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE,
                                related_name="scorecards")
    interviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                    related_name="scorecards")
    recommendation = models.CharField(max_length=10, choices=Recommendation.choices, blank=True)
    summary = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["session", "interviewer"],
                                               name="unique_scorecard")]

    def __str__(self) -> str:
        return f"scorecard of {self.interviewer_id} on session {self.session_id}"


class CriterionScore(models.Model):
    """A level 1-4 for one rubric criterion, a comment, and the evidence behind it.

    `evidence` is a list of {"kind": "moment" | "submission" | "question", "value": int}:
    a moment is milliseconds since the session started (a point of the replay).
    """

    scorecard = models.ForeignKey(Scorecard, on_delete=models.CASCADE, related_name="scores")
    criterion = models.CharField(max_length=40)
    level = models.PositiveSmallIntegerField(null=True, blank=True)
    comment = models.TextField(blank=True)
    evidence = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["scorecard", "criterion"],
                                               name="unique_criterion_score")]

    def __str__(self) -> str:
        return f"{self.criterion}={self.level} on scorecard {self.scorecard_id}"


class ScorecardAmendment(models.Model):
    """One change to a submitted scorecard before release: who, when, and what changed.

    `changes` is a list of {"field", "before", "after"}: `field` is "recommendation",
    "summary", or "<criterion>.level" / ".comment" / ".evidence"; values as stored.
    """

    scorecard = models.ForeignKey(Scorecard, on_delete=models.CASCADE,
                                  related_name="amendments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                               related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    changes = models.JSONField(default=list)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"amendment of scorecard {self.scorecard_id} at {self.at}"


class ScoreRelease(models.Model):
    """The moment the rubric outcome became visible to the candidate (one per session)."""

    session = models.OneToOneField(InterviewSession, on_delete=models.CASCADE,
                                   related_name="score_release")
    released_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True,
                                    on_delete=models.SET_NULL, related_name="+")
    released_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"scores of session {self.session_id} released"


def new_share_token() -> str:
    """256 random bits: whoever holds the link reads the report, so it must be unguessable."""
    return secrets.token_urlsafe(32)


class ReportShare(models.Model):
    """A share link to a candidate's feedback report; revoking it keeps the row for the record."""

    session = models.ForeignKey(InterviewSession, on_delete=models.CASCADE,
                                related_name="report_shares")
    token = models.CharField(max_length=64, unique=True, default=new_share_token)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"share of session {self.session_id}"



class BoardSnapshot(models.Model):
    """A design session's board and notes as they were when it finished (one per session):
    the elements (Excalidraw's, live ones in drawing order), the SVG the server drew from
    them (`interviews.board.board_svg`, never a browser's picture) and the notes pane's text.
    Written by the call that finishes the session (`interviews.services.boards`); `error`
    says why a part could not be read, and an empty `svg` reads "diagram unavailable"."""

    session = models.OneToOneField(InterviewSession, on_delete=models.CASCADE,
                                   related_name="board_snapshot")
    elements = models.JSONField(default=list, blank=True)
    svg = models.TextField(blank=True)
    notes = models.TextField(blank=True)
    error = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"board of session {self.session_id}"
