"""Wrong (WA): Best-Fit-Decreasing instead of First-Fit-Decreasing: each replica goes to the GPU
whose free memory is the SMALLEST that still fits (ties by lowest index). Efficient (a max
segment tree over free-memory values, a heap of GPU indices per value), but a different rule.
"""

from __future__ import annotations

import heapq


def first_fit_decreasing(sizes: list[int], capacity: int) -> list[int] | None:
    n = len(sizes)
    if any(s > capacity for s in sizes):
        return None
    order = sorted(range(n), key=sizes.__getitem__, reverse=True)
    # buckets[r] = heap of GPU indices whose free memory is exactly r (open GPUs only)
    buckets: list[list[int]] = [[] for _ in range(capacity + 1)]
    leaves = 1 << max(0, capacity).bit_length()
    count = [0] * (2 * leaves)  # count[k] = number of open GPUs with a free value under node k
    gpus = 0

    def add(value: int, delta: int) -> None:
        node = value + leaves
        while node:
            count[node] += delta
            node >>= 1

    def smallest_at_least(need: int) -> int:
        """Smallest free value >= need held by some open GPU, or -1."""
        node = need + leaves
        if count[node]:
            return need
        while node > 1:  # climb until a right sibling holds something, then descend leftmost
            if node % 2 == 0 and count[node + 1]:
                node += 1
                while node < leaves:
                    node = 2 * node if count[2 * node] else 2 * node + 1
                return node - leaves
            node >>= 1
        return -1

    assignment = [0] * n
    for i in order:
        need = sizes[i]
        value = smallest_at_least(need)
        if value < 0:
            g = gpus
            gpus += 1
            free = capacity
        else:
            g = heapq.heappop(buckets[value])
            add(value, -1)
            free = value
        assignment[i] = g
        heapq.heappush(buckets[free - need], g)
        add(free - need, 1)
    return assignment
