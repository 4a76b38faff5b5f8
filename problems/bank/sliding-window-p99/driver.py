"""Custom driver for sliding-window-p99.

Two input shapes:

* ``{"init": [window], "ops": [["record", t, ms] | ["percentile", t, p], ...]}``: like the
  built-in ops driver, the output is the list of every call's return value.
* ``{"init": [window], "generate": {...}}``: a large workload expanded here from a seed, so the
  test file stays small; the output is a digest of the percentile answers.
"""

import random
from typing import Any

MOD = 1_000_000_007


def _as_int(value: Any) -> Any:
    """Accept an integral float for an int answer; anything else is passed through unchanged."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _explicit(solution: Any, window: int, ops: list[list[Any]]) -> list[Any]:
    tracker = solution.LatencyWindow(window)
    return [getattr(tracker, op[0])(*op[1:]) for op in ops]


def _generated(solution: Any, window: int, spec: dict[str, Any]) -> dict[str, Any]:
    """Interleave ``records`` record calls with about ``queries`` percentile calls.

    Only ``random.random``, ``random.randrange`` and plain arithmetic are used (no libm calls):
    the workload is the same on every machine and CPython version for a given seed.
    """
    rng = random.Random(spec["seed"])
    records: int = spec["records"]
    queries: int = spec["queries"]
    tick: float = spec["tick"]  # chance that the clock advances by one second per call
    jump: float = spec.get("jump", 0.0)  # chance of an idle gap longer than the window
    mean_ms: float = spec.get("mean_ms", 40.0)
    ps: list[float] = spec.get("ps", [50, 90, 95, 99])
    tracker = solution.LatencyWindow(window)
    record, percentile = tracker.record, tracker.percentile
    q_share = queries / (records + queries)
    t = spec.get("start", 0)
    done_records = asked = empty = checksum = 0
    sample: list[Any] = []
    every = max(1, queries // 40)
    while done_records < records:
        u = rng.random()
        if u < tick:
            t += 1
        elif u < tick + jump:
            t += window + rng.randrange(window)
        if rng.random() < q_share:
            answer = _as_int(percentile(t, ps[rng.randrange(len(ps))]))
            if answer is None:
                empty += 1
            else:
                checksum = (checksum + (asked % 9973 + 1) * (answer + 1)) % MOD
            if asked % every == 0:
                sample.append(answer)
            asked += 1
        else:
            u = rng.random()
            ms = int(3.0 * mean_ms * u * u)  # mean mean_ms, skewed towards fast requests
            if rng.random() < 0.01:
                ms *= 20  # rare slow requests make the tail interesting
            record(t, min(ms, 1_000_000))
            done_records += 1
    return {"queries": asked, "empty": empty, "checksum": checksum, "sample": sample}


def run(solution: Any, input: dict[str, Any]) -> Any:
    """Run one test against the candidate module ``solution``."""
    window = input["init"][0]
    if "generate" in input:
        return _generated(solution, window, input["generate"])
    return _explicit(solution, window, input["ops"])
