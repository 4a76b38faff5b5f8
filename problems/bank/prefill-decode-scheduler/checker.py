"""Checker for prefill-decode-scheduler (runs in the worker; the candidate's output is data).

For an explicit trace it replays the log against the trace and reports the FIRST violated
invariant with its step: record shape, rejection rule, state order (Waiting -> Prefill -> Decode
-> Finished), every running decode served each step, FIFO admission, token budget, running cap,
work conservation (a head that fits is admitted), finished requests reported and removed in the
step they finish, no idle steps after the end. Only then does it compare with the reference's
log (which the invariants already pin down: the spec is deterministic).
Generated (big) traces come back as a digest and are compared exactly.
"""

from __future__ import annotations

from collections import deque
from typing import Any

_KEYS = ("step", "decode", "prefill", "finished", "tokens_used")


class _Req:
    __slots__ = ("arrival", "generated", "max_new", "prompt", "rid", "state")

    def __init__(self, arrival: int, rid: str, prompt: int, max_new: int) -> None:
        self.rid = rid
        self.arrival = arrival
        self.prompt = prompt
        self.max_new = max_new
        self.state = "absent"  # absent -> waiting -> prefill -> decode -> finished | rejected
        self.generated = 0


def _is_id_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _check_shape(k: int, rec: Any) -> str | None:
    if not isinstance(rec, dict):
        return f"step {k}: step() must return a dict, got {type(rec).__name__}"
    for key in _KEYS:
        if rec.get(key) is None:
            return f"step {k}: record is missing key {key!r}"
    if rec["step"] != k or isinstance(rec["step"], bool):
        return (f"step {k}: record says step={rec['step']!r}, expected {k} "
                "(count step() calls from 0)")
    for key in ("decode", "prefill", "finished"):
        if not _is_id_list(rec[key]):
            return f"step {k}: {key!r} must be a list of request ids"
    if not isinstance(rec["tokens_used"], int) or isinstance(rec["tokens_used"], bool):
        return f"step {k}: 'tokens_used' must be an int"
    return None


def _replay(inp: dict[str, Any], out: Any) -> str | None:
    """Return the first violated invariant, or None if the log is consistent with the spec."""
    budget: int = inp["token_budget"]
    max_running: int = inp["max_running"]
    reqs: dict[str, _Req] = {}
    arrivals: dict[int, list[_Req]] = {}
    for t, rid, prompt, max_new in inp["arrivals"]:
        req = _Req(t, rid, prompt, max_new)
        reqs[rid] = req
        arrivals.setdefault(t, []).append(req)
    last_arrival = max(arrivals) if arrivals else -1

    if not isinstance(out, dict) or not _is_id_list(out.get("rejected")) \
            or not isinstance(out.get("log"), list):
        return "output must be {'rejected': [ids], 'log': [records]} (driver shape)"
    want_rejected = [r.rid for t in sorted(arrivals) for r in arrivals[t] if r.prompt > budget]
    if out["rejected"] != want_rejected:
        wrong = sorted(set(out["rejected"]) ^ set(want_rejected))
        return (f"rejection rule: add() must return False exactly for prompts longer than the "
                f"budget ({budget}); mismatch on {wrong[:5]}")

    waiting: deque[_Req] = deque()
    decoding: list[_Req] = []  # admission order
    log: list[Any] = out["log"]
    for k, rec in enumerate(log):
        for req in arrivals.get(k, []):
            if req.prompt > budget:
                req.state = "rejected"
            else:
                req.state = "waiting"
                waiting.append(req)
        problem = _check_shape(k, rec)
        if problem:
            return problem
        if k > last_arrival and not waiting and not decoding:
            return f"step {k}: run_until_done() ran a step with nothing waiting or running"
        # -- decode phase: exactly the running decodes, oldest admission first
        used = 0
        for rid in rec["decode"]:
            cand = reqs.get(rid)
            if cand is None:
                return f"step {k}: unknown request {rid!r} in decode"
            if cand.state == "finished":
                return f"step {k}: finished request {rid!r} scheduled again (decode)"
            if cand.state != "decode":
                return (f"step {k}: {rid!r} decoded while {cand.state} "
                        "(states only move Waiting -> Prefill -> Decode -> Finished)")
        want_decode = [r.rid for r in decoding]
        if rec["decode"] != want_decode:
            missing = [x for x in want_decode if x not in rec["decode"]]
            if missing:
                return (f"step {k}: running request {missing[0]!r} was not decoded "
                        "(every running decode is served each step, before prefills)")
            return f"step {k}: decode order must be admission order: expected {want_decode}"
        used += len(decoding)
        running = len(decoding)
        # -- prefill phase: a FIFO prefix of the waiting queue, budget checked before admitting
        admitted: list[_Req] = []
        for rid in rec["prefill"]:
            cand = reqs.get(rid)
            if cand is None:
                return f"step {k}: unknown request {rid!r} in prefill"
            if cand.state == "finished":
                return f"step {k}: finished request {rid!r} scheduled again (prefill)"
            if cand.state == "absent":
                return f"step {k}: {rid!r} prefilled before it was added"
            if cand.state == "rejected":
                return f"step {k}: rejected request {rid!r} was scheduled"
            if cand.state != "waiting" or cand in admitted:
                return f"step {k}: {rid!r} prefilled twice (it was already past Waiting)"
            if waiting[0] is not cand:  # cand is waiting, so the queue is not empty
                return (f"step {k}: FIFO admission violated: admitted {rid!r} while "
                        f"{waiting[0].rid!r} was ahead of it in the queue")
            if used + cand.prompt > budget:
                return (f"step {k}: token budget exceeded: admitting {rid!r} (prompt "
                        f"{cand.prompt}) needs {used + cand.prompt} > budget {budget}")
            if running >= max_running:
                return f"step {k}: max_running ({max_running}) exceeded by admitting {rid!r}"
            waiting.popleft()
            admitted.append(cand)
            used += cand.prompt
            running += 1
        if waiting:
            head = waiting[0]
            if running < max_running and used + head.prompt <= budget:
                return (f"step {k}: head of queue {head.rid!r} (prompt {head.prompt}) fit the "
                        f"{budget - used} tokens left and a free slot but was not admitted")
        if rec["tokens_used"] != used:
            return f"step {k}: tokens_used is {rec['tokens_used']}, the scheduled work costs {used}"
        # -- end of step: who finishes now, and they must be reported (and leave) now
        want_finished: list[str] = []
        still: list[_Req] = []
        for req in decoding:
            req.generated += 1
            if req.generated >= req.max_new:
                want_finished.append(req.rid)
            else:
                still.append(req)
        for req in admitted:
            if req.max_new == 0:
                want_finished.append(req.rid)
            else:
                still.append(req)
        if rec["finished"] != want_finished:
            late = [x for x in want_finished if x not in rec["finished"]]
            if late:
                return (f"step {k}: {late[0]!r} produced its last token this step but is not "
                        "reported finished (finished requests leave at the end of that step)")
            early = [x for x in rec["finished"] if x not in want_finished]
            if early:
                return f"step {k}: {early[0]!r} reported finished before its last token"
            return f"step {k}: finished order must be decode order then prefill order"
        for rid in want_finished:
            reqs[rid].state = "finished"
        for req in still:
            req.state = "decode"
        decoding = still
    k = len(log)
    if k <= last_arrival:
        return f"log has {k} steps but arrivals go up to step {last_arrival}"
    if waiting or decoding:
        left = (list(waiting) + decoding)[0]
        return (f"after the last step {left.rid!r} is still {left.state}: "
                "run_until_done stopped early")
    return None


def check(inp: dict[str, Any], expected: Any, output: Any) -> tuple[bool, str]:
    """Grade one test: invariants first (first violation named), then the reference's log."""
    if isinstance(output, dict) and output.get("error"):
        return False, str(output["error"])[:500]
    if "generate" in inp:
        if output == expected:
            return True, ""
        return False, ("big trace: the log digest differs from the reference "
                       f"(got {output!r:.200}); reproduce the rules on a small trace first")
    problem = _replay(inp, output)
    if problem:
        return False, problem
    if output != expected:
        for k, (got, want) in enumerate(zip(output["log"], expected["log"], strict=False)):
            if got != want:
                return False, f"step {k}: record differs from the reference: {got} != {want}"
        return False, "log length differs from the reference"
    return True, ""
