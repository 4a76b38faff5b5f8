"""Known-wrong: the refill is applied on every call but the clock only moves on success.

After a denied request the same elapsed interval is credited again on the next call.
"""


class TokenBucket:
    def __init__(self, capacity: float, refill_per_sec: float) -> None:
        self.capacity = capacity
        self.rate = refill_per_sec
        self.tokens = float(capacity)
        self.last = 0.0

    def allow(self, now: float, cost: float = 1.0) -> bool:
        elapsed = max(0.0, now - self.last)
        self.tokens = min(self.capacity, self.tokens + elapsed * self.rate)
        if self.tokens >= cost:
            self.tokens -= cost
            self.last = max(self.last, now)
            return True
        return False

    def available(self, now: float) -> float:
        elapsed = max(0.0, now - self.last)
        return min(self.capacity, self.tokens + elapsed * self.rate)
