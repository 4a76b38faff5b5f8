"""Where a waiting run stands: how many runs are ahead of it in its worker's lanes, and about
how long until it starts. Reads only; `/metrics` reports the same numbers (waiting runs per
lane, grading slots per lane, the recent time a grading takes), so the estimate a candidate
sees and what an operator scrapes never disagree.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet

from grading.lanes import FOREGROUND, KINDS, LANE_ORDER, Lane, lanes_ahead, queue_name
from grading.models import Submission

RECENT_RUNS = 30  # the gradings the service-time estimate is taken from
DEFAULT_SERVICE_SECONDS = 5.0  # before anything of that kind was graded
WAITING = (Submission.Status.QUEUED, Submission.Status.RETRYING)


def waiting_runs() -> QuerySet[Submission]:
    return Submission.objects.filter(status__in=WAITING)


def waiting_by_lane() -> dict[tuple[str, str], int]:
    """Runs waiting for a grading slot, per (queue kind, lane)."""
    counts = {(kind, str(lane)): 0 for kind in KINDS for lane in LANE_ORDER}
    rows = waiting_runs().values("problem__queue", "lane").annotate(n=Count("pk"))
    for row in rows:
        counts[(row["problem__queue"], row["lane"])] = row["n"]
    return counts


def service_seconds(kind: str) -> float:
    """The median start-to-verdict time of the kind's recent gradings."""
    rows = (
        Submission.objects.filter(
            problem__queue=kind,
            status=Submission.Status.DONE,
            started_at__isnull=False,
            finished_at__isnull=False,
        )
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:RECENT_RUNS]
    )
    durations = [(done - start).total_seconds() for start, done in rows if start and done]
    return statistics.median(durations) if durations else DEFAULT_SERVICE_SECONDS


def slots(kind: str, lane: Lane | str) -> int:
    """Grading slots (worker processes) serving the lane's queue, as the workers report them;
    at least one (a worker that has not reported yet still serves)."""
    from grading.worker import pool_stats_read

    queue = queue_name(kind, lane)
    return max(1, sum(1 for stats in pool_stats_read() if queue in stats.get("queues", ())))


@dataclass(frozen=True)
class Position:
    ahead: int  # waiting runs its worker takes first
    running: int  # runs holding the slots it waits for
    slots: int
    wait_seconds: float  # about how long until it starts

    def as_event(self) -> dict[str, Any]:
        return {
            "ahead": self.ahead,
            "running": self.running,
            "slots": self.slots,
            "wait_seconds": round(self.wait_seconds, 1),
        }


def queue_position(submission: Submission) -> Position | None:
    """Where a waiting submission stands; None once it is no longer waiting."""
    if submission.status not in WAITING:
        return None
    kind, lane = submission.problem.queue, Lane(submission.lane)
    more_urgent = [str(other) for other in lanes_ahead(lane) if other != lane]
    same_kind = Submission.objects.filter(problem__queue=kind)
    ahead = (
        same_kind.filter(status__in=WAITING)
        .filter(Q(lane__in=more_urgent) | Q(lane=lane, pk__lt=submission.pk))
        .count()
    )
    running = same_kind.filter(
        status=Submission.Status.RUNNING, lane__in=[str(fg) for fg in FOREGROUND]
    ).count()
    serving = slots(kind, lane)
    # Runs to wait for before a slot is ours: those ahead and those running, less the slots.
    before_us = max(0, ahead + running - serving + 1)
    wait = math.ceil(before_us / serving) * service_seconds(kind) if before_us else 0.0
    return Position(ahead=ahead, running=running, slots=serving, wait_seconds=wait)
