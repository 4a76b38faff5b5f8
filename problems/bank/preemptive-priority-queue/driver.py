"""Custom driver for preemptive-priority-queue.

Two input shapes:

* ``{"args": [capacity, requests]}``: like the built-in function driver; the output is what
  ``schedule(capacity, requests)`` returns.
* ``{"generate": {...}}``: a large trace expanded here from a seed, so the test file stays
  small; the output is a digest of the completion list.
"""

import random
from typing import Any

MOD = 1_000_000_007


def make_trace(spec: dict[str, Any]) -> list[list[int]]:
    """Seeded trace of ``[id, arrival, priority, work]`` rows, sorted by arrival.

    Only ``random.random`` is used: it is stable across CPython versions for a given seed, so
    the trace is the same on every machine.
    """
    rng = random.Random(spec["seed"])
    draw = rng.random
    n: int = spec["n"]
    gap: int = spec["gap"]  # arrivals are 0..gap-1 time units apart (several may coincide)
    max_work: int = spec["max_work"]
    levels: int = spec["levels"]  # priorities are 0..levels-1
    burst: float = spec.get("burst", 0.0)  # chance a request comes with same-time peers
    rows: list[list[int]] = []
    t = 0
    while len(rows) < n:
        t += int(draw() * gap)
        group = 1 + (int(draw() * 20) if draw() < burst else 0)
        for _ in range(min(group, n - len(rows))):
            work = 1 + int(draw() * max_work)
            if draw() < 0.05:
                work *= 25  # a few very long generations
            # Ids are not in arrival order, so sorting by id instead of position shows.
            rid = (len(rows) * 7919 + 13) % 1_000_003
            rows.append([rid, t, int(draw() * levels), work])
    return rows


def _as_pair(item: Any) -> list[int]:
    """Accept a tuple or list ``(id, finish)``; normalise to a list for the checksum."""
    return [int(item[0]), int(item[1])]


def run(solution: Any, input: dict[str, Any]) -> Any:
    """Run one test against the candidate module ``solution``."""
    if "generate" not in input:
        return solution.schedule(*input["args"], **input.get("kwargs", {}))
    spec = input["generate"]
    result = solution.schedule(spec["capacity"], make_trace(spec))
    checksum = 0
    sample: list[list[int]] = []
    every = max(1, len(result) // 50)
    for k, item in enumerate(result):
        rid, finish = _as_pair(item)
        checksum = (checksum + (k % 9973 + 1) * ((rid * 1_000_003 + finish) % MOD)) % MOD
        if k % every == 0:
            sample.append([rid, finish])
    makespan = _as_pair(result[-1])[1] if result else 0
    return {"completed": len(result), "makespan": makespan, "checksum": checksum,
            "sample": sample}
