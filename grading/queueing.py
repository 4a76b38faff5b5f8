"""Where a waiting run stands: how many runs are ahead of it in its worker's lanes, and about
how long until it starts. Reads only; `/metrics` reports the numbers it is made of (waiting
runs per lane, grading slots per lane, the recent time a grading takes).

The wait is simulated, not multiplied: each run ahead holds a slot for the measured service
time of its own problem and mode (a Submit of a PyTorch problem is not a Run of a small one;
the worker's recent slot times, weighted to the newest, grading/service_times.py), each running
grading for the time it has left, and the lane's slots take them in order. The same simulation
with the low and high service times gives a range, shown when it is wide or the times were
guessed (too few gradings measured).
"""

from __future__ import annotations

import heapq
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from grading import service_times
from grading.lanes import FOREGROUND, KINDS, LANE_ORDER, Lane, lanes_ahead, queue_name
from grading.models import Submission
from grading.workerstore import pool_stats_read

RECENT_RUNS = 30  # the gradings a database service-time estimate is taken from
MIN_SAMPLES = 3  # fewer gradings of one problem and mode than this: borrow, as a range
DEFAULT_SERVICE_SECONDS = 5.0  # before anything of that kind was graded
RANGE_SPREAD = 1.5  # a range is shown when the high estimate is over this × the low one
FEW_LOW, FEW_HIGH = 0.5, 2.0  # a guessed service time is at least this range about the middle
QUARTILE_Z = 0.674  # the quartiles of a normal spread, in standard deviations
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
    """How long one grading holds a slot: a low, middle and high figure (the quartiles of
    measured gradings). Borrowed from the problem's peers or from too few of its own gradings,
    the figures are widened to at least half and twice the middle one: a range, not a number."""

    low: float
    mid: float
    high: float

    def widened(self) -> Service:
        low, high = min(self.low, FEW_LOW * self.mid), max(self.high, FEW_HIGH * self.mid)
        return Service(low, self.mid, high)

    @classmethod
    def of(cls, durations: Sequence[float]) -> Service:
        if len(durations) < 2:
            only = durations[0] if durations else DEFAULT_SERVICE_SECONDS
            return cls(only, only, only)
        q1, q2, q3 = statistics.quantiles(durations, n=4, method="inclusive")
        return cls(q1, q2, q3)

    @classmethod
    def measured(cls, times: service_times.Measured) -> Service:
        """From the worker's weighted mean and spread of slot times (grading/service_times.py):
        the quartiles of a normal spread about that mean."""
        spread = QUARTILE_Z * times.sd
        return cls(max(0.0, times.mean - spread), times.mean, times.mean + spread)


class ServiceTimes:
    """Service times of the most specific group measured enough (MIN_SAMPLES gradings): the
    problem and mode (a continuous-batching Submit is not a token-bucket Run), from the worker's
    slot times in Redis, else from the database's start-to-verdict spans; else the few of its
    own (the studio's validation records the live reference's grading as its first Submit),
    widened to a range; else the kind's gradings in that mode, widened likewise (another problem
    is only a guess); else DEFAULT_SERVICE_SECONDS, widened. Runs and Submits are never mixed
    (a Run of four public tests says little of a Submit of thirty). Each group is read once
    per estimate."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._cache: dict[tuple[int, str], Service] = {}

    def of(self, submission: Submission) -> Service:
        key = (submission.problem_id, submission.mode)
        if key not in self._cache:
            self._cache[key] = self._group(*key)
        return self._cache[key]

    def _sources(self, problem_id: int | None, mode: str) -> tuple[int, Service | None]:
        """(samples, service) of one group: the worker's slot times once there are enough of
        them, else whichever of them and the database's spans has more samples."""
        times = service_times.read(kind=self.kind, mode=mode, problem_id=problem_id)
        if times.n >= MIN_SAMPLES:
            return times.n, Service.measured(times)
        filters: dict[str, Any] = {"problem__queue": self.kind, "mode": mode}
        if problem_id is not None:
            filters["problem_id"] = problem_id
        durations = _durations(**filters)
        if len(durations) > times.n:
            return len(durations), Service.of(durations)
        return times.n, Service.measured(times) if times.n else None

    def _group(self, problem_id: int, mode: str) -> Service:
        own_n, own = self._sources(problem_id, mode)
        if own is not None:  # enough of its own: them; a few (its validation's): a range
            return own if own_n >= MIN_SAMPLES else own.widened()
        _, peers = self._sources(None, mode)
        return (peers or Service.of([])).widened()


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


def _before(submission: Submission) -> Q:
    """The runs of its lane the broker hands out before `submission`: those enqueued earlier
    (requests made at once commit and enqueue out of id order: by id, a burst of eight
    Submits was told the wrong places), or, while it is not enqueued yet (the broker was
    down: the sweep hands it out later), every one enqueued and the older ones not. Read from
    the database: the caller's copy may predate its enqueueing (written after the commit)."""
    enqueued = (
        Submission.objects.filter(pk=submission.pk).values_list("enqueued_at", flat=True).first()
    )
    if enqueued is None:
        return Q(enqueued_at__isnull=False) | Q(pk__lt=submission.pk)
    return Q(enqueued_at__lt=enqueued) | Q(enqueued_at=enqueued, pk__lt=submission.pk)


def _broker_order(submission: Submission) -> tuple[bool, float, int]:
    at = submission.enqueued_at
    return (at is None, at.timestamp() if at else 0.0, submission.pk)


def queue_position(submission: Submission) -> Position | None:
    """Where a waiting submission stands; None once it is no longer waiting."""
    if submission.status not in WAITING:
        return None
    kind, lane = submission.problem.queue, Lane(submission.lane)
    more_urgent = [str(other) for other in lanes_ahead(lane) if other != lane]
    same_kind = Submission.objects.filter(problem__queue=kind).only(
        "pk", "problem_id", "mode", "lane", "started_at", "enqueued_at"
    )
    ahead = list(
        same_kind.filter(status__in=WAITING)
        .filter(Q(lane__in=more_urgent) | (Q(lane=lane) & _before(submission)))
        .exclude(pk=submission.pk)
    )
    # The most urgent lane is taken first, each lane in the broker's order.
    ahead.sort(key=lambda s: (LANE_ORDER.index(Lane(s.lane)), *_broker_order(s)))
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
