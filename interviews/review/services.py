"""Writes of the review: scorecards with evidence, private notes, release, shares, panels."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from interviews.models import (
    CriterionScore,
    InterviewSession,
    ReportShare,
    ReviewAssignment,
    ReviewNote,
    Scorecard,
    ScorecardAmendment,
    ScoreRelease,
)
from interviews.review import access, evidence, webhooks
from interviews.review.evidence import Evidence
from interviews.services import SessionError
from problems.package import criterion_title

MAX_NOTE_CHARS = 4000
MAX_COMMENT_CHARS = 4000
MAX_EVIDENCE = evidence.MAX_PER_CRITERION


class ScorecardInvalid(SessionError):
    """A refused rubric form; `fields` maps each refused criterion to why, so the page shows
    every error beside its criterion (and keeps every value)."""

    def __init__(self, fields: dict[str, str]) -> None:
        first = next(iter(fields.items()))
        super().__init__("bad_evidence", f"{_title(first[0])}: {first[1]}")
        self.fields = fields


def _title(criterion: str) -> str:
    return criterion_title(criterion)


def criteria_of(session: InterviewSession) -> list[str]:
    """The criteria of the session's problem rubric, in the author's order."""
    return [str(item["criterion"]) for item in session.content.rubric or []
            if isinstance(item, dict) and item.get("criterion")]


def _require_scorer(session: InterviewSession, user: Any) -> None:
    if access.review_role(session, user) is None:
        raise SessionError("not_found", "no such session")
    if not access.can_score(session, user):
        raise SessionError("forbidden", "only the session's interviewers score it")


def _level(raw: Any) -> int | None:
    if raw in (None, ""):
        return None
    try:
        level = int(raw)
    except (TypeError, ValueError):
        raise SessionError("bad_level", "a level is 1, 2, 3 or 4") from None
    if not 1 <= level <= 4:
        raise SessionError("bad_level", "a level is 1, 2, 3 or 4")
    return level


def scorecard_save(*, session: InterviewSession, user: Any, recommendation: str, summary: str,
                   scores: dict[str, dict[str, Any]], submit: bool) -> Scorecard:
    """Save (and, with `submit`, lock) the user's scorecard.

    `scores` maps criterion → {"level", "comment", "evidence"}. A submitted scorecard is no
    draft any more (autosaves and drafts are refused), but until the scores are released its
    writer may amend it with another complete submit: each amendment is recorded (who, when,
    what changed), since the others may already have read the first version. Once released,
    the candidate has read it: it is final.
    """
    _require_scorer(session, user)
    criteria = criteria_of(session)
    unknown = set(scores) - set(criteria)
    if unknown:
        raise SessionError("bad_criterion", f"not a criterion of this rubric: {sorted(unknown)[0]}")
    if recommendation not in Scorecard.Recommendation.values:
        raise SessionError("bad_recommendation", "unknown recommendation")
    cleaned: dict[str, tuple[int | None, str, list[Evidence]]] = {}
    refused: dict[str, str] = {}
    for criterion, item in scores.items():
        comment = str(item.get("comment", ""))[:MAX_COMMENT_CHARS]
        try:
            items = evidence.evidence_parse(raw=item.get("evidence"))
            evidence.evidence_check(session=session, items=items)
        except SessionError as exc:
            refused[criterion] = exc.message
            continue
        cleaned[criterion] = (_level(item.get("level")), comment, items)
    if refused:
        raise ScorecardInvalid(refused)
    with transaction.atomic():
        # The session's row is the lock `scores_release` takes too: an amendment and a
        # release never interleave (no amendment lands after the candidate was shown the card).
        InterviewSession.objects.select_for_update().filter(pk=session.pk).first()
        card, _ = Scorecard.objects.select_for_update().get_or_create(session=session,
                                                                      interviewer=user)
        amending = card.submitted_at is not None
        if amending:
            if ScoreRelease.objects.filter(session=session).exists():
                raise SessionError("submitted", "the scores are released to the candidate: "
                                   "this scorecard can no longer be amended")
            if not submit:
                raise SessionError("submitted", "this scorecard is submitted already: "
                                   "amend it with a complete submit")
        before = _card_state(card)
        card.recommendation = recommendation
        card.summary = summary[:MAX_COMMENT_CHARS]
        for criterion, (level, comment, items) in cleaned.items():
            CriterionScore.objects.update_or_create(
                scorecard=card, criterion=criterion,
                defaults={"level": level, "comment": comment,
                          "evidence": [e.stored() for e in items]},
            )
        if submit:
            levels = dict(card.scores.values_list("criterion", "level"))
            missing = [c for c in criteria if levels.get(c) is None]
            if missing:
                raise SessionError("incomplete", f"no level for {_title(missing[0])}")
            if not recommendation:
                raise SessionError("incomplete", "choose a recommendation")
            if not amending:
                card.submitted_at = timezone.now()
        changes = card_changes(before, _card_state(card)) if amending else []
        if amending and not changes:
            return card  # nothing changed: no amendment to record, no webhook
        card.save()
        if changes:
            ScorecardAmendment.objects.create(scorecard=card, author=user, changes=changes)
        if submit:
            data = scored_data(card)
            transaction.on_commit(lambda: webhooks.webhook_send(webhooks.SESSION_SCORED, data))
    return card


def _card_state(card: Scorecard) -> dict[str, Any]:
    """A scorecard as flat fields (what an amendment compares)."""
    state: dict[str, Any] = {"recommendation": card.recommendation, "summary": card.summary}
    if card.pk is None:
        return state
    for s in CriterionScore.objects.filter(scorecard=card):
        state[f"{s.criterion}.level"] = s.level
        state[f"{s.criterion}.comment"] = s.comment
        state[f"{s.criterion}.evidence"] = list(s.evidence or [])
    return state


def card_changes(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """What differs, field by field, in the scorecard's order."""
    return [{"field": key, "before": before.get(key), "after": after.get(key)}
            for key in after if before.get(key) != after.get(key)
            and not (before.get(key) in (None, "", []) and after.get(key) in (None, "", []))]


def scorecard_evidence_add(*, session: InterviewSession, user: Any, criterion: str,
                           token: str) -> tuple[CriterionScore, evidence.Chip]:
    """Add one cited item to the criterion of the user's draft scorecard (the replay's cite
    buttons); citing an item twice keeps one. Returns the criterion and the item's chip."""
    _require_scorer(session, user)
    if criterion not in criteria_of(session):
        raise SessionError("bad_criterion", "not a criterion of this rubric")
    item = evidence.evidence_parse_one(token)
    evidence.evidence_check(session=session, items=[item])
    with transaction.atomic():
        # Locked: two cites at once from two tabs must both land, not overwrite each other.
        card, _ = Scorecard.objects.select_for_update().get_or_create(session=session,
                                                                      interviewer=user)
        if card.submitted_at is not None:
            raise SessionError("submitted", "this scorecard is submitted already")
        score, _ = CriterionScore.objects.get_or_create(scorecard=card, criterion=criterion)
        stored = list(score.evidence or [])
        if item.stored() not in stored:
            if len(stored) >= MAX_EVIDENCE:
                raise SessionError("bad_evidence", f"at most {MAX_EVIDENCE} pieces of evidence "
                                   "a criterion")
            score.evidence = [*stored, item.stored()]
            score.save(update_fields=["evidence"])
        card.save(update_fields=["updated_at"])
    return score, evidence.evidence_labels(session=session, reviewer=True).chip(item)


def scored_data(card: Scorecard) -> dict[str, Any]:
    """The `session.scored` webhook's data."""
    return {
        "session": card.session_id,
        "interviewer": card.interviewer.get_username(),
        "recommendation": card.recommendation,
        "submitted_at": card.submitted_at.isoformat() if card.submitted_at else None,
        "scores": {s.criterion: s.level for s in card.scores.all()},
    }


def review_note_add(*, session: InterviewSession, user: Any, text: str) -> ReviewNote:
    """A private note of a reviewer."""
    if access.review_role(session, user) is None:
        raise SessionError("not_found", "no such session")
    text = text.strip()
    if not text or len(text) > MAX_NOTE_CHARS:
        raise SessionError("bad_note", f"a note is 1 to {MAX_NOTE_CHARS} characters")
    return ReviewNote.objects.create(session=session, author=user, text=text)


def scores_release(*, session: InterviewSession, user: Any) -> ScoreRelease:
    """Show the rubric outcome to the candidate; needs one submitted scorecard at least."""
    if access.review_role(session, user) is None:
        raise SessionError("not_found", "no such session")
    with transaction.atomic():
        # The lock an amendment takes (`scorecard_save`): release waits for one in flight.
        InterviewSession.objects.select_for_update().filter(pk=session.pk).first()
        if not session.scorecards.exclude(submitted_at=None).exists():
            raise SessionError("nothing_to_release", "no submitted scorecard yet")
        release, _ = ScoreRelease.objects.get_or_create(session=session,
                                                        defaults={"released_by": user})
    return release


def share_create(*, session: InterviewSession, user: Any) -> ReportShare:
    """A new share link of the report (the candidate's or a reviewer's to make)."""
    if access.report_role(session, user) is None:
        raise SessionError("not_found", "no such session")
    if session.status != InterviewSession.Status.FINISHED:
        raise SessionError("not_finished", "the report exists once the session is over")
    if session.on_a_draft:
        # Its statement, board and rubric are a draft's: no one outside the problem's authors.
        raise SessionError("draft_round", "a round of a draft version is not shared: "
                           "its problem version is not published")
    return ReportShare.objects.create(session=session, created_by=user)


def share_revoke(*, session: InterviewSession, user: Any, share_id: int) -> ReportShare:
    if access.report_role(session, user) is None:
        raise SessionError("not_found", "no such session")
    share = ReportShare.objects.filter(session=session, pk=share_id).first()
    if share is None:
        raise SessionError("not_found", "no such share link")
    if share.revoked_at is None:
        share.revoked_at = timezone.now()
        share.save(update_fields=["revoked_at"])
    return share


def reviewer_assign(*, session: InterviewSession, user: Any, username: str) -> ReviewAssignment:
    """The session's interviewer or an admin adds an interviewer to its panel (the rule is
    `core.roles.may_add_co_interviewer`, the same as the live cockpit's)."""
    from interviews.services import co_interviewer_add

    return co_interviewer_add(session=session, user=user, username=username)
