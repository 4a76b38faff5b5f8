"""Known-wrong: requires the p99 wait to be strictly below the target (the target is an upper
bound that may be met exactly), i.e. counts a wait equal to the target as late."""

import heapq


def _fits(arrivals: list[int], service: list[int], pool: int, target: int, allowed: int) -> bool:
    free_at = [0] * pool
    late = 0
    for arrival, duration in zip(arrivals, service, strict=True):
        start = max(arrival, free_at[0])
        heapq.heapreplace(free_at, start + duration)
        if start - arrival >= target:
            late += 1
            if late > allowed:
                return False
    return True


def min_pool_size(arrivals: list[int], service: list[int], target_p99_wait: int) -> int:
    n = len(arrivals)
    allowed = n - (99 * n + 99) // 100
    lo, hi = 1, 1
    while not _fits(arrivals, service, hi, target_p99_wait, allowed):
        if hi == n:
            return n  # even one connection per request cannot get below the target
        lo, hi = hi + 1, min(n, hi * 2)
    while lo < hi:
        mid = (lo + hi) // 2
        if _fits(arrivals, service, mid, target_p99_wait, allowed):
            hi = mid
        else:
            lo = mid + 1
    return lo
