"""Reference: Longest-Processing-Time-first (LPT) scheduling on m identical machines.

Jobs are taken by duration descending (ties: lower job id first); each goes to the machine with
the least load so far (ties: lower machine index). A heap keyed on (load, index) gives exactly
that tie-break, so the whole schedule is O(n log n + n log m) instead of O(n * m).
"""

from __future__ import annotations

import heapq


def lpt_schedule(durations: list[int], m: int) -> tuple[list[list[int]], int]:
    """Return (machines, makespan): machines[k] lists job ids in the order they were assigned."""
    machines: list[list[int]] = [[] for _ in range(m)]
    # Stable sort, still stable with reverse=True: equal durations keep ascending job ids.
    order = sorted(range(len(durations)), key=durations.__getitem__, reverse=True)
    heap = [(0, k) for k in range(m)]  # already a valid heap: loads equal, indices ascending
    for job in order:
        load, k = heap[0]
        machines[k].append(job)
        heapq.heapreplace(heap, (load + durations[job], k))
    makespan = max((load for load, _ in heap), default=0)
    return machines, makespan
