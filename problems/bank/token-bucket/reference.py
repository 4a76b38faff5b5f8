"""Reference solution for the token-bucket rate limiter."""


class TokenBucket:
    """A bucket of at most ``capacity`` tokens, refilled continuously at ``refill_per_sec``.

    State is two numbers (the balance and the time it was last brought up to date), so every
    call is O(1) no matter how much time has passed since the previous one.
    """

    def __init__(self, capacity: float, refill_per_sec: float) -> None:
        self._capacity = float(capacity)
        self._rate = float(refill_per_sec)
        # A new client may burst immediately, so the bucket starts full.
        self._tokens = self._capacity
        # No clock reading yet: the first call sets it (refill before it is moot, the bucket
        # is already full).
        self._last: float | None = None

    def _refill(self, now: float) -> None:
        """Credit the tokens earned since the last clock reading, never past capacity."""
        if self._last is None:
            self._last = now
            return
        elapsed = now - self._last
        if elapsed <= 0.0:
            # A reading from the past (clock skew, out-of-order callers) means no time passed.
            # Keep the newest reading: rewinding it would credit the same interval twice.
            return
        self._tokens = min(self._capacity, self._tokens + elapsed * self._rate)
        self._last = now

    def allow(self, now: float, cost: float = 1.0) -> bool:
        """Debit ``cost`` tokens at time ``now`` if the balance covers it; say whether it did.

        A denied request debits nothing. A cost above ``capacity`` can never be covered.
        """
        self._refill(now)
        if cost <= self._tokens:
            self._tokens -= cost
            return True
        return False

    def available(self, now: float) -> float:
        """Return the balance at time ``now`` (after refilling), without debiting anything."""
        self._refill(now)
        return self._tokens
