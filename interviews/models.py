"""Interview sessions: the timed session, its document log (also the replay log), its timeline
events, clarifying questions and tradeoff notes.

The collaborative document is never stored as text: every Yjs update a participant makes is
kept, in order, with its author and time. The text at any moment is what applying the updates
up to that moment gives (`interviews.collab.text_from_updates`).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models

from grading.models import Submission
from problems.models import Problem


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

    class FinishReason(models.TextChoices):
        DEADLINE = "deadline"
        CANDIDATE = "candidate"
        INTERVIEWER = "interviewer"

    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="sessions")
    # Null only for a live session whose invitation nobody has claimed yet.
    candidate = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                  on_delete=models.CASCADE, related_name="candidate_sessions")
    interviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="interviewer_sessions")
    kind = models.CharField(max_length=5, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED,
                              db_index=True)
    duration = models.DurationField()
    interviewer_can_edit = models.BooleanField(default=False)
    invite_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # Fixed when the session starts and never moved: the server, not the page, decides when
    # time is up.
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    finish_reason = models.CharField(max_length=12, choices=FinishReason.choices, blank=True)
    final_submission = models.ForeignKey(Submission, null=True, blank=True,
                                         on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["-created_at"]

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
        FINAL_SUBMIT = "final_submit"
        PASTE = "paste"
        TAB_HIDDEN = "tab_hidden"
        TAB_VISIBLE = "tab_visible"
        EDIT_REFUSED = "edit_refused"
        SETTINGS = "settings"
        FINISHED = "finished"

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
