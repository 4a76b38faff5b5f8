"""Known-wrong: sizes the pool on the mean wait instead of the p99 wait."""

import heapq


def _mean_wait(arrivals: list[int], service: list[int], pool: int) -> float:
    free_at = [0] * pool
    total = 0
    for arrival, duration in zip(arrivals, service, strict=True):
        start = max(arrival, free_at[0])
        heapq.heapreplace(free_at, start + duration)
        total += start - arrival
    return total / len(arrivals)


def min_pool_size(arrivals: list[int], service: list[int], target_p99_wait: int) -> int:
    n = len(arrivals)
    lo, hi = 1, 1
    while _mean_wait(arrivals, service, hi) > target_p99_wait:
        lo, hi = hi + 1, min(n, hi * 2)
    while lo < hi:
        mid = (lo + hi) // 2
        if _mean_wait(arrivals, service, mid) <= target_p99_wait:
            hi = mid
        else:
            lo = mid + 1
    return lo
