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
