"""Lanes by urgency: which broker queue a job goes to, and the order a worker takes them in.

Django-free (platform/run.py reads it to start the workers). Every job kind has a queue kind
(`cpu` or `gpu`: where its sandbox image and devices are) and a lane:

* `interactive`: a person is watching it: Run, custom input, console, and every run inside a
  live or solo session;
* `submit`: a Submit outside a session (a person waits, but a verdict against the hidden suite
  takes longer anyway);
* `background`: nobody waits on it: validation, regrade preview, calibration.

Each (kind, lane) is a queue of its own (`cpu.interactive`, `cpu.submit`, `cpu.background`,
and the same for `gpu`); webhook deliveries, e-mail and the beat's sweeps go to `io`, which
no grading slot serves. The broker's `queue_order_strategy` is `priority`, so a worker that
consumes several queues always polls them in the order it was given them: `worker_queues`
lists them most urgent first. See docs/architecture.md ("Lanes").
"""

from __future__ import annotations

from enum import StrEnum

KINDS = ("cpu", "gpu")
IO_QUEUE = "io"


class Lane(StrEnum):
    INTERACTIVE = "interactive"
    SUBMIT = "submit"
    BACKGROUND = "background"


LANE_ORDER = (Lane.INTERACTIVE, Lane.SUBMIT, Lane.BACKGROUND)  # most urgent first
FOREGROUND = (Lane.INTERACTIVE, Lane.SUBMIT)


def queue_name(kind: str, lane: Lane | str) -> str:
    """The broker queue of jobs of queue kind `kind` in `lane`."""
    if kind not in KINDS:
        raise ValueError(f"unknown queue kind {kind!r}")
    return f"{kind}.{Lane(lane)}"


def worker_queues(kind: str, lanes: tuple[Lane, ...] = LANE_ORDER) -> str:
    """The `-Q` argument of a worker serving `lanes` of `kind`, most urgent first."""
    ordered = [lane for lane in LANE_ORDER if lane in lanes]
    return ",".join(queue_name(kind, lane) for lane in ordered)


def all_queues() -> tuple[str, ...]:
    """Every queue the platform publishes to (what /metrics reports, what a purge empties)."""
    return (*(queue_name(k, lane) for k in KINDS for lane in LANE_ORDER), IO_QUEUE)


def lanes_ahead(lane: Lane | str) -> tuple[Lane, ...]:
    """The lanes a worker serves before `lane` (and `lane` itself)."""
    lane = Lane(lane)
    return LANE_ORDER[: LANE_ORDER.index(lane) + 1]
