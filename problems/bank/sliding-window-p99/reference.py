"""Reference solution for the sliding-window latency percentile tracker."""

import bisect
import math
from collections import deque


class LatencyWindow:
    """Exact percentiles of the latency samples recorded in the last ``window`` seconds.

    Two views of the same samples: a deque in arrival order (to evict the oldest ones) and a
    list kept sorted by value (to answer a rank in O(1)). Inserting into or deleting from the
    sorted list is a bisect plus a memmove, which is fast at these sizes; an order-statistics
    tree or a Fenwick tree over latency values would make it O(log n) in theory.
    """

    def __init__(self, window: int) -> None:
        self._window = window
        self._by_time: deque[tuple[int, int]] = deque()
        self._by_value: list[int] = []

    def _evict(self, now: int) -> None:
        """Drop samples with ``t <= now - window``; timestamps never decrease, so pop the left."""
        cutoff = now - self._window
        by_time, by_value = self._by_time, self._by_value
        while by_time and by_time[0][0] <= cutoff:
            _, ms = by_time.popleft()
            # Any copy of an equal value will do: the multiset is what matters.
            del by_value[bisect.bisect_left(by_value, ms)]

    def record(self, t: int, ms: int) -> None:
        """Add a sample of ``ms`` milliseconds observed at time ``t`` (seconds)."""
        self._by_time.append((t, ms))
        bisect.insort(self._by_value, ms)
        self._evict(t)

    def percentile(self, t: int, p: float) -> int | None:
        """Nearest-rank ``p``-th percentile of the window at time ``t``, or ``None`` if empty."""
        self._evict(t)
        n = len(self._by_value)
        if n == 0:
            return None
        # Smallest value v with at least p% of samples <= v: the k-th smallest, k = ceil(p*n/100),
        # and at least the first one (p = 0 gives the minimum).
        k = max(1, math.ceil(p * n / 100))
        return self._by_value[k - 1]
