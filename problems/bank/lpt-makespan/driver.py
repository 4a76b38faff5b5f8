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
from collections.abc import Callable
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
    """{"durations": [int, ...], "m": machines} or {"generate": {"seed", "n", "lo", "hi"},
    "m": int}."""
    if isinstance(inp, dict) and "generate" in inp:
        spec = inp["generate"]
        return _fmt_first(
            lambda: _fmt_object(inp, "the input", ("generate", "m")),
            lambda: _fmt_int(inp["m"], '"m"', 1),
            lambda: _fmt_object(spec, '"generate"', ("seed", "n", "lo", "hi")),
            lambda: _fmt_int(spec["seed"], '"generate.seed"', 0),
            lambda: _fmt_int(spec["n"], '"generate.n"', 0, 1_000_000),
            lambda: _fmt_int(spec["lo"], '"generate.lo"', 0),
            lambda: _fmt_int(spec["hi"], '"generate.hi"', spec["lo"]),
        )
    return _fmt_first(
        lambda: _fmt_object(inp, "the input", ("durations", "m")),
        lambda: _fmt_int(inp["m"], '"m"', 1),
        lambda: _fmt_list(inp["durations"], '"durations"'),
        lambda: next(
            (
                p
                for i, duration in enumerate(inp["durations"])
                if (p := _fmt_int(duration, f'"durations" #{i}', 0))
            ),
            None,
        ),
    )
