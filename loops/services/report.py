"""The candidate's combined feedback report of a loop: per round what the single-session
report releases (`interviews.review.selectors.report_data`, whose release rule is the
round's `ScoreRelease`), one after the other.

The candidate reads it once the loop's report is released (`Loop.released_at`, set by
`loops.services.debrief.feedback_release`, which releases every round with a submitted
scorecard); its judges read it any time, to see what the candidate will. Nobody else.
"""

from __future__ import annotations

from typing import Any

from core.visibility import LoopViewer
from interviews.models import InterviewSession
from interviews.review.selectors import report_data
from loops import access
from loops.models import Loop
from loops.services.packet import PacketMissing


def combined_report(loop: Loop, user: Any) -> dict[str, Any]:
    viewer = access.loop_viewer(loop, user)
    judge = access.may_judge(loop, user)
    candidate = viewer == LoopViewer.CANDIDATE or (
        getattr(user, "is_authenticated", False) and loop.candidate_id == user.pk)
    if not judge and not (candidate and loop.released_at is not None):
        raise PacketMissing()
    rounds = []
    for loop_round in loop.rounds.select_related("session__problem", "session__candidate",
                                                 "session__final_submission"):
        session = loop_round.session
        finished = session.status == InterviewSession.Status.FINISHED
        rounds.append({"position": loop_round.position,
                       "label": loop_round.label or session.problem.title,
                       "session": session, "finished": finished,
                       "report": report_data(session) if finished else None})
    return {"loop": loop, "rounds": rounds, "released": loop.released_at is not None,
            "preview": judge and not candidate}
