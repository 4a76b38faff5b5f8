"""Known-wrong: puts the p99 at index int(0.99 * n) of the sorted waits, one rank too high when
0.99 * n is whole (with 100 requests that is the maximum wait, not the 99th smallest). Written
in counting form: it tolerates one late request too few."""

import heapq


def _fits(arrivals: list[int], service: list[int], pool: int, target: int, allowed: int) -> bool:
    free_at = [0] * pool
    late = 0
    for arrival, duration in zip(arrivals, service, strict=True):
        start = max(arrival, free_at[0])
        heapq.heapreplace(free_at, start + duration)
        if start - arrival > target:
            late += 1
            if late > allowed:
                return False
    return True


def min_pool_size(arrivals: list[int], service: list[int], target_p99_wait: int) -> int:
    n = len(arrivals)
    index = min(n - 1, int(0.99 * n))  # position of the p99 in the sorted waits
    allowed = n - 1 - index  # waits above that position may exceed the target
    lo, hi = 1, 1
    while not _fits(arrivals, service, hi, target_p99_wait, allowed):
        lo, hi = hi + 1, min(n, hi * 2)
    while lo < hi:
        mid = (lo + hi) // 2
        if _fits(arrivals, service, mid, target_p99_wait, allowed):
            hi = mid
        else:
            lo = mid + 1
    return lo
