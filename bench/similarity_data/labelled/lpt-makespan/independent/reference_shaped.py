"""Wrong (WA): list scheduling in input order (forgot to sort longest first); the heap and
tie-breaks are right, so it is fast but the schedule and often the makespan differ.
"""

from __future__ import annotations

import heapq


def lpt_schedule(durations: list[int], m: int) -> tuple[list[list[int]], int]:
    """Return (machines, makespan): machines[k] lists job ids in the order they were assigned."""
    machines: list[list[int]] = [[] for _ in range(m)]
    order = range(len(durations))
    heap = [(0, k) for k in range(m)]  # already a valid heap: loads equal, indices ascending
    for job in order:
        load, k = heap[0]
        machines[k].append(job)
        heapq.heapreplace(heap, (load + durations[job], k))
    makespan = max((load for load, _ in heap), default=0)
    return machines, makespan
