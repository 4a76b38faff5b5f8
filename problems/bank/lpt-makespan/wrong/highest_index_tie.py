"""Wrong (WA): among equally loaded machines it picks the HIGHEST index (heap keyed on
(load, -index)), contradicting the tie rule.
"""

from __future__ import annotations

import heapq


def lpt_schedule(durations: list[int], m: int) -> tuple[list[list[int]], int]:
    """Return (machines, makespan): machines[k] lists job ids in the order they were assigned."""
    machines: list[list[int]] = [[] for _ in range(m)]
    # Stable sort, still stable with reverse=True: equal durations keep ascending job ids.
    order = sorted(range(len(durations)), key=durations.__getitem__, reverse=True)
    heap = [(0, -k) for k in range(m)]
    heapq.heapify(heap)
    for job in order:
        load, neg = heap[0]
        machines[-neg].append(job)
        heapq.heapreplace(heap, (load + durations[job], neg))
    makespan = max((load for load, _ in heap), default=0)
    return machines, makespan
