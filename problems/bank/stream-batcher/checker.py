"""Checker for stream-batcher (runs in the worker; the candidate's output is data).

Explicit scenarios are checked invariant by invariant, and the first broken one is named:
batch sizes, FIFO order (batches concatenate to the accepted submits), every waiter answered with
ITS OWN result, errors delivered to exactly the waiters of the failing batch, submit after close
rejected, close() flushing, and finally the flush times and batch composition against the
reference (the simulated clock makes them exact; 1 ms of slack is allowed). Generated (big)
scenarios come back as a digest and are compared exactly.
"""

from __future__ import annotations

import json
import math
from typing import Any

_SLACK_MS = 1.0


def _submits(inp: dict[str, Any]) -> list[tuple[Any, bool]]:
    """(item, accepted) per submit in submission order; submits after a close are rejected."""
    out: list[tuple[Any, bool]] = []
    closed = False
    for event in inp["events"]:
        for item in event.get("submit", []):
            out.append((item, not closed))
        if event.get("close"):
            closed = True
    return out


def _shape(out: Any, n_submits: int) -> str | None:
    if not isinstance(out, dict):
        return "driver output must be a dict"
    batches, results, closes = out.get("batches"), out.get("results"), out.get("closes")
    if not isinstance(batches, list) or not all(
            isinstance(b, list) and len(b) == 2 and isinstance(b[1], list) for b in batches):
        return "malformed batch log"
    if not isinstance(results, list) or len(results) != n_submits:
        return "malformed results"
    if not isinstance(closes, list) or not all(
            isinstance(c, list) and len(c) == 2 and isinstance(c[1], int) for c in closes):
        return "malformed close log"
    return None


def _invariants(inp: dict[str, Any], out: dict[str, Any]) -> str | None:
    max_size = inp["max_batch_size"]
    submits = _submits(inp)
    batches: list[list[Any]] = out["batches"]
    results: list[Any] = out["results"]
    for k, (_, items) in enumerate(batches):
        if not items:
            return f"batch #{k}: process_batch was called with an empty batch"
        if len(items) > max_size:
            return f"batch #{k}: {len(items)} items exceeds max_batch_size {max_size}"
    flat = [(k, item) for k, (_, items) in enumerate(batches) for item in items]
    accepted = [(i, item) for i, (item, ok) in enumerate(submits) if ok]
    for j, (i, item) in enumerate(accepted):
        if j >= len(flat):
            return (f"submit #{i} (item {json.dumps(item)}) never reached process_batch "
                    "(a pending item was not flushed)")
        if flat[j][1] != item:
            return (f"order not preserved: position {j} of the batch stream holds "
                    f"{json.dumps(flat[j][1])}, expected submit #{i} ({json.dumps(item)})")
    if len(flat) > len(accepted):
        return (f"process_batch saw {len(flat)} items but only {len(accepted)} were accepted "
                "(an item was batched twice, or a submit after close() was processed)")
    fail_on = {json.dumps(x) for x in inp.get("fail_on", [])}
    short_on = {json.dumps(x) for x in inp.get("short_on", [])}
    for j, (i, item) in enumerate(accepted):
        k = flat[j][0]
        keys = {json.dumps(x) for x in batches[k][1]}
        if keys & fail_on:
            want = "error:BatchFailed"
            why = "process_batch raised for its batch; the exception must reach every waiter"
        elif keys & short_on:
            want = "error:ValueError"
            why = "process_batch returned too few results for its batch"
        else:
            want = f"{json.dumps(item)}@{k}"
            why = "each waiter gets its own result from its own batch"
        if results[i] != want:
            return (f"submit #{i} (item {json.dumps(item)}, batch #{k}) got "
                    f"{json.dumps(results[i])}, expected {json.dumps(want)}: {why}")
    for i, (_item, ok) in enumerate(submits):
        if not ok and results[i] != "error:RuntimeError":
            return (f"submit #{i} came after close() and must raise RuntimeError, "
                    f"got {json.dumps(results[i])}")
    for t_ms, unanswered in out["closes"]:
        if unanswered:
            return (f"close() returned at {t_ms} ms with {unanswered} submit(s) still "
                    "unanswered: close must flush pending items and wait for them")
    return None


def check(inp: dict[str, Any], expected: Any, output: Any) -> tuple[bool, str]:
    """Grade one scenario: invariants first (first violation named), then the reference's timing."""
    if "generate" in inp:
        if output == expected:
            return True, ""
        return False, (f"load scenario: summary differs from the reference (got {output!r:.200}); "
                       "check the size/deadline rules on the small scenarios first")
    submits = _submits(inp)
    problem = _shape(output, len(submits)) or _invariants(inp, output)
    if problem:
        return False, problem
    got, want = output["batches"], expected["batches"]
    for k, (g, w) in enumerate(zip(got, want, strict=False)):
        if g[1] != w[1] or not isinstance(g[0], (int, float)) \
                or math.isnan(g[0]) or abs(g[0] - w[0]) > _SLACK_MS:
            return False, (f"batch #{k}: flushed at {g[0]} ms with {json.dumps(g[1])}; the rules "
                           f"(full batch at once, else max_wait_ms after its OLDEST item) give "
                           f"{w[0]} ms with {json.dumps(w[1])}")
    if len(got) != len(want):
        return False, f"{len(got)} batches, the reference forms {len(want)}"
    if len(output["closes"]) != len(expected["closes"]):
        return False, "the number of close() calls recorded differs from the scenario"
    for (gt, _), (wt, _) in zip(output["closes"], expected["closes"], strict=True):
        if not isinstance(gt, (int, float)) or math.isnan(gt) or abs(gt - wt) > _SLACK_MS:
            return False, f"close() returned at {gt} ms, reference at {wt} ms"
    return True, ""
