"""Known-wrong: keeps a sample exactly `window` seconds old (evicts only t < now - window)."""

import bisect
import math
from collections import deque


class LatencyWindow:
    def __init__(self, window: int) -> None:
        self.window = window
        self.events: deque[tuple[int, int]] = deque()
        self.values: list[int] = []

    def _evict(self, now: int) -> None:
        while self.events and self.events[0][0] < now - self.window:
            _, ms = self.events.popleft()
            del self.values[bisect.bisect_left(self.values, ms)]

    def record(self, t: int, ms: int) -> None:
        self.events.append((t, ms))
        bisect.insort(self.values, ms)
        self._evict(t)

    def percentile(self, t: int, p: float) -> int | None:
        self._evict(t)
        if not self.values:
            return None
        k = max(1, math.ceil(p * len(self.values) / 100))
        return self.values[k - 1]
