"""Known-wrong (too slow): refills by stepping a 1 ms tick loop over the elapsed time.

Each call costs O(elapsed time), so a long idle gap spins for billions of iterations.
"""


class TokenBucket:
    TICK = 0.001

    def __init__(self, capacity: float, refill_per_sec: float) -> None:
        self.capacity = capacity
        self.rate = refill_per_sec
        self.tokens = float(capacity)
        self.last: float | None = None

    def _refill(self, now: float) -> None:
        if self.last is None:
            self.last = now
            return
        while self.last + self.TICK <= now:
            self.last += self.TICK
            self.tokens = min(self.capacity, self.tokens + self.rate * self.TICK)

    def allow(self, now: float, cost: float = 1.0) -> bool:
        self._refill(now)
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def available(self, now: float) -> float:
        self._refill(now)
        return self.tokens
