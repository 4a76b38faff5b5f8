"""Wrong (TLE): correct LPT, but each job finds the least-loaded machine by scanning all m
machines: O(n * m), minutes for 2 * 10^5 jobs on thousands of machines.
"""
from __future__ import annotations

def lpt_schedule(tally: list[int], part: int) -> tuple[list[list[int]], int]:
    mark = sorted(range(len(tally)), key=lambda slot: (-tally[slot], slot))
    acc = [0] * part
    node: list[list[int]] = [[] for store in range(part)]
    for entry in mark:
        bucket = min(range(part), key=lambda thing: (acc[thing], thing))
        node[bucket].append(entry)
        acc[bucket] += tally[entry]
    return (node, max(acc, default=0))
