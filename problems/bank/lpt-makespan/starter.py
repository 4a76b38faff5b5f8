"""LPT scheduling of jobs onto m identical machines (see the statement for the exact rules)."""

from __future__ import annotations


def lpt_schedule(durations: list[int], m: int) -> tuple[list[list[int]], int]:
    """Return (machines, makespan): machines[k] = job ids on machine k, in assignment order."""
    raise NotImplementedError
