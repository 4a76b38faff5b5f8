"""Custom driver for lru-cache.

Two input shapes:

* ``{"init": [capacity], "ops": [["put", key, value] | ["get", key], ...]}``: like the built-in
  ops driver, the output is every call's return value (``null`` for ``put``).
* ``{"init": [capacity], "generate": {...}}``: a large workload expanded here from a seed, so the
  test file stays small; the output is a digest of the ``get`` results.
"""

import random
from typing import Any

MOD = 1_000_000_007


def _explicit(solution: Any, capacity: int, ops: list[list[Any]]) -> list[Any]:
    cache = solution.LRUCache(capacity)
    return [getattr(cache, op[0])(*op[1:]) for op in ops]


def _generated(solution: Any, capacity: int, spec: dict[str, Any]) -> dict[str, Any]:
    """First fill the cache with keys ``0..capacity-1`` (if ``warm``), then run ``ops`` random
    calls over ``key_space`` keys, a ``get_share`` of them gets.

    Only ``random.random`` and ``random.randrange`` are used: both are stable across CPython
    versions for a given seed, so the workload is the same on every machine.
    """
    rng = random.Random(spec["seed"])
    key_space: int = spec["key_space"]
    get_share: float = spec.get("get_share", 0.5)
    hot: float = spec.get("hot", 0.0)  # share of calls aimed at a small set of hot keys
    cache = solution.LRUCache(capacity)
    get, put = cache.get, cache.put
    if spec.get("warm", True):
        for key in range(capacity):
            put(key, key)
    gets = misses = checksum = 0
    sample: list[Any] = []
    every = max(1, spec["ops"] // 80)
    for i in range(spec["ops"]):
        key = rng.randrange(64) if hot and rng.random() < hot else rng.randrange(key_space)
        if rng.random() < get_share:
            value = get(key)
            if value == -1:
                misses += 1
            else:
                checksum = (checksum + (gets % 9973 + 1) * (value + 2)) % MOD
            gets += 1
            if i % every == 0:
                sample.append(value)
        else:
            put(key, rng.randrange(1_000_000_000))
    return {"gets": gets, "misses": misses, "checksum": checksum, "sample": sample}


def run(solution: Any, input: dict[str, Any]) -> Any:
    """Run one test against the candidate module ``solution``."""
    capacity = input["init"][0]
    if "generate" in input:
        return _generated(solution, capacity, input["generate"])
    return _explicit(solution, capacity, input["ops"])
