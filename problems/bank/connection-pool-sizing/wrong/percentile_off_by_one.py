"""Known-wrong: takes the p99 as waits[int(0.99 * n)], one rank too high when 0.99 * n is whole
(with 100 requests it returns the maximum wait instead of the 99th smallest)."""

import heapq


def _p99_wait(arrivals: list[int], service: list[int], pool: int) -> int:
    free_at = [0] * pool
    waits = []
    for arrival, duration in zip(arrivals, service, strict=True):
        start = max(arrival, free_at[0])
        heapq.heapreplace(free_at, start + duration)
        waits.append(start - arrival)
    waits.sort()
    return waits[min(len(waits) - 1, int(0.99 * len(waits)))]


def min_pool_size(arrivals: list[int], service: list[int], target_p99_wait: int) -> int:
    lo, hi = 1, len(arrivals)
    while lo < hi:
        mid = (lo + hi) // 2
        if _p99_wait(arrivals, service, mid) <= target_p99_wait:
            hi = mid
        else:
            lo = mid + 1
    return lo
