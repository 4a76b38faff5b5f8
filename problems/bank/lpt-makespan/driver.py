"""Custom driver for lpt-makespan (runs inside the sandbox, stdlib only).

Input, one of:
  {"durations": [int, ...], "m": int}      -> the solution's (machines, makespan) as is
  {"generate": {"seed": s, "n": n, "lo": a, "hi": b}, "m": int}
      -> n durations drawn uniformly from [a, b] by a seeded generator (deterministic
         everywhere); returns the makespan, a digest of the machine lists and a few samples.
"""

from __future__ import annotations

import hashlib
import random
from array import array
from typing import Any


def generate(spec: dict[str, Any]) -> list[int]:
    """Expand a compact workload spec into job durations."""
    rng = random.Random(spec["seed"])
    lo, hi = spec["lo"], spec["hi"]
    span = hi - lo + 1
    return [lo + int(rng.random() * span) for _ in range(spec["n"])]


def _summary(result: Any, m: int) -> Any:
    h = hashlib.sha256()
    try:
        machines, makespan = result
        machines = list(machines)
        for jobs in machines:
            # array() checks every id is an integer, in C (the digest must stay cheap)
            h.update(array("q", jobs).tobytes() + b"|")
        sample = [[int(j) for j in list(jobs)[:3]] for jobs in machines[::max(1, m // 8)]]
    except (TypeError, ValueError, OverflowError):
        return {"bad_result": repr(result)[:200]}
    if len(machines) != m:
        return {"bad_result": f"{len(machines)} machine lists for m = {m}"}
    return {"makespan": makespan, "digest": h.hexdigest()[:32], "sample": sample}


def run(solution: Any, inp: dict[str, Any]) -> Any:
    """Entry point called by the harness."""
    if "generate" in inp:
        durations = generate(inp["generate"])
        return _summary(solution.lpt_schedule(durations, inp["m"]), inp["m"])
    return solution.lpt_schedule(list(inp["durations"]), inp["m"])
