"""One lifecycle for every background job: enqueue on its lane, claim with a lease, renew it
while working, finish only while holding the claim, release for retry with backoff, give up
past the attempt cap, and be handed out again by the sweeper when the broker lost it.

Submissions, problem validations and regrade previews all run through it. A job is a row with
a status field and the four bookkeeping fields `attempts`, `claim_token`, `lease_until` and
`enqueued_at`. Leases are short and renewed by a heartbeat while the job runs, so a worker
that dies (SIGKILL, a lost host) gives its job up within one lease, not one whole time budget.
A `JobKind` says, once for each kind, which table holds its rows, which task grades them, on
which lane (grading/lanes.py) and within which time budget; enqueueing, the broker-outage
handling and the sweep are written here, once.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import F, Q
from django.utils import timezone

from grading.lanes import Lane, queue_name

log = logging.getLogger(__name__)


class Outcome(StrEnum):
    """What one attempt at a job came to; a Celery task acts on it."""

    DONE = "done"  # finished, its result stored
    SKIPPED = "skipped"  # nothing to do: finished already, or gone
    BUSY = "busy"  # another live worker holds it: try again once its lease may have run out
    RETRY = "retry"  # released after a platform fault: try again with backoff
    FAILED = "failed"  # gave up past the attempt cap (IE for a submission, never charged)


@dataclass(frozen=True)
class Claim:
    pk: int
    token: uuid.UUID
    attempt: int


def lease_seconds() -> float:
    return float(settings.ONSITE_LEASE_SECONDS)


def max_attempts() -> int:
    return int(settings.ONSITE_GRADE_MAX_ATTEMPTS)


def retry_countdown(attempts: int) -> float:
    """Exponential backoff after a platform fault: base, 2×base, 4×base… capped at 5 minutes."""
    base: float = settings.ONSITE_GRADE_RETRY_BASE_SECONDS
    return float(min(300.0, base * 2 ** max(0, attempts - 1)))


def task_time_limits(budget_seconds: float) -> dict[str, float]:
    """Celery's soft and hard limits for a job whose work may take `budget_seconds`: above
    the sandbox's own deadline, never below it."""
    return {"soft_time_limit": budget_seconds + 30, "time_limit": budget_seconds + 60}


@dataclass(frozen=True)
class JobTable:
    """How one model stores its jobs: the status field and which of its values mean what."""

    model: type[models.Model]
    status_field: str
    waiting: tuple[str, ...]  # may be claimed: queued, or released for a retry
    running: str
    retrying: str  # where a released job waits for its next attempt
    failed: str

    def _rows(self, pk: int) -> models.QuerySet[Any]:
        return self.model._default_manager.filter(pk=pk)

    def claim(self, pk: int, **fields: Any) -> Claim | Outcome:
        """Take job `pk` with one conditional UPDATE, or say why not.

        The race it prevents: the same job delivered twice (a redelivery after a worker died,
        the sweeper's re-enqueue) must run once. A waiting job, or a running one whose lease
        ran out (its worker died), can be claimed, and only below the attempt cap; a job at
        the cap is given up here, so none is retried forever.
        """
        now = timezone.now()
        token = uuid.uuid4()
        claimable = Q(**{f"{self.status_field}__in": self.waiting}) | Q(
            **{self.status_field: self.running, "lease_until__lt": now}
        )
        claimed = (
            self._rows(pk)
            .filter(claimable, attempts__lt=max_attempts())
            .update(
                **{self.status_field: self.running},
                claim_token=token,
                lease_until=now + timedelta(seconds=lease_seconds()),
                attempts=F("attempts") + 1,
                **fields,
            )
        )
        if claimed == 1:
            attempt = self._rows(pk).values_list("attempts", flat=True).get()
            return Claim(pk=pk, token=token, attempt=attempt)
        row = self._rows(pk).values(self.status_field, "lease_until", "attempts").first()
        if row is None:
            return Outcome.SKIPPED
        status, lease_until = row[self.status_field], row["lease_until"]
        if status == self.running and (lease_until is None or lease_until >= now):
            return Outcome.BUSY  # a live holder (or one from before leases: never taken over)
        if status in self.waiting or status == self.running:
            return Outcome.FAILED  # at the cap: the caller gives it up
        return Outcome.SKIPPED

    def busy_countdown(self, pk: int) -> float:
        """Seconds until the current holder's lease runs out (at least one)."""
        lease_until = self._rows(pk).values_list("lease_until", flat=True).first()
        if lease_until is None:
            return 1.0
        return max(1.0, (lease_until - timezone.now()).total_seconds() + 1.0)

    def renew(self, claim: Claim) -> bool:
        """Extend the lease; False when the claim was lost (another worker took over)."""
        until = timezone.now() + timedelta(seconds=lease_seconds())
        return self._rows(claim.pk).filter(claim_token=claim.token).update(lease_until=until) == 1

    def finish(self, claim: Claim, **fields: Any) -> bool:
        """Store the result, only while holding the claim: a worker that was taken over (its
        lease ran out) must not overwrite the newer run's result."""
        updated = (
            self._rows(claim.pk)
            .filter(claim_token=claim.token)
            .update(claim_token=None, lease_until=None, **fields)
        )
        return updated == 1

    def release(
        self,
        claim: Claim,
        *,
        error: str,
        retry_fields: Mapping[str, Any] | None = None,
        failed_fields: Mapping[str, Any] | None = None,
    ) -> Outcome:
        """Put the job back after a platform fault, or give it up past the attempt cap."""
        give_up = claim.attempt >= max_attempts()
        fields: dict[str, Any] = (
            {self.status_field: self.failed, **(failed_fields or {})}
            if give_up
            else {self.status_field: self.retrying, **(retry_fields or {})}
        )
        self.finish(claim, **fields)
        log.warning(
            "%s %s: platform fault (%s), %s",
            self.model.__name__,
            claim.pk,
            error,
            "gave up" if give_up else "will retry",
        )
        return Outcome.FAILED if give_up else Outcome.RETRY

    def give_up(self, pk: int, **fields: Any) -> bool:
        """Fail a job that reached the attempt cap without a live holder."""
        now = timezone.now()
        stuck = Q(**{f"{self.status_field}__in": self.waiting}) | Q(
            **{self.status_field: self.running, "lease_until__lt": now}
        )
        return (
            self._rows(pk)
            .filter(stuck, attempts__gte=max_attempts())
            .update(
                **{self.status_field: self.failed},
                claim_token=None,
                lease_until=None,
                **fields,
            )
            == 1
        )

    def stale(self, *, stale_after_seconds: float) -> models.QuerySet[Any]:
        """Jobs the queue may have lost: waiting and never handed out (or too long ago), or
        running under a lease that ran out (a dead worker)."""
        now = timezone.now()
        old = now - timedelta(seconds=stale_after_seconds)
        waiting = Q(**{f"{self.status_field}__in": self.waiting})
        return self.model._default_manager.filter(
            (waiting & (Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=old)))
            | Q(**{self.status_field: self.running, "lease_until__lt": now})
        )

    def reset(self, pk: int, **fields: Any) -> bool:
        """Make job `pk` waiting again from scratch (a new request for the same row), unless a
        live worker holds it; whether it was reset. Enqueue it once the transaction commits."""
        held = Q(**{self.status_field: self.running}) & (
            Q(lease_until__isnull=True) | Q(lease_until__gte=timezone.now())
        )
        reset = (
            self._rows(pk)
            .exclude(held)
            .update(
                **{self.status_field: self.waiting[0]},
                attempts=0,
                claim_token=None,
                lease_until=None,
                enqueued_at=None,
                **fields,
            )
        )
        return reset == 1

    def mark_enqueued(self, pk: int) -> None:
        """Called once the broker accepted the job's message (never before: a failed publish
        leaves `enqueued_at` empty, and the sweeper hands the job out at its next pass)."""
        self._rows(pk).update(enqueued_at=timezone.now())

    @contextmanager
    def heartbeat(self, claim: Claim) -> Iterator[None]:
        """Renew the claim's lease every third of a lease while the block runs.

        A renewal that fails (SQLite's "database is locked" while another process writes, a
        dropped connection) is logged and tried again at once with a short backoff, never
        left for the next beat: the lease must not run out while its worker is alive, or
        another worker takes the running job over. Each try waits for the write lock at most
        a quarter of the lease (`_bound_lock_wait`), so a failure is seen, logged and retried
        well within the lease instead of after SQLite's 30-second timeout. It keeps trying
        until it renews, the claim turns out lost, or the block ends.
        """
        stop = threading.Event()
        lease = lease_seconds()
        interval = max(0.5, lease / 3)
        per_try = max(0.2, lease / 4)

        def beat() -> None:
            lease_ends = time.monotonic() + lease  # as of the claim, just before the block
            failures = 0
            wait = interval
            try:
                while not stop.wait(wait):
                    started = time.monotonic()
                    try:
                        _bound_lock_wait(per_try)
                        renewed = self.renew(claim)
                    except Exception as exc:  # a database hiccup: retry within the lease
                        failures += 1
                        left = lease_ends - time.monotonic()
                        wait = min(interval, RENEW_BACKOFF_SECONDS * 2 ** min(failures - 1, 8))
                        if left > 0:
                            log.warning(
                                "%s %s: lease renewal failed (try %d, %.1f s of the lease "
                                "left), retrying in %.2f s: %s", self.model.__name__,
                                claim.pk, failures, left, wait, exc,
                            )  # fmt: skip
                        else:
                            log.error(
                                "%s %s: lease renewal failed (try %d) and the lease ran out: "
                                "another worker may take the job over; retrying: %s",
                                self.model.__name__, claim.pk, failures, exc,
                            )  # fmt: skip
                        continue
                    if not renewed:
                        log.warning("%s %s: claim lost", self.model.__name__, claim.pk)
                        return
                    if failures:
                        log.info("%s %s: lease renewed after %d failed tries",
                                 self.model.__name__, claim.pk, failures)  # fmt: skip
                    failures = 0
                    lease_ends = started + lease
                    wait = interval
            finally:  # the thread ends: close its own connection (no health check needed)
                connection.close()

        thread = threading.Thread(target=beat, name=f"lease-{claim.pk}", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=interval + per_try + 5)


# The first pause before a failed renewal is tried again; doubled per failure, at most a beat.
RENEW_BACKOFF_SECONDS = 0.1


def _bound_lock_wait(seconds: float) -> None:
    """On SQLite, make this thread's connection wait at most `seconds` for another writer's
    lock (the connection's own timeout, 30 s, outlasts a lease). Other databases: nothing."""
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")


@dataclass(frozen=True)
class JobKind:
    """One kind of job, said once: its rows, its task, its lane and its time budget.

    `queue_kind(row)` is `cpu` or `gpu` (where the row's sandbox image is), `lane(row)` its
    urgency, `budget_seconds(row)` the longest its work may take (Celery's limits lie above
    it). `related` are the relations `enqueue` reads, fetched with the sweep's rows.
    """

    name: str
    table: JobTable
    task: str  # the Celery task's name; it takes the row's pk
    queue_kind: Callable[[Any], str]
    lane: Callable[[Any], Lane]
    budget_seconds: Callable[[Any], float]
    related: tuple[str, ...] = ()

    def queue(self, row: Any) -> str:
        return queue_name(self.queue_kind(row), self.lane(row))

    def enqueue(self, row: Any, *, countdown: float = 0) -> bool:
        """Hand `row` to its lane's queue; whether the broker took it. A broker outage loses
        nothing: the row stays waiting with no `enqueued_at`, and the sweep hands it out."""
        try:
            current_app.send_task(
                self.task,
                args=[row.pk],
                queue=self.queue(row),
                countdown=countdown,
                **task_time_limits(self.budget_seconds(row)),
            )
        except Exception:  # kombu/redis raise many types; the sweep retries all of them
            log.exception("could not enqueue %s %s; the sweep will retry", self.name, row.pk)
            return False
        self.table.mark_enqueued(row.pk)
        return True

    def enqueue_on_commit(self, row: Any) -> None:
        transaction.on_commit(lambda: self.enqueue(row))

    def requeue_stale(self) -> int:
        """Hand out again what the queue may have lost (a broker restart, a dead worker, a
        publish that failed while the broker was down). Claims are idempotent: a duplicate
        delivery is skipped by the claim."""
        stale = self.table.stale(stale_after_seconds=settings.ONSITE_STALE_SUBMISSION_SECONDS)
        count = 0
        for row in stale.select_related(*self.related):
            self.enqueue(row)
            count += 1
        return count


KINDS: dict[str, JobKind] = {}


def register(kind: JobKind) -> JobKind:
    """Record a job kind (each app declares its own); the sweep covers every one."""
    KINDS[kind.name] = kind
    return kind


def requeue_all_stale() -> dict[str, int]:
    """The sweep: every registered kind's lost jobs handed out again."""
    return {name: kind.requeue_stale() for name, kind in KINDS.items()}
