"""Wrong (TLE): correct LPT, but each job finds the least-loaded machine by scanning all m
machines: O(n * m), minutes for 2 * 10^5 jobs on thousands of machines.
"""
from __future__ import annotations

def lpt_schedule(durations: list[int], m: int) -> tuple[list[list[int]], int]:
    loads = [0] * m
    order = sorted(range(len(durations)), key=lambda j: (-durations[j], j))
    machines: list[list[int]] = [[] for _ in range(m)]
    for job in order:
        best = min(range(m), key=lambda k: (loads[k], k))
        machines[best].append(job)
        loads[best] += durations[job]
    return (machines, max(loads, default=0))
