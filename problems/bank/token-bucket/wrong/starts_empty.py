"""Known-wrong: the bucket starts empty, so a new client cannot burst at all."""


class TokenBucket:
    def __init__(self, capacity: float, refill_per_sec: float) -> None:
        self.capacity = capacity
        self.rate = refill_per_sec
        self.tokens = 0.0
        self.last: float | None = None

    def _refill(self, now: float) -> None:
        if self.last is None:
            self.last = now
            return
        elapsed = max(0.0, now - self.last)
        self.tokens = min(self.capacity, self.tokens + elapsed * self.rate)
        self.last = max(self.last, now)

    def allow(self, now: float, cost: float = 1.0) -> bool:
        self._refill(now)
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def available(self, now: float) -> float:
        self._refill(now)
        return self.tokens
