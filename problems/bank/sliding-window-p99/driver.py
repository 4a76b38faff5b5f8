"""Custom driver for sliding-window-p99.

Two input shapes:

* ``{"init": [window], "ops": [["record", t, ms] | ["percentile", t, p], ...]}``: like the
  built-in ops driver, the output is the list of every call's return value.
* ``{"init": [window], "generate": {...}}``: a large workload expanded here from a seed, so the
  test file stays small; the output is a digest of the percentile answers.
"""

import random
from collections.abc import Callable
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


def _op_problem(number: int, op: Any) -> str | None:
    if not isinstance(op, list) or len(op) != 3 or op[0] not in ("record", "percentile"):
        return f'op #{number} must be ["record", t, ms] or ["percentile", t, p], got {op!r}'
    if problem := _fmt_int(op[1], f"op #{number}'s time t", 0):
        return problem
    if op[0] == "record":
        return _fmt_int(op[2], f"op #{number}'s latency ms", 0)
    return _fmt_number(op[2], f"op #{number}'s percentile p", 0, 100)


def check_input(input: Any) -> str | None:
    """{"init": [window], "ops": [["record", t, ms] | ["percentile", t, p], ...]} (times in
    whole seconds, never going back), or {"init": [window], "generate": {...}}."""
    if isinstance(input, dict) and "generate" in input:
        spec = input["generate"]
        return _fmt_first(
            lambda: _fmt_object(input, "the input", ("init", "generate")),
            lambda: _window_problem(input["init"]),
            lambda: _fmt_object(
                spec,
                '"generate"',
                ("seed", "records", "queries", "tick"),
                ("jump", "mean_ms", "ps", "start"),
            ),
            lambda: _fmt_int(spec["seed"], '"generate.seed"', 0),
            lambda: _fmt_int(spec["records"], '"generate.records"', 0, 10_000_000),
            lambda: _fmt_int(spec["queries"], '"generate.queries"', 0, 10_000_000),
            lambda: (
                None
                if spec["records"] + spec["queries"] > 0
                else '"generate" needs some records or queries'
            ),
            lambda: _fmt_number(spec["tick"], '"generate.tick"', 0, 1),
            lambda: _fmt_number(spec.get("jump", 0.0), '"generate.jump"', 0, 1),
            lambda: _fmt_number(spec.get("mean_ms", 40.0), '"generate.mean_ms"', 0),
            lambda: _fmt_int(spec.get("start", 0), '"generate.start"', 0),
            lambda: _fmt_list(spec.get("ps", []), '"generate.ps"'),
            lambda: next(
                (
                    p
                    for i, v in enumerate(spec.get("ps", []))
                    if (p := _fmt_number(v, f'"generate.ps" #{i}', 0, 100))
                ),
                None,
            ),
        )
    return _fmt_first(
        lambda: _fmt_object(input, "the input", ("init", "ops")),
        lambda: _window_problem(input["init"]),
        lambda: _fmt_list(input["ops"], '"ops"'),
        lambda: next(
            (p for number, op in enumerate(input["ops"]) if (p := _op_problem(number, op))), None
        ),
        lambda: next(
            (
                f"op #{n + 1}'s time goes back ({b[1]} after {a[1]})"
                for n, (a, b) in enumerate(zip(input["ops"][:-1], input["ops"][1:], strict=True))
                if b[1] < a[1]
            ),
            None,
        ),
    )


def _window_problem(init: Any) -> str | None:
    if not isinstance(init, list) or len(init) != 1:
        return '"init" must be [window_seconds]'
    return _fmt_int(init[0], "the window", 1)
