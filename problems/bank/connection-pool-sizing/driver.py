"""Custom driver for connection-pool-sizing.

Two input shapes:

* ``{"args": [arrivals, service, target_p99_wait]}``: like the built-in function driver; the
  output is what ``min_pool_size`` returns.
* ``{"generate": {...}}``: a trace of up to 10^5 requests expanded here from a seed, so the test
  file stays small; the output is still the pool size.
"""

import random
from typing import Any


def make_trace(spec: dict[str, Any]) -> tuple[list[int], list[int]]:
    """Seeded trace: jittered arrivals and skewed service times with a slow tail.

    Only ``random.random`` and plain arithmetic are used (no libm calls such as ``log``): the
    trace is bit-for-bit the same on every machine and CPython version. Times are integer
    microseconds.
    """
    rng = random.Random(spec["seed"])
    draw = rng.random
    n: int = spec["n"]
    gap_us: float = spec["gap_us"]  # mean time between arrivals
    mean_us: float = spec["mean_us"]  # mean service time (before the tail)
    tail: float = spec.get("tail", 0.02)  # share of slow requests (8x longer)
    arrivals: list[int] = []
    service: list[int] = []
    t = 0
    for _ in range(n):
        t += int(2.0 * gap_us * draw())
        arrivals.append(t)
        u = draw()
        duration = 3.0 * mean_us * u * u  # mean mean_us, most requests short
        if draw() < tail:
            duration *= 8
        service.append(max(1, int(duration)))
    return arrivals, service


def run(solution: Any, input: dict[str, Any]) -> Any:
    """Run one test against the candidate module ``solution``."""
    if "generate" not in input:
        return solution.min_pool_size(*input["args"], **input.get("kwargs", {}))
    spec = input["generate"]
    arrivals, service = make_trace(spec)
    return solution.min_pool_size(arrivals, service, spec["target_p99_wait"])
