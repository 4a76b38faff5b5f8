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
from collections.abc import Callable
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
    """{"sizes": [int, ...], "capacity": int} or {"generate": {"seed", "n", "lo", "hi"},
    "capacity": int}."""
    if isinstance(inp, dict) and "generate" in inp:
        spec = inp["generate"]
        return _fmt_first(
            lambda: _fmt_object(inp, "the input", ("generate", "capacity")),
            lambda: _fmt_int(inp["capacity"], '"capacity"', 1),
            lambda: _fmt_object(spec, '"generate"', ("seed", "n", "lo", "hi")),
            lambda: _fmt_int(spec["seed"], '"generate.seed"', 0),
            lambda: _fmt_int(spec["n"], '"generate.n"', 0, 1_000_000),
            lambda: _fmt_int(spec["lo"], '"generate.lo"', 0),
            lambda: _fmt_int(spec["hi"], '"generate.hi"', spec["lo"]),
        )
    return _fmt_first(
        lambda: _fmt_object(inp, "the input", ("sizes", "capacity")),
        lambda: _fmt_int(inp["capacity"], '"capacity"', 1),
        lambda: _fmt_list(inp["sizes"], '"sizes"'),
        lambda: next(
            (p for i, size in enumerate(inp["sizes"]) if (p := _fmt_int(size, f'"sizes" #{i}', 0))),
            None,
        ),
    )
