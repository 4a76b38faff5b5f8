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
from collections.abc import Callable
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


# ---------------------------------------------------------------- the input's format
# check_input is called by the studio (in the sandbox) on every test an author saves: it names
# the first thing wrong with one test's input, or returns None when the input fits.


def _fmt_int(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return f"{what} must be an integer"
    if lo is not None and value < lo:
        return f"{what} must be at least {lo}, got {value}"
    if hi is not None and value > hi:
        return f"{what} must be at most {hi}, got {value}"
    return None


def _fmt_number(
    value: Any, what: str, lo: float | None = None, hi: float | None = None
) -> str | None:
    if not isinstance(value, int | float) or isinstance(value, bool) or value != value:
        return f"{what} must be a number"
    if lo is not None and value < lo:
        return f"{what} must be at least {lo}, got {value}"
    if hi is not None and value > hi:
        return f"{what} must be at most {hi}, got {value}"
    return None


def _fmt_object(
    value: Any, what: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> str | None:
    if not isinstance(value, dict):
        return f"{what} must be an object"
    missing = [key for key in required if key not in value]
    if missing:
        return f"{what} needs {', '.join(repr(key) for key in missing)}"
    unknown = sorted(set(value) - set(required) - set(optional))
    if unknown:
        known = ", ".join(repr(key) for key in (*required, *optional))
        return f"{what} has no field {unknown[0]!r} (it takes {known})"
    return None


def _fmt_list(value: Any, what: str, most: int | None = None) -> str | None:
    if not isinstance(value, list):
        return f"{what} must be a list"
    if most is not None and len(value) > most:
        return f"{what} has {len(value)} items, at most {most} are allowed"
    return None


def _fmt_first(*checks: Callable[[], str | None]) -> str | None:
    """The first problem of `checks`, tried in order (a later one may rely on an earlier)."""
    for check in checks:
        if problem := check():
            return problem
    return None


def check_input(inp: Any) -> str | None:
    """{"stages": {name: [dependency, ...], ...}} (a dependency may name a stage that is not
    listed, or form a cycle: the solution must handle both), or {"generate": {...}}."""
    if isinstance(inp, dict) and "generate" in inp:
        spec = inp["generate"]
        if problem := _fmt_object(inp, "the input", ("generate",)):
            return problem
        if isinstance(spec, dict) and spec.get("ring"):
            return _fmt_first(
                lambda: _fmt_object(spec, '"generate"', ("seed", "n", "ring")),
                lambda: None if spec["ring"] is True else '"generate.ring" must be true',
                lambda: _fmt_int(spec["seed"], '"generate.seed"', 0),
                lambda: _fmt_int(spec["n"], '"generate.n"', 0, 1_000_000),
            )
        return _fmt_first(
            lambda: _fmt_object(
                spec, '"generate"', ("seed", "n", "window", "extra"), ("cycle", "ring")
            ),
            lambda: _fmt_int(spec["seed"], '"generate.seed"', 0),
            lambda: _fmt_int(spec["n"], '"generate.n"', 0, 1_000_000),
            lambda: _fmt_int(spec["window"], '"generate.window"', 1, 64),
            lambda: _fmt_int(spec["extra"], '"generate.extra"', 0, 2),
            lambda: (
                None
                if isinstance(spec.get("cycle", False), bool)
                else '"generate.cycle" must be true or false'
            ),
        )
    return _fmt_first(
        lambda: _fmt_object(inp, "the input", ("stages",)),
        lambda: None if isinstance(inp["stages"], dict) else '"stages" must be an object',
        lambda: next(
            (
                f"stage {name!r}: its dependencies must be a list of stage names"
                for name, deps in inp["stages"].items()
                if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps)
            ),
            None,
        ),
    )
