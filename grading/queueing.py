"""Where a waiting run stands: how many runs are ahead of it in its worker's lanes, and about
how long until it starts. Reads only; `/metrics` reports the numbers it is made of (waiting
runs per lane, grading slots per lane, the recent time a grading takes).

The wait is simulated, not multiplied: each run ahead holds a slot for the measured service
time of its own problem and mode (a Submit of a PyTorch problem is not a Run of a small one),
each running grading for the time it has left, and the slots take them in order. The same
simulation with the quartiles of those times gives a range, shown when it is wide.
"""

from __future__ import annotations

import heapq
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from grading.lanes import FOREGROUND, KINDS, LANE_ORDER, Lane, lanes_ahead, queue_name
from grading.models import Submission
from grading.workerstore import pool_stats_read

RECENT_RUNS = 30  # the gradings a service-time estimate is taken from
MIN_SAMPLES = 3  # fewer gradings of one problem and mode than this: use the wider group
DEFAULT_SERVICE_SECONDS = 5.0  # before anything of that kind was graded
RANGE_SPREAD = 1.5  # a range is shown when the high estimate is over this × the low one
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


def _durations(**filters: Any) -> list[float]:
    """Start-to-verdict seconds of the most recent finished gradings matching `filters`."""
    rows = (
        Submission.objects.filter(
            status=Submission.Status.DONE,
            started_at__isnull=False,
            finished_at__isnull=False,
            **filters,
        )
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:RECENT_RUNS]
    )
    return [(done - start).total_seconds() for start, done in rows if start and done]


def service_seconds(kind: str) -> float:
    """The median start-to-verdict time of the kind's recent gradings (what /metrics shows)."""
    durations = _durations(problem__queue=kind)
    return statistics.median(durations) if durations else DEFAULT_SERVICE_SECONDS


@dataclass(frozen=True)
class Service:
    """How long one grading holds a slot: the quartiles and median of measured gradings."""

    low: float
    mid: float
    high: float

    @classmethod
    def of(cls, durations: Sequence[float]) -> Service:
        if len(durations) < 2:
            only = durations[0] if durations else DEFAULT_SERVICE_SECONDS
            return cls(only, only, only)
        q1, q2, q3 = statistics.quantiles(durations, n=4, method="inclusive")
        return cls(q1, q2, q3)


class ServiceTimes:
    """Service times by the most specific group with enough samples: the problem and mode
    (a continuous-batching Submit is not a token-bucket Run), else the kind and mode, else
    the kind. Each group is read once per estimate."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._cache: dict[tuple[int | None, str | None], Service] = {}

    def of(self, submission: Submission) -> Service:
        return self._group(submission.problem_id, submission.mode)

    def _group(self, problem_id: int | None, mode: str | None) -> Service:
        key = (problem_id, mode)
        if key not in self._cache:
            filters: dict[str, Any] = {"problem__queue": self.kind}
            if mode is not None:
                filters["mode"] = mode
            if problem_id is not None:
                filters["problem_id"] = problem_id
            durations = _durations(**filters)
            if len(durations) >= MIN_SAMPLES or (problem_id is None and mode is None):
                self._cache[key] = Service.of(durations)
            else:  # too few of its own: the wider group
                wider = (None, mode) if problem_id is not None else (None, None)
                self._cache[key] = self._group(*wider)
        return self._cache[key]


def slots(kind: str, lane: Lane | str) -> int:
    """Grading slots (worker processes) serving the lane's queue, as the workers report them;
    at least one (a worker that has not reported yet still serves)."""
    queue = queue_name(kind, lane)
    return max(1, sum(1 for stats in pool_stats_read() if queue in stats.get("queues", ())))


def start_after(*, slots: int, running_left: Sequence[float], ahead: Sequence[float]) -> float:
    """Seconds until a run starts: `slots` slots, each held by a running grading for its time
    left (`running_left`) or free, and the gradings `ahead` taken in order, each by the slot
    that frees first (list scheduling, as the workers take the queue). Pure."""
    free = [0.0] * max(1, slots)
    for left in sorted(running_left):  # more running than slots: they queue too
        at = heapq.heappop(free)
        heapq.heappush(free, at + max(0.0, left))
    for seconds in ahead:
        at = heapq.heappop(free)
        heapq.heappush(free, at + max(0.0, seconds))
    return free[0]


@dataclass(frozen=True)
class Position:
    ahead: int  # waiting runs its worker takes first
    running: int  # runs holding the slots it waits for
    slots: int
    wait_seconds: float  # about how long until it starts (the median service times)
    wait_low_seconds: float = 0.0  # the same with each grading at its lower quartile
    wait_high_seconds: float = 0.0  # ... and at its upper quartile

    @property
    def uncertain(self) -> bool:
        """A range is worth showing: the high estimate is well above the low one."""
        return self.wait_high_seconds >= 1.0 and (
            self.wait_high_seconds > RANGE_SPREAD * max(self.wait_low_seconds, 0.1)
        )

    def as_event(self) -> dict[str, Any]:
        event: dict[str, Any] = {
            "ahead": self.ahead,
            "running": self.running,
            "slots": self.slots,
            "wait_seconds": round(self.wait_seconds, 1),
        }
        if self.uncertain:
            event["wait_range"] = [round(self.wait_low_seconds, 1),
                                   round(self.wait_high_seconds, 1)]
        return event


def _left(service: float, started: Any, now: Any) -> float:
    """Time a running grading still holds its slot: its expected service time less what it
    has run, never below a tenth of it (it has overrun the estimate: it ends soon, not now)."""
    elapsed = (now - started).total_seconds() if started else 0.0
    return max(service - elapsed, 0.1 * service)


def queue_position(submission: Submission) -> Position | None:
    """Where a waiting submission stands; None once it is no longer waiting."""
    if submission.status not in WAITING:
        return None
    kind, lane = submission.problem.queue, Lane(submission.lane)
    more_urgent = [str(other) for other in lanes_ahead(lane) if other != lane]
    same_kind = Submission.objects.filter(problem__queue=kind).only(
        "pk", "problem_id", "mode", "lane", "started_at"
    )
    ahead = list(
        same_kind.filter(status__in=WAITING)
        .filter(Q(lane__in=more_urgent) | Q(lane=lane, pk__lt=submission.pk))
    )
    # The most urgent lane is taken first, each lane in arrival order.
    ahead.sort(key=lambda s: (LANE_ORDER.index(Lane(s.lane)), s.pk))
    running = list(
        same_kind.filter(status=Submission.Status.RUNNING, lane__in=[str(fg) for fg in FOREGROUND])
    )
    serving = slots(kind, lane)
    times = ServiceTimes(kind)
    now = timezone.now()
    estimates = {}
    for part in ("low", "mid", "high"):
        estimates[part] = start_after(
            slots=serving,
            running_left=[_left(getattr(times.of(r), part), r.started_at, now) for r in running],
            ahead=[getattr(times.of(s), part) for s in ahead],
        )
    return Position(
        ahead=len(ahead),
        running=len(running),
        slots=serving,
        wait_seconds=estimates["mid"],
        wait_low_seconds=estimates["low"],
        wait_high_seconds=estimates["high"],
    )
