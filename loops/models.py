"""Onsite loops: several rounds for one candidate, one hiring packet and a recorded decision.

A loop does not copy what a round is: each round IS an interview session
(`interviews.InterviewSession`, live, or solo for a practice loop), with its own problem,
interviewer, panel, calendar UID/SEQUENCE, scorecards and report. The loop adds the order, the
breaks, who may read whose scorecard, and the hiring manager's decision. Dependencies run one
way: loops -> interviews, never back.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models

from interviews.models import InterviewSession


class Loop(models.Model):
    class Kind(models.TextChoices):
        LIVE = "live"  # interviewers run the rounds
        PRACTICE = "practice"  # a mock onsite: one person takes the rounds back to back, solo

    class Status(models.TextChoices):
        SCHEDULED = "scheduled"
        CLOSED = "closed"  # the decision is final: no more amendments
        CANCELLED = "cancelled"

    class FeedbackVisibility(models.TextChoices):
        """Who may read the other rounds' scorecards (Greenhouse's three answers)."""

        NEVER = "never", "Never"
        ALWAYS = "always", "Always"
        AFTER_OWN = "after_own", "Only after submitting their own"

    class Decision(models.TextChoices):
        NONE = ""
        HIRE = "hire", "Hire"
        NO_HIRE = "no_hire", "No hire"
        HOLD = "hold", "Hold"

    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.LIVE)
    title = models.CharField(max_length=120)  # e.g. "ML infrastructure engineer onsite"
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED,
                              db_index=True)
    # Null until the candidate claims an invitation (as for a single live session).
    candidate = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                  on_delete=models.CASCADE, related_name="candidate_loops")
    candidate_email = models.EmailField(blank=True)
    # The IANA zone the loop page and the e-mail show the day in (e.g. "Europe/Berlin").
    candidate_timezone = models.CharField(max_length=64, default="UTC")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True,
                                   on_delete=models.SET_NULL, related_name="created_loops")
    hiring_manager = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                       on_delete=models.SET_NULL, related_name="managed_loops")
    feedback_visibility = models.CharField(max_length=10, choices=FeedbackVisibility.choices,
                                           default=FeedbackVisibility.AFTER_OWN)
    created_at = models.DateTimeField(auto_now_add=True)
    invitation_sent_at = models.DateTimeField(null=True, blank=True)
    invitation_error = models.CharField(max_length=200, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    # The debrief: the decision and its reason stay amendable (each change is a
    # LoopDecisionChange) until the loop is closed.
    decision = models.CharField(max_length=8, choices=Decision.choices, blank=True)
    decision_reason = models.TextField(blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    # When the candidate's combined feedback report was released (null: not yet).
    released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"loop #{self.pk}: {self.title}"


class LoopRound(models.Model):
    """One round of a loop, in order: its session, and the break that follows it."""

    loop = models.ForeignKey(Loop, on_delete=models.CASCADE, related_name="rounds")
    position = models.PositiveSmallIntegerField()  # 1, 2, 3 ... in the day's order
    session = models.OneToOneField(InterviewSession, on_delete=models.CASCADE,
                                   related_name="loop_round")
    label = models.CharField(max_length=60, blank=True)  # e.g. "Coding", "ML debugging"
    break_after = models.DurationField(default=timedelta(0))
    # When the chaser asked this round's missing scorecards (null: not yet).
    chased_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["loop", "position"]
        constraints = [models.UniqueConstraint(fields=["loop", "position"],
                                               name="unique_loop_position")]

    def __str__(self) -> str:
        return f"round {self.position} of loop {self.loop_id}"


class LoopDecisionChange(models.Model):
    """The audit of a loop's debrief: every recorded or amended decision, who and when."""

    loop = models.ForeignKey(Loop, on_delete=models.CASCADE, related_name="decision_changes")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                           related_name="+")
    at = models.DateTimeField()
    decision = models.CharField(max_length=8, choices=Loop.Decision.choices, blank=True)
    reason = models.TextField(blank=True)
    closed = models.BooleanField(default=False)  # this change closed the loop

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"decision change #{self.pk} on loop {self.loop_id}"


class PracticeRound(models.Model):
    """A booked round of a practice loop (a mock onsite for one person), before it is taken:
    its problem (chosen, or picked for the candidate) and length, its label and the break
    after it. Taking it starts a solo session and writes the loop's `LoopRound` (the round as
    taken, at the same position, with this label and break); the booking stays as it was."""

    loop = models.ForeignKey(Loop, on_delete=models.CASCADE, related_name="practice_rounds")
    position = models.PositiveSmallIntegerField()
    label = models.CharField(max_length=60, blank=True)
    problem = models.ForeignKey("problems.Problem", on_delete=models.PROTECT, related_name="+")
    duration = models.DurationField()
    break_after = models.DurationField(default=timedelta(0))
    picked = models.BooleanField(default=False)  # "pick for me": the platform chose it

    class Meta:
        ordering = ["loop", "position"]
        constraints = [models.UniqueConstraint(fields=["loop", "position"],
                                               name="unique_practice_position")]

    def __str__(self) -> str:
        return f"practice round {self.position} of loop {self.loop_id}"
