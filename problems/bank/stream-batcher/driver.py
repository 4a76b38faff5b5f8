"""Custom driver for stream-batcher (runs inside the sandbox, stdlib only).

The scenario runs on an asyncio event loop with a SIMULATED clock: whenever every task is
waiting, the loop jumps its clock straight to the next timer instead of sleeping. Verdicts
therefore never depend on how fast or loaded the grading machine is, and a 10 ms wait costs
nothing. time.monotonic / time.time / time.perf_counter follow the simulated clock during the
run (also where the solution imported them by name).

A batcher that leaves a submit waiting forever (no timer left, or the simulated clock running far
past the scenario) is a hang: the driver says so on stderr and then spins until the test's CPU
limit ends it, so the harness reports TLE (as a real deployment would hang) within the CPU limit
instead of holding a grading slot until the wall-clock backstop.

Input:
  {"max_batch_size": B, "max_wait_ms": W,
   "events": [{"at": ms, "submit": [item, ...]} | {"at": ms, "close": true}, ...],
   "fail_on": [item, ...],    # process_batch raises BatchFailed for a batch holding one of these
   "short_on": [item, ...]}   # process_batch returns one result too few for such a batch
  or {"max_batch_size": B, "max_wait_ms": W, "generate": {"seed": s, "n": n, ...}} (big, digest)

Output: {"batches": [[t_ms, [items]], ...], "results": [per submit, in submission order],
         "closes": [[t_ms, unanswered_submits], ...]}; a result is process_batch's value for
that item, "error:<ExceptionType>" when submit raised, or a digest of all that for big runs.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import selectors
import sys
import time
from collections.abc import Callable
from typing import Any

_REAL_MONOTONIC = time.monotonic


class BatchFailed(Exception):
    """Raised by the driver's process_batch to simulate a model error."""


class _Hang(Exception):
    """Every task is blocked with nothing scheduled: the program would wait forever."""


class _Clock:
    def __init__(self, limit: float) -> None:
        self.now = 0.0
        self.limit = limit


class _VirtualSelector(selectors.SelectSelector):
    """A selector whose select() advances the simulated clock instead of blocking."""

    def __init__(self, clock: _Clock) -> None:
        super().__init__()
        self._clock = clock

    def select(self, timeout: float | None = None) -> list[Any]:
        if timeout is None:
            raise _Hang("every task is waiting and no timer is pending")
        if timeout > 0:
            self._clock.now += timeout
            if self._clock.now > self._clock.limit:
                raise _Hang("the simulated clock ran far past the end of the scenario")
        return []


class _VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self, clock: _Clock) -> None:
        self._clock = clock
        super().__init__(selector=_VirtualSelector(clock))

    def time(self) -> float:
        return self._clock.now


def _patch_clocks(clock: _Clock, solution: Any) -> list[tuple[Any, str, Any]]:
    base_wall = time.time()
    base_mono = _REAL_MONOTONIC()
    fakes = {
        "monotonic": lambda: base_mono + clock.now,
        "perf_counter": lambda: base_mono + clock.now,
        "time": lambda: base_wall + clock.now,
    }
    saved: list[tuple[Any, str, Any]] = []
    for name, fake in fakes.items():
        real = getattr(time, name)
        saved.append((time, name, real))
        setattr(time, name, fake)
        for attr, value in list(vars(solution).items()):
            if value is real:  # `from time import monotonic` in the solution
                saved.append((solution, attr, value))
                setattr(solution, attr, fake)
    return saved


def _restore(saved: list[tuple[Any, str, Any]]) -> None:
    for owner, name, value in reversed(saved):
        setattr(owner, name, value)


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 6)


def generate(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Expand a compact load spec into submit events (seeded, deterministic everywhere)."""
    rng = random.Random(spec["seed"])
    n = spec["n"]
    span = spec["span_ms"]
    times = sorted(rng.randrange(span) for _ in range(n))
    events: list[dict[str, Any]] = []
    for i, t in enumerate(times):
        if events and events[-1]["at"] == t:
            events[-1]["submit"].append(i)
        else:
            events.append({"at": t, "submit": [i]})
    return events


async def _scenario(solution: Any, spec: dict[str, Any], loop: _VirtualLoop) -> dict[str, Any]:
    batches: list[list[Any]] = []
    fail_on = {json.dumps(x) for x in spec.get("fail_on", [])}
    short_on = {json.dumps(x) for x in spec.get("short_on", [])}

    async def process_batch(batch: list[Any]) -> list[Any]:
        items = list(batch)
        index = len(batches)
        batches.append([_ms(loop.time()), items])
        await asyncio.sleep(0)  # yield like a real model call, without using simulated time
        keys = {json.dumps(x) for x in items}
        if keys & fail_on:
            raise BatchFailed(f"model failed on batch {index}")
        results = [f"{json.dumps(x)}@{index}" for x in items]
        return results[:-1] if keys & short_on else results

    batcher = solution.Batcher(process_batch, spec["max_batch_size"], spec["max_wait_ms"])
    results: list[Any] = []
    tasks: list[asyncio.Task[None]] = []
    closes: list[list[Any]] = []

    async def one(index: int, item: Any) -> None:
        try:
            results[index] = await batcher.submit(item)
        except (Exception, asyncio.CancelledError) as exc:  # recorded as data
            results[index] = f"error:{type(exc).__name__}"

    for event in spec["events"]:
        delay = event["at"] / 1000.0 - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        for item in event.get("submit", []):
            results.append(None)
            tasks.append(loop.create_task(one(len(results) - 1, item)))
        if event.get("close"):
            before = list(tasks)
            await batcher.close()
            for _ in range(2):  # let just-answered waiters resume; no simulated time passes
                await asyncio.sleep(0)
            closes.append([_ms(loop.time()), sum(1 for t in before if not t.done())])
    await asyncio.gather(*tasks)
    if not closes:
        await batcher.close()
    return {"batches": batches, "results": results, "closes": closes}


def _shutdown(loop: _VirtualLoop) -> None:
    try:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    except Exception:  # best effort; the verdict is already decided
        pass
    finally:
        loop.close()


def _digest(out: dict[str, Any]) -> dict[str, Any]:
    blob = json.dumps(out, separators=(",", ":"), sort_keys=True).encode()
    sizes = [len(b[1]) for b in out["batches"]]
    return {"batches": len(sizes), "largest": max(sizes, default=0),
            "errors": sum(1 for r in out["results"] if str(r).startswith("error:")),
            "digest": hashlib.sha256(blob).hexdigest()[:32]}


def run(solution: Any, inp: dict[str, Any]) -> Any:
    """Entry point called by the harness."""
    spec = dict(inp)
    if "generate" in spec:
        spec["events"] = generate(spec["generate"])
    last = max((e["at"] for e in spec["events"]), default=0)
    clock = _Clock(limit=last / 1000.0 + 100 * spec["max_wait_ms"] / 1000.0 + 60.0)
    loop = _VirtualLoop(clock)
    asyncio.set_event_loop(loop)
    saved = _patch_clocks(clock, solution)
    try:
        out = loop.run_until_complete(_scenario(solution, spec, loop))
    except _Hang as hang:
        _restore(saved)
        sys.stderr.write(f"hang: {hang}: a real server would wait forever\n")
        sys.stderr.flush()
        while True:  # until the CPU limit: TLE, judged on CPU time like any other
            pass
    finally:
        _restore(saved)
    _shutdown(loop)
    asyncio.set_event_loop(None)
    return _digest(out) if "generate" in inp else out


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


def _event_problem(number: int, event: Any) -> str | None:
    if not isinstance(event, dict) or ("submit" in event) == ("close" in event):
        return (
            f'event #{number} must be {{"at": ms, "submit": [...]}} or {{"at": ms, "close": true}}'
        )
    kind = "submit" if "submit" in event else "close"
    return _fmt_first(
        lambda: _fmt_object(event, f"event #{number}", ("at", kind)),
        lambda: _fmt_number(event["at"], f'event #{number}\'s "at"', 0),
        lambda: (
            _fmt_list(event["submit"], f'event #{number}\'s "submit"')
            if kind == "submit"
            else (None if event["close"] is True else f'event #{number}\'s "close" must be true')
        ),
    )


def check_input(inp: Any) -> str | None:
    """{"max_batch_size": B, "max_wait_ms": W, "events": [...], "fail_on": [...],
    "short_on": [...]} (events in time order), or "generate": {...} in place of "events"."""
    events = "generate" if isinstance(inp, dict) and "generate" in inp else "events"
    optional = ("fail_on", "short_on") if events == "events" else ()
    problem = _fmt_first(
        lambda: _fmt_object(inp, "the input", ("max_batch_size", "max_wait_ms", events), optional),
        lambda: _fmt_int(inp["max_batch_size"], '"max_batch_size"', 1),
        lambda: _fmt_number(inp["max_wait_ms"], '"max_wait_ms"', 0, 3_600_000),
    )
    if problem:
        return problem
    if events == "generate":
        spec = inp["generate"]
        return _fmt_first(
            lambda: _fmt_object(spec, '"generate"', ("seed", "n", "span_ms")),
            lambda: _fmt_int(spec["seed"], '"generate.seed"', 0),
            lambda: _fmt_int(spec["n"], '"generate.n"', 0, 1_000_000),
            lambda: _fmt_int(spec["span_ms"], '"generate.span_ms"', 1),
        )
    return _fmt_first(
        lambda: _fmt_list(inp["events"], '"events"'),
        lambda: next(
            (
                p
                for number, event in enumerate(inp["events"])
                if (p := _event_problem(number, event))
            ),
            None,
        ),
        lambda: next(
            (
                f"event #{n + 1} is before event #{n}: events must be in time order"
                for n, (a, b) in enumerate(zip(inp["events"][:-1], inp["events"][1:], strict=True))
                if b["at"] < a["at"]
            ),
            None,
        ),
        lambda: _fmt_list(inp.get("fail_on", []), '"fail_on"'),
        lambda: _fmt_list(inp.get("short_on", []), '"short_on"'),
    )
