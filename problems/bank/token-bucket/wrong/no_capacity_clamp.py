"""Known-wrong: refill is never clamped, so a long idle period banks an unbounded burst."""


class TokenBucket:
    def __init__(self, capacity: float, refill_per_sec: float) -> None:
        self.capacity = capacity
        self.rate = refill_per_sec
        self.tokens = float(capacity)
        self.last: float | None = None

    def allow(self, now: float, cost: float = 1.0) -> bool:
        self._refill(now)
        if cost <= self.tokens:
            self.tokens -= cost
            return True
        return False

    def available(self, now: float) -> float:
        self._refill(now)
        return self.tokens

    def _refill(self, now: float) -> None:
        if self.last is not None and now > self.last:
            self.tokens += (now - self.last) * self.rate
        if self.last is None or now > self.last:
            self.last = now
