"""Custom driver for gpu-bin-packing (runs inside the sandbox, stdlib only).

Input, one of:
  {"sizes": [int, ...], "capacity": int}                    -> the solution's return value as is
  {"generate": {"seed": s, "n": n, "lo": a, "hi": b}, "capacity": c}
      -> n sizes drawn uniformly from [a, b] by a seeded generator (deterministic everywhere);
         returns a compact summary: GPUs used, a digest of the assignment, a few samples.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any


def generate(spec: dict[str, Any]) -> list[int]:
    """Expand a compact workload spec into the list of replica sizes."""
    rng = random.Random(spec["seed"])
    lo, hi = spec["lo"], spec["hi"]
    span = hi - lo + 1
    return [lo + int(rng.random() * span) for _ in range(spec["n"])]


def _summary(result: Any, n: int) -> Any:
    if not isinstance(result, (list, tuple)) or len(result) != n:
        return {"bad_result": repr(result)[:200]}
    assignment = [int(x) for x in result]
    blob = ",".join(map(str, assignment)).encode()
    step = max(1, n // 16)
    return {"gpus": max(assignment) + 1 if assignment else 0,
            "digest": hashlib.sha256(blob).hexdigest()[:32],
            "sample": assignment[::step]}


def run(solution: Any, inp: dict[str, Any]) -> Any:
    """Entry point called by the harness."""
    if "generate" in inp:
        sizes = generate(inp["generate"])
        result = solution.first_fit_decreasing(sizes, inp["capacity"])
        return None if result is None else _summary(result, len(sizes))
    return solution.first_fit_decreasing(list(inp["sizes"]), inp["capacity"])
