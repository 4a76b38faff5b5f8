"""Custom driver for pipeline-topo-order (runs inside the sandbox, stdlib only).

Input, one of:
  {"stages": {name: [dependency, ...], ...}}   -> the solution's return value as is
  {"generate": {"seed": s, "n": n, "extra": k, "window": w, "cycle": bool}}
  {"generate": {"seed": s, "n": n, "ring": true}}
      -> a big pipeline built by a seeded generator (deterministic everywhere); returns a
         summary: which key came back, how many layers / stages, and a digest of the lists.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any


def generate(spec: dict[str, Any]) -> dict[str, list[str]]:
    """n stages in a hidden topological order: each usually depends on its predecessor, plus up
    to two stages from the previous `window` (<= 64) positions and, half the time, `extra`
    (<= 2) random earlier stages, so the DAG is deep (thousands of layers). With "cycle", the
    first stage also depends on the last one. One 64-bit draw per stage keeps generation cheap."""
    rng = random.Random(spec["seed"])
    if spec.get("ring"):
        return _ring(rng, spec["n"])
    n, window, extra = spec["n"], spec["window"], spec["extra"]
    ids = list(range(n))
    rng.shuffle(ids)
    names = [f"stage{i}" for i in ids]
    stages: dict[str, list[str]] = {}
    for p in range(n):
        deps: list[str] = []
        if p:
            bits = rng.getrandbits(64)
            if bits & 15 < 14:
                deps.append(names[p - 1])
            reach = min(p, window)
            for k in range(((bits >> 4) & 3) % 3):
                deps.append(names[p - 1 - ((bits >> (6 + 6 * k)) & 63) % reach])
            if bits >> 18 & 1:
                for k in range(extra):
                    deps.append(names[((bits >> (19 + 20 * k)) & 0xFFFFF) % p])
        stages[names[p]] = deps
    if spec.get("cycle") and n:
        stages[names[0]].append(names[n - 1])
    # dict order is a random permutation, not the topological order
    keys = list(stages)
    rng.shuffle(keys)
    return {k: stages[k] for k in keys}


def _ring(rng: random.Random, n: int) -> dict[str, list[str]]:
    """One cycle through all n stages (each depends on the previous, sometimes also on the one
    before), closed by the first depending on the last: every traversal goes n deep."""
    ids = list(range(n))
    rng.shuffle(ids)
    names = [f"ring{i}" for i in ids]
    stages = {names[p]: [names[p - 1]] for p in range(n)}
    for p in range(2, n):
        if rng.random() < 0.3:
            stages[names[p]].append(names[p - 2])
    keys = list(stages)
    rng.shuffle(keys)
    return {k: stages[k] for k in keys}


def _summary(result: Any) -> Any:
    if not isinstance(result, dict) or len(result) != 1:
        return {"bad_result": repr(result)[:200]}
    (key, value), = result.items()
    try:
        blob = json.dumps(value, separators=(",", ":")).encode()
    except (TypeError, ValueError):
        return {"bad_result": repr(result)[:200]}
    size = len(value) if isinstance(value, list) else -1
    return {"kind": key, "length": size, "digest": hashlib.sha256(blob).hexdigest()[:32]}


def run(solution: Any, inp: dict[str, Any]) -> Any:
    """Entry point called by the harness."""
    if "generate" in inp:
        return _summary(solution.plan_stages(generate(inp["generate"])))
    stages = {name: list(deps) for name, deps in inp["stages"].items()}
    return solution.plan_stages(stages)
