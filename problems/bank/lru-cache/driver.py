"""Custom driver for lru-cache.

Two input shapes:

* ``{"init": [capacity], "ops": [["put", key, value] | ["get", key], ...]}``: like the built-in
  ops driver, the output is every call's return value (``null`` for ``put``).
* ``{"init": [capacity], "generate": {...}}``: a large workload expanded here from a seed, so the
  test file stays small; the output is a digest of the ``get`` results.
"""

import random
from collections.abc import Callable
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


_OP_ARGS = {"put": 2, "get": 1}


def _op_problem(number: int, op: Any) -> str | None:
    if not isinstance(op, list) or not op or op[0] not in _OP_ARGS:
        return f'op #{number} must be ["put", key, value] or ["get", key], got {op!r}'
    if len(op) != 1 + _OP_ARGS[op[0]]:
        return f"op #{number}: {op[0]} takes {_OP_ARGS[op[0]]} argument(s), got {len(op) - 1}"
    return next(
        (
            p
            for i, arg in enumerate(op[1:])
            if (p := _fmt_int(arg, f"op #{number}'s argument #{i + 1}"))
        ),
        None,
    )


def check_input(input: Any) -> str | None:
    """{"init": [capacity], "ops": [["put", key, value] | ["get", key], ...]} with integer keys
    and values, or {"init": [capacity], "generate": {...}} for a big seeded workload."""
    if isinstance(input, dict) and "generate" in input:
        spec = input["generate"]
        return _fmt_first(
            lambda: _fmt_object(input, "the input", ("init", "generate")),
            lambda: _capacity_problem(input["init"]),
            lambda: _fmt_object(
                spec, '"generate"', ("seed", "key_space", "ops"), ("get_share", "hot", "warm")
            ),
            lambda: _fmt_int(spec["seed"], '"generate.seed"', 0),
            lambda: _fmt_int(spec["key_space"], '"generate.key_space"', 1),
            lambda: _fmt_int(spec["ops"], '"generate.ops"', 0, 10_000_000),
            lambda: _fmt_number(spec.get("get_share", 0.5), '"generate.get_share"', 0, 1),
            lambda: _fmt_number(spec.get("hot", 0.0), '"generate.hot"', 0, 1),
            lambda: (
                None
                if isinstance(spec.get("warm", True), bool)
                else '"generate.warm" must be true or false'
            ),
        )
    return _fmt_first(
        lambda: _fmt_object(input, "the input", ("init", "ops")),
        lambda: _capacity_problem(input["init"]),
        lambda: _fmt_list(input["ops"], '"ops"'),
        lambda: next(
            (p for number, op in enumerate(input["ops"]) if (p := _op_problem(number, op))), None
        ),
    )


def _capacity_problem(init: Any) -> str | None:
    if not isinstance(init, list) or len(init) != 1:
        return '"init" must be [capacity]'
    return _fmt_int(init[0], "the capacity", 0)
