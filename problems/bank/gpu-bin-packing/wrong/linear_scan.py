"""Wrong (TLE): correct First-Fit-Decreasing, but each replica scans the GPUs from index 0:
O(n * gpus), far too slow for 10^5 replicas spread over tens of thousands of GPUs.
"""

from __future__ import annotations


def first_fit_decreasing(sizes: list[int], capacity: int) -> list[int] | None:
    if any(s > capacity for s in sizes):
        return None
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    free: list[int] = []
    assignment = [0] * len(sizes)
    for i in order:
        for g in range(len(free)):
            if free[g] >= sizes[i]:
                free[g] -= sizes[i]
                assignment[i] = g
                break
        else:
            free.append(capacity - sizes[i])
            assignment[i] = len(free) - 1
    return assignment
