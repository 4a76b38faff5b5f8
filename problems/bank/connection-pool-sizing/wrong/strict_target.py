"""Known-wrong: requires the p99 wait to be strictly below the target (the target is an upper
bound that may be met exactly)."""

import heapq
import math


def _p99_wait(arrivals: list[int], service: list[int], pool: int) -> int:
    free_at = [0] * pool
    waits = []
    for arrival, duration in zip(arrivals, service, strict=True):
        start = max(arrival, free_at[0])
        heapq.heapreplace(free_at, start + duration)
        waits.append(start - arrival)
    waits.sort()
    return waits[math.ceil(0.99 * len(waits)) - 1]


def min_pool_size(arrivals: list[int], service: list[int], target_p99_wait: int) -> int:
    lo, hi = 1, len(arrivals)
    while lo < hi:
        mid = (lo + hi) // 2
        if _p99_wait(arrivals, service, mid) < target_p99_wait:
            hi = mid
        else:
            lo = mid + 1
    return lo
