"""Known-wrong: replays sorted(zip(arrivals, service)) "to be safe", which breaks ties between
same-time arrivals by service time: a short request overtakes a long one that came before it
in the trace (the rule is FIFO in trace order, no overtaking)."""

import heapq


def _late_count_within(
    arrivals: list[int], service: list[int], pool: int, target: int, allowed: int
) -> bool:
    """Replay the trace on ``pool`` connections; True if at most ``allowed`` requests wait
    longer than ``target``.

    FIFO in trace order: each request takes the connection that frees up first, as soon as
    both it and that connection are there. A heap of "free at" times makes each request
    O(log pool). We stop as soon as too many requests are late, so undersized pools fail fast.
    """
    free_at = [0] * pool  # every connection is idle from time 0
    late = 0
    for arrival, duration in sorted(zip(arrivals, service, strict=True)):  # the bug
        earliest = free_at[0]
        start = arrival if earliest <= arrival else earliest
        heapq.heapreplace(free_at, start + duration)
        if start - arrival > target:
            late += 1
            if late > allowed:
                return False
    return True


def min_pool_size(arrivals: list[int], service: list[int], target_p99_wait: int) -> int:
    """Smallest pool size whose nearest-rank p99 queueing delay is at most ``target_p99_wait``.

    The p99 is the k-th smallest wait with k = ceil(0.99 * n), so it is within the target
    exactly when at most n - k requests wait longer than the target: no sort needed.
    Adding a connection never delays any request, so "pool is big enough" is monotone in the
    pool size and we can binary search it: O(n log n log c) overall.
    """
    n = len(arrivals)
    allowed = n - (99 * n + 99) // 100  # integer ceil, no floating-point rounding

    def ok(pool: int) -> bool:
        return _late_count_within(arrivals, service, pool, target_p99_wait, allowed)

    # Gallop up to a big-enough size (n connections never make anyone wait), then bisect.
    lo, hi = 1, 1
    while not ok(hi):
        lo = hi + 1
        hi = min(n, hi * 2)
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
