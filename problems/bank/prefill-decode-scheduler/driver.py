"""Custom driver for prefill-decode-scheduler (runs inside the sandbox, stdlib only).

Input, one of:
  {"token_budget": B, "max_running": R, "arrivals": [[step, id, prompt_len, max_new], ...]}
  {"token_budget": B, "max_running": R, "generate": {"seed": s, "n": n, ...}}   (big traces)

Before the t-th call of step() (t = 0, 1, ...) the driver add()s every request arriving at step t,
in list order; after the last arrival step it calls run_until_done(). Explicit traces return
{"rejected": [...], "log": [record, ...]}; generated traces return a compact digest of the log.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
from collections.abc import Callable
from typing import Any

_KEYS = ("step", "decode", "prefill", "finished", "tokens_used")
# A correct scheduler does work in every step while an accepted request is unfinished (an
# oversize prompt is rejected, so the head of the queue always fits an empty step). This many
# idle steps in a row with requests pending means it will never finish: stop it, deterministically,
# before its growing log turns a livelock into a race between the time and memory limits.
MAX_IDLE_STEPS = 3


class _Livelock(BaseException):
    """Raised out of the candidate's step(); a BaseException so `except Exception` can't eat it."""


class _Watch:
    """Wraps the scheduler's step() to follow pending requests and stop a livelock."""

    def __init__(self, sched: Any) -> None:
        self.pending: set[str] = set()
        self.idle = 0
        self._step = sched.step
        sched.step = self.step

    def accepted(self, rid: str) -> None:
        self.pending.add(rid)

    def step(self) -> Any:
        raw = self._step()
        rec = _record(raw)
        if isinstance(rec, dict):
            finished = rec.get("finished")
            if isinstance(finished, list):
                self.pending.difference_update(x for x in finished if isinstance(x, str))
            busy = bool(rec.get("decode")) or bool(rec.get("prefill"))
            self.idle = self.idle + 1 if self.pending and not busy else 0
            if self.idle >= MAX_IDLE_STEPS:
                raise _Livelock(f"step {rec.get('step')}: {self.idle} steps in a row did no work "
                                f"while {len(self.pending)} accepted request(s) were unfinished")
        return raw


def generate(spec: dict[str, Any]) -> list[list[Any]]:
    """Expand a compact trace spec with its own seeded generator (deterministic everywhere)."""
    rng = random.Random(spec["seed"])
    n = spec["n"]
    last_step = spec["last_step"]
    pmax = spec["prompt_max"]
    nmax = spec["new_max"]
    steps = sorted(rng.randrange(last_step + 1) for _ in range(n))
    return [[t, f"r{i}", 1 + int(rng.random() * pmax), int(rng.random() * (nmax + 1))]
            for i, t in enumerate(steps)]


def _record(raw: Any) -> Any:
    """Copy a candidate's step record into plain JSON values (shape errors left to the checker)."""
    if not isinstance(raw, dict):
        try:
            raw = dict(vars(raw))
        except TypeError:
            return raw
    out: dict[str, Any] = {}
    for key in _KEYS:
        value = raw.get(key)
        if key != "step" and key != "tokens_used" and value is not None \
                and not isinstance(value, (str, bytes)):
            with contextlib.suppress(TypeError):
                value = list(value)
        out[key] = value
    return out


def _drive(solution: Any, budget: int, max_running: int, arrivals: list[list[Any]]
           ) -> tuple[list[str], list[Any], str]:
    """Run the trace; returns (rejected ids, step log, error: "" or why it was stopped)."""
    sched = solution.Scheduler(budget, max_running)
    watch = _Watch(sched)
    by_step: dict[int, list[list[Any]]] = {}
    for item in arrivals:
        by_step.setdefault(item[0], []).append(item)
    last = max(by_step) if by_step else -1
    rejected: list[str] = []
    log: list[Any] = []
    try:
        for t in range(last + 1):
            for _, rid, prompt_len, max_new in by_step.get(t, []):
                if sched.add(rid, prompt_len, max_new) is False:
                    rejected.append(rid)
                else:
                    watch.accepted(rid)
            log.append(_record(sched.step()))
        log.extend(_record(r) for r in sched.run_until_done())
    except _Livelock as stuck:
        return rejected, log, f"the scheduler never finishes: {stuck}"
    return rejected, log, ""


def _digest(rejected: list[str], log: list[Any]) -> dict[str, Any]:
    """Compact summary of a big log: step count plus a hash of every record."""
    h = hashlib.sha256()
    h.update(json.dumps(rejected).encode())
    max_used = 0
    for rec in log:
        h.update(json.dumps(rec, separators=(",", ":")).encode())
        if isinstance(rec, dict) and isinstance(rec.get("tokens_used"), int):
            max_used = max(max_used, rec["tokens_used"])
    return {"rejected": len(rejected), "steps": len(log), "max_tokens_used": max_used,
            "digest": h.hexdigest()[:32]}


def run(solution: Any, inp: dict[str, Any]) -> Any:
    """Entry point called by the harness."""
    if "generate" in inp:
        rejected, log, error = _drive(solution, inp["token_budget"], inp["max_running"],
                                      generate(inp["generate"]))
        return {"error": error} if error else _digest(rejected, log)
    rejected, log, error = _drive(solution, inp["token_budget"], inp["max_running"],
                                  inp["arrivals"])
    if error:
        return {"rejected": rejected, "log": log, "error": error}
    return {"rejected": rejected, "log": log}


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


def _arrival_problem(number: int, row: Any) -> str | None:
    if not isinstance(row, list) or len(row) != 4:
        return f"arrival #{number} must be [step, id, prompt_len, max_new], got {row!r}"
    return _fmt_first(
        lambda: _fmt_int(row[0], f"arrival #{number}'s step", 0, 1_000_000),
        lambda: (
            None
            if isinstance(row[1], str) and row[1]
            else f"arrival #{number}'s id must be a non-empty string"
        ),
        lambda: _fmt_int(row[2], f"arrival #{number}'s prompt_len", 0),
        lambda: _fmt_int(row[3], f"arrival #{number}'s max_new", 0),
    )


def check_input(inp: Any) -> str | None:
    """{"token_budget": B, "max_running": R, "arrivals": [[step, id, prompt_len, max_new], ...]}
    or the same with "generate": {...} instead of "arrivals"."""
    if isinstance(inp, dict) and "generate" in inp:
        spec = inp["generate"]
        return _fmt_first(
            lambda: _fmt_object(inp, "the input", ("token_budget", "max_running", "generate")),
            lambda: _fmt_int(inp["token_budget"], '"token_budget"', 0),
            lambda: _fmt_int(inp["max_running"], '"max_running"', 0),
            lambda: _fmt_object(
                spec, '"generate"', ("seed", "n", "last_step", "prompt_max", "new_max")
            ),
            lambda: _fmt_int(spec["seed"], '"generate.seed"', 0),
            lambda: _fmt_int(spec["n"], '"generate.n"', 0, 1_000_000),
            lambda: _fmt_int(spec["last_step"], '"generate.last_step"', 0, 1_000_000),
            lambda: _fmt_int(spec["prompt_max"], '"generate.prompt_max"', 1),
            lambda: _fmt_int(spec["new_max"], '"generate.new_max"', 1),
        )
    return _fmt_first(
        lambda: _fmt_object(inp, "the input", ("token_budget", "max_running", "arrivals")),
        lambda: _fmt_int(inp["token_budget"], '"token_budget"', 0),
        lambda: _fmt_int(inp["max_running"], '"max_running"', 0),
        lambda: _fmt_list(inp["arrivals"], '"arrivals"'),
        lambda: next(
            (
                p
                for number, row in enumerate(inp["arrivals"])
                if (p := _arrival_problem(number, row))
            ),
            None,
        ),
    )
