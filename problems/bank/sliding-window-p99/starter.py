"""Sliding-window latency percentiles: implement the class below."""


class LatencyWindow:
    """Exact percentiles of the latency samples recorded in the last ``window`` seconds."""

    def __init__(self, window: int) -> None:
        raise NotImplementedError

    def record(self, t: int, ms: int) -> None:
        """Add a sample of ``ms`` milliseconds observed at time ``t`` (seconds)."""
        raise NotImplementedError

    def percentile(self, t: int, p: float) -> int | None:
        """Nearest-rank ``p``-th percentile of the window at time ``t``, or ``None`` if empty."""
        raise NotImplementedError
