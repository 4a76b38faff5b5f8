"""Known-wrong (too slow): correct answers, but every query sorts the whole window."""

import math
from collections import deque


class LatencyWindow:
    def __init__(self, window: int) -> None:
        self.window = window
        self.events: deque[tuple[int, int]] = deque()

    def _evict(self, now: int) -> None:
        while self.events and self.events[0][0] <= now - self.window:
            self.events.popleft()

    def record(self, t: int, ms: int) -> None:
        self.events.append((t, ms))
        self._evict(t)

    def percentile(self, t: int, p: float) -> int | None:
        self._evict(t)
        values = sorted(ms for _, ms in self.events)
        if not values:
            return None
        k = max(1, math.ceil(p * len(values) / 100))
        return values[k - 1]
