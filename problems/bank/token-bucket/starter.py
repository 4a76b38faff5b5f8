"""Token-bucket rate limiter: implement the class below."""


class TokenBucket:
    """A bucket of at most ``capacity`` tokens, refilled continuously at ``refill_per_sec``."""

    def __init__(self, capacity: float, refill_per_sec: float) -> None:
        raise NotImplementedError

    def allow(self, now: float, cost: float = 1.0) -> bool:
        """Debit ``cost`` tokens at time ``now`` if the balance covers it; say whether it did."""
        raise NotImplementedError

    def available(self, now: float) -> float:
        """Return the balance at time ``now`` (after refilling), without debiting anything."""
        raise NotImplementedError
