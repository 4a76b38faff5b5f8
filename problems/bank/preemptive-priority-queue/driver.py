"""Custom driver for preemptive-priority-queue.

Two input shapes:

* ``{"args": [capacity, requests]}``: like the built-in function driver; the output is what
  ``schedule(capacity, requests)`` returns.
* ``{"generate": {...}}``: a large trace expanded here from a seed, so the test file stays
  small; the output is a digest of the completion list.
"""

import random
from collections.abc import Callable
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


def _request_problem(number: int, row: Any) -> str | None:
    if not isinstance(row, list) or len(row) != 4:
        return f"request #{number} must be [id, arrival, priority, work], got {row!r}"
    return _fmt_first(
        lambda: _fmt_int(row[0], f"request #{number}'s id"),
        lambda: _fmt_int(row[1], f"request #{number}'s arrival", 0),
        lambda: _fmt_int(row[2], f"request #{number}'s priority"),
        lambda: _fmt_int(row[3], f"request #{number}'s work", 1),
    )


def check_input(input: Any) -> str | None:
    """{"args": [capacity, [[id, arrival, priority, work], ...]]} or {"generate": {...}}."""
    if isinstance(input, dict) and "generate" in input:
        spec = input["generate"]
        return _fmt_first(
            lambda: _fmt_object(input, "the input", ("generate",)),
            lambda: _fmt_object(
                spec,
                '"generate"',
                ("seed", "n", "capacity", "gap", "max_work", "levels"),
                ("burst",),
            ),
            lambda: _fmt_int(spec["seed"], '"generate.seed"', 0),
            lambda: _fmt_int(spec["n"], '"generate.n"', 0, 1_000_000),
            lambda: _fmt_int(spec["capacity"], '"generate.capacity"', 1),
            lambda: _fmt_int(spec["gap"], '"generate.gap"', 0),
            lambda: _fmt_int(spec["max_work"], '"generate.max_work"', 1),
            lambda: _fmt_int(spec["levels"], '"generate.levels"', 1),
            lambda: _fmt_number(spec.get("burst", 0.0), '"generate.burst"', 0, 1),
        )
    return _fmt_first(
        lambda: _fmt_object(input, "the input", ("args",), ("kwargs",)),
        lambda: (
            None
            if input.get("kwargs", {}) == {}
            else '"kwargs" is not used: give both values in "args"'
        ),
        lambda: (
            None
            if isinstance(input["args"], list) and len(input["args"]) == 2
            else '"args" must be [capacity, requests]'
        ),
        lambda: _fmt_int(input["args"][0], "capacity", 1),
        lambda: _fmt_list(input["args"][1], "requests"),
        lambda: next(
            (
                p
                for number, row in enumerate(input["args"][1])
                if (p := _request_problem(number, row))
            ),
            None,
        ),
        lambda: (
            None
            if len({row[0] for row in input["args"][1]}) == len(input["args"][1])
            else "request ids must be unique"
        ),
    )
