"""Custom driver for connection-pool-sizing.

Two input shapes:

* ``{"args": [arrivals, service, target_p99_wait]}``: like the built-in function driver; the
  output is what ``min_pool_size`` returns.
* ``{"generate": {...}}``: a trace of up to 10^5 requests expanded here from a seed, so the test
  file stays small; the output is still the pool size.
"""

import random
from collections.abc import Callable
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


def check_input(input: Any) -> str | None:
    """{"args": [arrivals, service, target_p99_wait]} (microseconds, as min_pool_size takes
    them) or {"generate": {...}} for a big seeded trace."""
    if isinstance(input, dict) and "generate" in input:
        spec = input["generate"]
        return _fmt_first(
            lambda: _fmt_object(input, "the input", ("generate",)),
            lambda: _fmt_object(
                spec, '"generate"', ("seed", "n", "gap_us", "mean_us", "target_p99_wait"), ("tail",)
            ),
            lambda: _fmt_int(spec["seed"], '"generate.seed"', 0),
            lambda: _fmt_int(spec["n"], '"generate.n"', 0, 1_000_000),
            lambda: _fmt_number(spec["gap_us"], '"generate.gap_us"', 0),
            lambda: _fmt_number(spec["mean_us"], '"generate.mean_us"', 0),
            lambda: _fmt_number(spec.get("tail", 0.02), '"generate.tail"', 0, 1),
            lambda: _fmt_int(spec["target_p99_wait"], '"generate.target_p99_wait"', 0),
        )
    return _fmt_first(
        lambda: _fmt_object(input, "the input", ("args",), ("kwargs",)),
        lambda: (
            None
            if input.get("kwargs", {}) == {}
            else '"kwargs" is not used: give all three values in "args"'
        ),
        lambda: _fmt_list(input["args"], '"args"'),
        lambda: (
            None
            if len(input["args"]) == 3
            else f'"args" is [arrivals, service, target_p99_wait], got {len(input["args"])} values'
        ),
        lambda: _fmt_list(input["args"][0], "arrivals"),
        lambda: _fmt_list(input["args"][1], "service"),
        lambda: _fmt_int(input["args"][2], "target_p99_wait", 0),
        lambda: (
            None
            if len(input["args"][0]) == len(input["args"][1])
            else (
                f"arrivals and service must be as long: {len(input['args'][0])} and "
                f"{len(input['args'][1])}"
            )
        ),
        lambda: next(
            (
                p
                for name, values in zip(("arrivals", "service"), input["args"][:2], strict=True)
                for i, value in enumerate(values)
                if (p := _fmt_int(value, f"{name} #{i}", 0))
            ),
            None,
        ),
        lambda: (
            None
            if all(a <= b for a, b in zip(input["args"][0][:-1], input["args"][0][1:], strict=True))
            else "arrivals must be in time order (non-decreasing)"
        ),
    )
