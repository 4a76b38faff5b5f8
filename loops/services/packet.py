"""What a loop's hiring packet says, for one reader: each round's rubric outcome with its
cited evidence, every interviewer's recommendation side by side, strengths and concerns by
criterion across rounds, the integrity signals as the review computes them (pastes, tab
leaves, copied code), and the debrief (the decision, its reason and its audit).

Which rounds a reader reads is the policy's (`core.visibility.loop_round_visible`, asked
through `loops.access`): a round the reader may not read shows who interviewed it and why its
scorecards are closed, nothing of them. The page and the PDF are drawn from this one dict.
"""

from __future__ import annotations

from typing import Any

from core import visibility
from core.errors import ApplicationError
from core.roles import is_admin
from core.visibility import LoopViewer
from grading.copies import copied_code_view
from interviews.models import Scorecard
from interviews.review import access as review_access
from interviews.review.evidence import evidence_labels
from interviews.review.selectors import half_up, rubric_rows, scorecard_view
from interviews.review.suggest import integrity_note, session_signals
from interviews.services import session_clock_state
from loops import access
from loops.models import Loop, LoopRound
from problems.package import criterion_title

STRENGTH_FROM = 3  # a level of 3 or 4 is a strength; 1 or 2 a concern
SUBMIT_FIRST = "submit_first"
NEVER = "never"


class PacketMissing(ApplicationError):
    def __init__(self) -> None:
        super().__init__("not_found", "no such loop")


def _outcome(loop_round: LoopRound, cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rubric outcome of a round over the scorecards the reader reads: the mean level per
    criterion and the anchor's words at the nearest level, every cited item beside it."""
    rows = []
    for row in rubric_rows(loop_round.session):
        scored = [c["scores"][row["criterion"]] for c in cards
                  if c["scores"].get(row["criterion"], {}).get("level")]
        if not scored:
            continue
        mean = sum(s["level"] for s in scored) / len(scored)
        nearest = half_up(mean)
        anchor = row["levels"][nearest - 1] if len(row["levels"]) >= nearest else ""
        anchor = anchor.split(": ", 1)[1] if anchor[:2] == f"{nearest}:" else anchor
        rows.append({"criterion": row["criterion"], "title": criterion_title(row["criterion"]),
                     "level": round(mean, 1), "anchor": anchor,
                     "evidence": [chip for s in scored for chip in s["chips"] if chip["valid"]]})
    return rows


def _round(loop: Loop, loop_round: LoopRound, user: Any, *, viewer: LoopViewer,
           panel: set[int], own_done: bool, channel: visibility.Channel) -> dict[str, Any]:
    session = loop_round.session
    on_panel = loop_round.session_id in panel
    visible = visibility.loop_round_visible(viewer, on_panel=on_panel,
                                            setting=loop.feedback_visibility,
                                            own_submitted=own_done)
    data: dict[str, Any] = {
        "position": loop_round.position,
        "label": loop_round.label or session.problem.title,
        "problem": session.problem.title,
        "session": session,
        "interviewer": session.interviewer.get_username() if session.interviewer else "",
        "state": str(session_clock_state(session)),
        "scheduled_for": session.scheduled_for,
        "on_panel": on_panel,
        "visible": visible,
        "hidden": "" if visible else (NEVER if loop.feedback_visibility == NEVER
                                      else SUBMIT_FIRST),
        "review_url": on_panel or is_admin(user),
        "cards": [], "outcome": [], "integrity": None, "copied": None, "waiting": 0,
    }
    if not visible:
        return data
    cards = Scorecard.objects.filter(session=session).exclude(submitted_at=None).select_related(
        "interviewer", "session")
    if not access.round_cards_visible(loop_round, user, on_panel=on_panel):
        cards = cards.filter(interviewer=user)  # the session's own rule: theirs first
        data["waiting"] = Scorecard.objects.filter(session=session).exclude(
            interviewer=user).exclude(submitted_at=None).count()
    labels = evidence_labels(session=session, reviewer=True)
    data["cards"] = [scorecard_view(card, labels) for card in cards]
    data["outcome"] = _outcome(loop_round, data["cards"])
    round_viewer = (review_access.session_viewer(session, user) if on_panel
                    else visibility.loop_round_viewer(viewer, admin=is_admin(user)))
    if visibility.may_see(visibility.ACTIVITY_SIGNALS, round_viewer, channel):
        signals = session_signals(session)
        data["integrity"] = {"note": integrity_note(signals), "pastes": signals.pastes,
                             "paste_chars": signals.paste_chars,
                             "tab_leaves": signals.tab_leaves,
                             "tab_away_ms": signals.tab_away_ms}
    if session.final_submission is not None:
        data["copied"] = copied_code_view(submission=session.final_submission, user=user,
                                          channel=channel, viewer=round_viewer)
    return data


def _side_by_side(rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every interviewer's recommendation the reader reads, round by round."""
    return [{"round": r["position"], "label": r["label"], "interviewer": card["interviewer"],
             "recommendation": card["recommendation"],
             "recommendation_label": card["recommendation_label"] or "—",
             "summary": card["summary"]}
            for r in rounds for card in r["cards"]]


def _by_criterion(rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Strengths (level 3 or 4) and concerns (1 or 2) per criterion across the rounds, each
    with the round, who wrote it, the level, the comment and the cited evidence."""
    order: list[str] = []
    table: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in rounds:
        for card in r["cards"]:
            for criterion, score in card["scores"].items():
                if not score.get("level"):
                    continue
                title = score.get("title") or criterion_title(criterion)
                if title not in table:
                    order.append(title)
                    table[title] = {"strengths": [], "concerns": []}
                side = "strengths" if score["level"] >= STRENGTH_FROM else "concerns"
                table[title][side].append({
                    "round": r["position"], "label": r["label"],
                    "interviewer": card["interviewer"], "level": score["level"],
                    "comment": score.get("comment", ""),
                    "evidence": [c["label"] for c in score.get("chips", []) if c["valid"]]})
    return [{"criterion": title, **table[title]} for title in order]


def debrief(loop: Loop) -> dict[str, Any]:
    return {
        "decision": loop.decision,
        "decision_label": dict(Loop.Decision.choices).get(loop.decision, "") if loop.decision
        else "",
        "reason": loop.decision_reason,
        "decided_by": loop.decided_by.get_username() if loop.decided_by else "",
        "decided_at": loop.decided_at,
        "closed": loop.status == Loop.Status.CLOSED,
        "closed_at": loop.closed_at,
        "released_at": loop.released_at,
        "changes": [{"by": c.by.get_username() if c.by else "—", "at": c.at,
                     "decision": dict(Loop.Decision.choices).get(c.decision, c.decision),
                     "reason": c.reason, "closed": c.closed}
                    for c in loop.decision_changes.select_related("by")],
        "choices": [c for c in Loop.Decision.choices if c[0]],
    }


def packet(loop: Loop, user: Any,
           channel: visibility.Channel = visibility.Channel.PAGE) -> dict[str, Any]:
    """The hiring packet of `loop` as `user` may read it; PacketMissing for anyone who may
    not open it (the 404 of a missing loop)."""
    viewer = access.loop_viewer(loop, user)
    if viewer not in visibility.LOOP_PACKET_READERS or channel in visibility.OUTSIDE_CHANNELS:
        raise PacketMissing()
    panel = access.panel_sessions(loop, user)
    own_done = access.own_submitted(loop, user)
    rounds = [_round(loop, r, user, viewer=viewer, panel=panel, own_done=own_done,
                     channel=channel)
              for r in loop.rounds.select_related("session__problem", "session__interviewer",
                                                  "session__final_submission")]
    judge = access.may_judge(loop, user)
    must_submit = (viewer == LoopViewer.INTERVIEWER and not own_done
                   and loop.feedback_visibility == visibility.FEEDBACK_AFTER_OWN)
    return {
        "loop": loop,
        "viewer": str(viewer),
        "setting": loop.feedback_visibility,
        "setting_label": loop.get_feedback_visibility_display(),
        "must_submit": must_submit,
        "own_rounds": [r for r in rounds if r["on_panel"]],
        "rounds": rounds,
        "side_by_side": _side_by_side(rounds),
        "by_criterion": _by_criterion(rounds),
        "judge": judge,
        "debrief": debrief(loop) if judge else None,
        "candidate": loop.candidate.get_username() if loop.candidate else loop.candidate_email,
    }
