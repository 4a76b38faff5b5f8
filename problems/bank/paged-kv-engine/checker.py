"""Checker for paged-kv-engine (runs in the worker; the driver's output is data).

The driver records every prefill and decode call (step, request, positions, block table), the
engine's free-block count after every step, every callback and the tokens the model produced for
each request. This checker recomputes the truth itself and reports the FIRST violating step:

* invariants: model calls only inside step(), one decode call per step, at most token_budget
  tokens per step, each call feeds the request's own next tokens at the right positions, no
  block in two live sequences (a block may change owner only after its holder ended or was
  preempted, i.e. restarted its prefill at position 0), no block twice in one table, all blocks
  free at the end;
* tokens: every request's tokens equal a one-at-a-time decode of its prompt without a cache
  (computed here with support.py's model), so a stale or shared block shows up as a wrong token;
  it ends at the earliest stop rule and is called back exactly once with exactly those tokens;
* the oracle: support.schedule() gives the exact schedule the statement prescribes for the
  output lengths; each step's decode batch, prefill chunks, preemptions (through the recomputes
  they cause), callbacks and blocks in use must match it, and the first difference is named;
* throughput: the paged schedule's model steps against a static-batching schedule of the same
  pool (reported; the oracle comparison already pins the engine to the prescribed schedule).

PyTorch tier: a token that differs from the reference is forgiven only where the reference's
top-2 logit margin is below support.MARGIN_TOLERANCE (float32 rounding differs with batching,
chunking and device); that request's length then comes from its own tokens.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sys
import types
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import support

MAX_PLOT_STEPS = 400
_CACHE_MODULE = "_onsite_pkv_reference_cache"
_CACHE_PROMPTS = 4096


class _Reference:
    """The reference decodes of one check's requests (support.Continuation on the worker's CPU:
    deterministic, no GPU needed), shared by every check of the same support.py in this
    process. The worker builds a fresh Checker (fresh module globals) per grading, so the store
    hangs off sys.modules; its key starts with the content hash the worker's loader gives
    support.py (`__source_sha256__`), so an edited support.py never reads a stale decode.
    Loaded any other way (tests, benchmarks) nothing outlives the check."""

    def __init__(self, config: dict[str, Any], limits: support.Limits) -> None:
        self._config, self._limits = config, limits
        digest = getattr(support, "__source_sha256__", None)
        self._key = (digest, json.dumps(config, sort_keys=True), tuple(limits))
        if isinstance(digest, str):
            holder = sys.modules.get(_CACHE_MODULE)
            if holder is None:
                holder = sys.modules[_CACHE_MODULE] = types.ModuleType(_CACHE_MODULE)
            self._store: dict[str, Any] = holder.__dict__.setdefault(
                "store", {"models": {}, "continuations": OrderedDict()})
        else:
            self._store = {"models": {}, "continuations": OrderedDict()}

    def continuation(self, prompt: tuple[int, ...]) -> support.Continuation:
        models: dict[Any, Any] = self._store["models"]
        model = models.get(self._key)
        if model is None:
            model = models[self._key] = support.build_model(self._config, self._limits,
                                                            device="cpu")
        conts: OrderedDict[Any, support.Continuation] = self._store["continuations"]
        cont = conts.get((self._key, prompt))
        if cont is None:
            cont = conts[(self._key, prompt)] = support.Continuation(model, prompt)
            while len(conts) > _CACHE_PROMPTS:
                conts.popitem(last=False)  # least recently used
        else:
            conts.move_to_end((self._key, prompt))
        return cont


class _Run:
    """The driver's record, validated into plain typed fields."""

    def __init__(self, output: Any, n: int) -> None:
        if not isinstance(output, dict):
            raise ValueError("the driver returned no record")
        self.steps = int(output["steps"])
        self.decode = [(int(s), int(i), int(p), [int(b) for b in t], bool(ok))
                       for s, i, p, t, ok, _c in output["decode"]]
        self.prefill = [(int(s), int(i), int(st), int(m), [int(b) for b in t], bool(ok))
                        for s, i, st, m, t, ok, _c in output["prefill"]]
        # The order of every call (decode or prefill), which orders the calls inside a step.
        self.order = {("d", k): int(row[5]) for k, row in enumerate(output["decode"])}
        self.order.update({("p", k): int(row[6]) for k, row in enumerate(output["prefill"])})
        self.decode_calls = [(int(s), int(n)) for s, n in output["decode_calls"]]
        self.free = [None if f is None else int(f) for f in output["free"]]
        self.stray = [int(s) for s in output.get("stray_calls", [])]
        self.returned = [bool(r) for r in output.get("returned", [])]
        self.generated = [[int(t) for t in toks] for toks in output["generated"]]
        if len(self.generated) != n:
            raise ValueError("the record does not cover every request")
        self.callbacks: list[list[tuple[int, list[int] | None, bool]]] = [[] for _ in range(n)]
        self.free_at_callback: dict[int, int] = {}  # free_blocks() inside the first callback
        for index, step, tokens, id_ok, *seen in output["callbacks"]:
            toks = None if tokens is None else [int(t) for t in tokens]
            if not self.callbacks[int(index)] and seen and isinstance(seen[0], int):
                self.free_at_callback[int(index)] = int(seen[0])
            self.callbacks[int(index)].append((int(step), toks, bool(id_ok)))
        self.error = output.get("error")
        self.wall_s = float(output.get("wall_s") or 0.0)
        self.device = str(output.get("device", "?"))
        # The step of each generated token of each request (decode or the last prefill chunk).
        self.token_steps: list[list[int]] = [[] for _ in range(n)]
        events = [(s, i) for s, i, _p, _t, ok in self.decode if ok and i >= 0]
        events += [(s, i) for s, i, st, m, _t, ok in self.prefill if ok and i >= 0]
        for s, i in sorted(events):
            self.token_steps[i].append(s)


# The rules a test checks, each separately (evidence "rules": None when it held, else how it
# was first broken), and the rule each group is about (evidence "property"). A test passes
# only when every rule held.
RULES = ("model calls", "budget", "blocks", "tokens", "callbacks", "schedule", "preemption",
         "admission", "step results")
PROPERTY = {"correctness": "tokens", "exactly_once": "callbacks", "blocks": "blocks",
            "budget": "budget", "preemption": "preemption", "edge": "schedule",
            "throughput": "schedule", "random_stops": "tokens", "random_schedules": "schedule"}


class _Violations:
    def __init__(self) -> None:
        self.items: list[tuple[int, str, tuple[str, ...], bool]] = []
        self.quiet = False  # while set, violations count for their rules but not the message

    def add(self, step: int, rules: str | tuple[str, ...], message: str) -> None:
        names = (rules,) if isinstance(rules, str) else rules
        self.items.append((step, message, names, not self.quiet))

    def _told(self) -> list[tuple[int, str, tuple[str, ...], bool]]:
        told = [item for item in self.items if item[3]]
        return sorted(told, key=lambda item: item[0])  # stable: invariants before oracle diffs

    def first_step(self) -> int:
        return self._told()[0][0]

    def first(self) -> str:
        told = self._told()
        more = len(told) - 1
        return told[0][1] + (f" (+{more} more violation{'s' * (more > 1)})" if more else "")

    def first_rule(self) -> str:
        """The rule first() names (the first of the earliest told violation's rules)."""
        return self._told()[0][2][0]

    def rules(self) -> dict[str, str | None]:
        """Each rule: None if it held, else the first (by step) violation of it."""
        out: dict[str, str | None] = dict.fromkeys(RULES)
        for _step, message, names, _told in sorted(self.items, key=lambda item: item[0]):
            for name in names:
                if out.get(name) is None:
                    out[name] = message
        return out


def _rid(specs_by_index: dict[int, support.RequestSpec], index: int) -> str:
    spec = specs_by_index.get(index)
    return repr(spec.rid) if spec else "an unknown request id"


# ------------------------------------------------------------------------------------ invariants


def _check_calls(run: _Run, by_index: dict[int, support.RequestSpec], limits: support.Limits,
                 bad: _Violations) -> None:
    for before in run.stray:
        bad.add(before, "model calls", f"step {before}: the model was called outside step()")
    seen: dict[int, int] = {}
    for step, _n in run.decode_calls:
        seen[step] = seen.get(step, 0) + 1
        if seen[step] == 2:
            bad.add(step, "model calls",
                    f"step {step}: decode() was called more than once in one step")
    tokens: dict[int, list[int]] = {}
    for step, _i, _p, _t, _ok in run.decode:
        tokens.setdefault(step, [0, 0])[0] += 1
    for step, _i, _st, m, _t, _ok in run.prefill:
        tokens.setdefault(step, [0, 0])[1] += m
    for step, (dec, pre) in sorted(tokens.items()):
        if dec + pre > limits.token_budget:
            bad.add(step, "budget", f"step {step}: {dec + pre} tokens were computed ({dec} "
                                    f"decode + {pre} prefill), over the token budget of "
                                    f"{limits.token_budget}")
    for step, i, p, _t, ok in run.decode:
        if not ok:
            bad.add(step, "model calls", f"step {step}: decode for {_rid(by_index, i)} at "
                                         f"position {p} did not feed that request's last "
                                         "token at its last position")
    for step, i, st, m, _t, ok in run.prefill:
        if not ok:
            bad.add(step, "model calls", f"step {step}: prefill for {_rid(by_index, i)} of "
                                         f"positions {st}..{st + m - 1} did not feed that "
                                         "request's own tokens")


def _check_blocks(run: _Run, by_index: dict[int, support.RequestSpec], limits: support.Limits,
                  bad: _Violations) -> None:
    """Each (request, tenure) holds a block from the first to the last call it is in its table;
    a tenure ends when the request restarts its prefill at 0 (it was preempted). Two holders'
    intervals on one block must not overlap, and a block may not be twice in one table."""
    tenure: dict[int, int] = {}
    started: set[int] = set()
    # (block, index, tenure) -> [first call, last call, first step, last step]
    spans: dict[tuple[int, int, int], list[int]] = {}
    calls = [(run.order["d", k], s, i, p, p, t) for k, (s, i, p, t, _ok) in enumerate(run.decode)]
    calls += [(run.order["p", k], s, i, st, st + m - 1, t)
              for k, (s, i, st, m, t, _ok) in enumerate(run.prefill)]
    calls.sort()
    for call, step, i, first_pos, last_pos, table in calls:
        if i < 0:
            continue
        if first_pos == 0 and i in started:
            tenure[i] = tenure.get(i, 0) + 1
        started.add(i)
        if len(set(table)) != len(table):
            dup = next(b for b in table if table.count(b) > 1)
            bad.add(step, "blocks", f"step {step}: block {dup} appears twice in the block "
                                    f"table of {_rid(by_index, i)}")
        used = table[:support.blocks_for(last_pos + 1, limits.block_size)]
        for b in used:
            span = spans.setdefault((b, i, tenure.get(i, 0)), [call, call, step, step])
            span[1], span[3] = call, step
    by_block: dict[int, list[tuple[int, int, int, int, int, int]]] = {}
    for (b, i, t), (lo_call, hi_call, lo, hi) in spans.items():
        by_block.setdefault(b, []).append((lo_call, hi_call, i, lo, hi, t))
    for b, holders in by_block.items():
        holders.sort()
        for (_c1, hi_c1, i1, lo1, hi1, t1), (lo_c2, _h2, i2, lo2, _hi2, t2) in (
                itertools.pairwise(holders)):
            if lo_c2 <= hi_c1:
                who = (f"{_rid(by_index, i1)} and {_rid(by_index, i2)}" if i1 != i2 else
                       f"{_rid(by_index, i1)} before and after its preemption")
                # A sequence recomputed after a preemption must use blocks it took afresh.
                rules = ("blocks", "preemption") if i1 == i2 or t1 or t2 else ("blocks",)
                bad.add(lo2, rules, f"step {lo2}: block {b} is in the block tables of both "
                                    f"{who} (held from step {lo1} to {hi1}): two live "
                                    "sequences share it")
    if run.free and run.free[-1] is not None and not run.error:
        last = len(run.free) - 1
        if run.free[-1] != limits.num_blocks:
            bad.add(last, "blocks", f"step {last}: every request has ended, but the engine "
                                    f"reports {run.free[-1]} of {limits.num_blocks} blocks "
                                    f"free: {limits.num_blocks - run.free[-1]} leaked")


# ------------------------------------------------------------------------------------ tokens


def _expected_length(spec: support.RequestSpec, gen: list[int], reference: _Reference,
                     bad: _Violations, steps: list[int]) -> tuple[int | None, bool]:
    """(length the request must end at, a near-tie was forgiven); None when a wrong token makes
    it unknowable. Past the end of `gen` it continues with the reference decode."""
    if spec.max_tokens <= 0:
        return 0, False
    cont = reference.continuation(spec.prompt)
    toks: list[int] = []
    forgiven = False
    for i in range(spec.max_tokens):
        if i < len(gen):
            ref = cont.extend_to(i + 1)
            if not forgiven and i < len(ref) and gen[i] != ref[i]:
                if cont.margins[i] < support.MARGIN_TOLERANCE:
                    forgiven = True
                else:
                    step = steps[i] if i < len(steps) else -1
                    bad.add(step, "tokens", f"step {step}: request {spec.rid!r} token "
                                            f"#{i + 1} is {gen[i]}, but decoding it alone "
                                            f"gives {ref[i]}: its attention read keys/values "
                                            "that are not its own (a stale, shared or "
                                            "unwritten block)")
                    return None, forgiven
            toks.append(gen[i])
        elif forgiven:
            return None, forgiven
        else:
            ref = cont.extend_to(i + 1)
            if i >= len(ref):
                return None, forgiven
            toks.append(ref[i])
        if support.finish_length(toks, spec.max_tokens, spec.stop_token,
                                 spec.stop_sequence) is not None:
            return i + 1, forgiven
    return spec.max_tokens, forgiven


def _check_request(spec: support.RequestSpec, run: _Run, reference: _Reference,
                   bad: _Violations) -> tuple[int | None, bool]:
    gen = run.generated[spec.index]
    steps = run.token_steps[spec.index]
    calls = run.callbacks[spec.index]
    rid = spec.rid
    length, forgiven = _expected_length(spec, gen, reference, bad, steps)
    if length is not None and len(gen) > length:
        step = steps[length] if length < len(steps) else run.steps - 1
        bad.add(step, "tokens", f"step {step}: request {rid!r} was decoded again after it had "
                                f"ended: token #{length + 1} should never have been generated")
    if not calls:
        at = steps[-1] if steps else max(run.steps - 1, spec.arrival)
        bad.add(at, "callbacks", f"step {at}: request {rid!r} never got its callback "
                                 f"({len(gen)} token(s) generated)")
        return length, forgiven
    if len(calls) > 1:
        bad.add(calls[1][0], "callbacks", f"step {calls[1][0]}: callback for {rid!r} called "
                                          f"again ({len(calls)} times in all)")
    step, tokens, id_ok = calls[0]
    if not id_ok:
        bad.add(step, "callbacks",
                f"step {step}: callback for {rid!r} received a different request_id")
    if length is None:
        return None, forgiven
    if len(gen) < length:
        bad.add(step, "tokens", f"step {step}: request {rid!r} ended after {len(gen)} "
                                f"token(s), but it should have run to {length}")
    elif tokens != gen[:length]:
        bad.add(step, "callbacks", f"step {step}: callback for {rid!r} delivered "
                                   f"{_short(tokens)}, but the model generated "
                                   f"{_short(gen[:length])} for it")
    return length, forgiven


def _short(tokens: list[int] | None) -> str:
    if tokens is None:
        return "something that is not a list of ints"
    return str(tokens) if len(tokens) <= 12 else f"{tokens[:12]}... ({len(tokens)} tokens)"


def _check_freed_before_callback(run: _Run, by_index: dict[int, support.RequestSpec],
                                 limits: support.Limits, bad: _Violations) -> None:
    """A sequence frees its blocks before its callback runs: free_blocks() inside the callback
    counts at least the blocks its last model call read through (sound for any correct engine:
    those blocks are back in the free list by then)."""
    last: dict[int, tuple[int, int, list[int]]] = {}  # index -> (call, last position, table)
    for k, (_s, i, p, table, _ok) in enumerate(run.decode):
        last[i] = max(last.get(i, (-1, 0, [])), (run.order["d", k], p, table))
    for k, (_s, i, st, m, table, _ok) in enumerate(run.prefill):
        last[i] = max(last.get(i, (-1, 0, [])), (run.order["p", k], st + m - 1, table))
    for i, free in sorted(run.free_at_callback.items()):
        if i not in last or not run.callbacks[i]:
            continue
        _call, position, table = last[i]
        held = len(set(table[:support.blocks_for(position + 1, limits.block_size)]))
        if free < held:
            step = run.callbacks[i][0][0]
            bad.add(step, ("callbacks", "blocks"),
                    f"step {step}: inside the callback of {_rid(by_index, i)} free_blocks() is "
                    f"{free}, but the {held} block(s) it held must be free before its callback "
                    "runs")


def _check_step_results(run: _Run, specs: list[support.RequestSpec], bad: _Violations) -> None:
    """step() returns True exactly when something was running or waiting as it began: judged
    from the engine's own record (when each request was submitted and called back), not from
    the schedule, so a schedule slip does not show here too; the message names the request
    the record shows waiting or running."""
    first_call = {i: calls[0][0] for i, calls in enumerate(run.callbacks) if calls}
    by_index = {s.index: s for s in specs}
    # (request, first step it is waiting at, step it was called back in or None)
    submitted: list[tuple[int, int, int | None]] = []
    for spec in specs:
        if spec.after is None:
            start: int | None = spec.arrival
        else:  # submitted during its parent's callback step: waiting from the next one
            parent = first_call.get(spec.after)
            start = None if parent is None else parent + 1
        if start is not None:
            submitted.append((spec.index, start, first_call.get(spec.index)))
    for s, returned in enumerate(run.returned):
        pending = [(i, a, b) for i, a, b in submitted if a <= s and (b is None or s <= b)]
        busy = bool(pending)
        if returned != busy:
            if pending:
                index, start, end = pending[0]
                called = "never called back" if end is None else f"called back at step {end}"
                why = (f"it had work to do ({_rid(by_index, index)} was submitted before step "
                       f"{start} and {called})")
            else:
                why = ("nothing was running or waiting (every request submitted by then had "
                       "been called back)")
            bad.add(s, "step results", f"step {s}: step() returned {returned}, but {why}: it "
                                       f"returns {busy} then")
            return


# ------------------------------------------------------------------------------------ oracle


def _engine_steps(run: _Run) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = [{"decode": set(), "prefill": set(), "ended": set()}
                                   for _ in range(run.steps)]
    for s, i, _p, _t, _ok in run.decode:
        if 0 <= s < run.steps:
            steps[s]["decode"].add(i)
    for s, i, st, m, _t, _ok in run.prefill:
        if 0 <= s < run.steps:
            steps[s]["prefill"].add((i, st, m))
    for i, calls in enumerate(run.callbacks):
        for s, _toks, _ok in calls[:1]:
            if 0 <= s < run.steps:
                steps[s]["ended"].add(i)
    return steps


def _names(by_index: dict[int, support.RequestSpec], items: Any) -> str:
    return ", ".join(sorted(_rid(by_index, i) for i in items)) or "none"


def _chunks(by_index: dict[int, support.RequestSpec], items: Any) -> str:
    return ", ".join(f"{_rid(by_index, i)} positions {st}..{st + m - 1}"
                     for i, st, m in sorted(items)) or "none"


def _schedule_rules(got: dict[str, Any], want: support.OracleStep,
                    admitted: set[int]) -> tuple[str, ...]:
    """The rules a difference from the schedule breaks: always the schedule; preemption where
    the schedule preempts in that step or either side recomputes a preempted request; admission
    where a request's first chunk (position 0) is on one side only."""
    rules = ["schedule"]
    first = {(i, st, m) for i, st, m in set(got["prefill"]) ^ set(want.prefill) if st == 0}
    if want.preempted or any(i in admitted for i, _st, _m in first):
        rules.append("preemption")
    if first:
        rules.append("admission")
    return tuple(rules)


def _compare_with_oracle(run: _Run, oracle: list[support.OracleStep],
                         by_index: dict[int, support.RequestSpec], limits: support.Limits,
                         bad: _Violations) -> None:
    """Name the first step whose batch, chunks or callbacks differ (the schedule), and apart
    from it the first step whose blocks in use differ (free_blocks(), the blocks rule)."""
    engine = _engine_steps(run)
    admitted: set[int] = set()  # requests either side has prefilled from position 0 before
    idle = {"decode": set(), "prefill": set(), "ended": set()}
    for s in range(max(len(engine), len(oracle))):
        got = engine[s] if s < len(engine) else idle
        want = oracle[s] if s < len(oracle) else support.OracleStep(free_before=limits.num_blocks)
        context = (f" (the schedule starts this step with {want.free_before} free block(s) "
                   f"and a budget of {limits.token_budget} tokens")
        had = run.free[s - 1] if 0 < s <= len(run.free) else limits.num_blocks
        if had is not None and had != want.free_before:
            context += f"; the engine started it with {had}"
        if want.preempted:
            context += (f"; it preempts {_names(by_index, want.preempted)}, the newest running "
                        "request(s), for lack of a free block")
        context += ")"
        rules = _schedule_rules(got, want, admitted)
        if got["decode"] != set(want.decode):
            bad.add(s, rules, f"step {s}: the engine decoded {_names(by_index, got['decode'])}, "
                              f"the prescribed schedule decodes "
                              f"{_names(by_index, want.decode)}{context}")
            break
        if got["prefill"] != set(want.prefill):
            bad.add(s, rules, f"step {s}: the engine prefilled "
                              f"{_chunks(by_index, got['prefill'])}, the prescribed schedule "
                              f"prefills {_chunks(by_index, want.prefill)}{context}")
            break
        if got["ended"] != set(want.ended):
            bad.add(s, rules, f"step {s}: the engine ended {_names(by_index, got['ended'])}, the "
                              f"prescribed schedule ends {_names(by_index, want.ended)}")
            break
        admitted |= {i for i, st, _m in want.prefill if st == 0}
    for s in range(max(len(engine), len(oracle))):
        want = oracle[s] if s < len(oracle) else support.OracleStep(free_before=limits.num_blocks)
        free = run.free[s] if s < len(run.free) else limits.num_blocks
        if free is None:
            bad.add(s, "blocks", f"step {s}: free_blocks() did not return an int")
            return
        if limits.num_blocks - free != want.used:
            used = limits.num_blocks - free
            why = ("blocks not freed when a sequence ended or was preempted" if used > want.used
                   else "a prompt admitted without reserving all its blocks, or a block handed "
                        "out without leaving the free list")
            bad.add(s, "blocks", f"step {s}: the engine reports {used} block(s) in use after the "
                                 f"step, the prescribed schedule holds {want.used} ({why})")
            return


# ------------------------------------------------------------------------------------ check


@contextlib.contextmanager
def _one_torch_thread(config: dict[str, Any]) -> Iterator[None]:
    """The reference decode runs batch-1 forwards of a tiny model: a thread pool only contends
    on a busy worker. The worker's own thread count is restored afterwards."""
    if config["tier"] != "torch":
        yield
        return
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def check(test_input: dict[str, Any], expected: Any,
          output: Any) -> tuple[bool, str, dict[str, Any]]:
    """Verdict for one test: (passed, message naming the first violating step, evidence).

    The evidence is what the results page plots: blocks in use per step for the engine
    (`occupancy`) next to the prescribed schedule (`baseline_occupancy`), batch sizes, and the
    first violating step; and every rule of RULES with None (held) or its first violation
    (`rules`), with the rule the test's group is about (`property`). A randomised test reports
    its first failing workload (or, when all pass, its largest), and each rule's first
    violation in any workload."""
    config = support.model_config(test_input)
    with _one_torch_thread(config):
        if "random" in test_input:
            ok, message, evidence = _check_random(test_input, config, output)
        else:
            evidence = {}
            ok, message = _check(test_input, config, output, evidence)
    group = str(test_input.get("group", "correctness"))
    evidence["group"] = group
    evidence["property"] = PROPERTY.get(group, "schedule")
    return ok, message, evidence


def _check_random(test_input: dict[str, Any], config: dict[str, Any],
                  output: Any) -> tuple[bool, str, dict[str, Any]]:
    workloads = support.expand_workloads(test_input)
    runs = output.get("runs") if isinstance(output, dict) else None
    if not isinstance(runs, list) or len(runs) != len(workloads):
        message = "malformed driver record: not one run per workload"
        return False, message, {"rules": dict.fromkeys(RULES, message)}
    rules: dict[str, str | None] = dict.fromkeys(RULES)
    failed: tuple[str, dict[str, Any]] | None = None
    largest: tuple[int, dict[str, Any]] = (-1, {})
    requests = steps = preemptions = 0
    for number, (workload, run) in enumerate(zip(workloads, runs, strict=True), start=1):
        evidence: dict[str, Any] = {}
        ok, message = _check(workload, config, run, evidence)
        n = len(workload["requests"])
        where = (f"workload {number} of {len(workloads)} ({workload['num_blocks']} blocks of "
                 f"{workload['block_size']}, budget {workload['token_budget']}, {n} requests, "
                 f"drain {workload['drain']})")
        for name, broken in evidence["rules"].items():
            if broken is not None and rules.get(name) is None:
                rules[name] = f"{where}: {broken}"
        if not ok and failed is None:
            evidence["workload"] = number
            prefix = "first violation at step "
            rest = message[len(prefix):] if message.startswith(prefix) else message
            step, _, detail = rest.partition(": ")
            failed = (f"{prefix}{step} of {where}: {detail or rest}", evidence)
        requests += n
        steps += len(evidence.get("baseline_occupancy", ()))
        preemptions += int(evidence.get("preemptions", 0))
        if n > largest[0]:
            largest = (n, evidence)
    if failed is not None:
        failed[1]["rules"] = rules
        return False, failed[0], failed[1]
    evidence = largest[1]
    evidence["rules"] = rules
    return True, (f"ok: {len(workloads)} workloads, {requests} requests in {steps} steps, "
                  f"{preemptions} preemption(s), every step, block count and callback as the "
                  "prescribed schedule"), evidence


def _check(test_input: dict[str, Any], config: dict[str, Any], output: Any,
           evidence: dict[str, Any]) -> tuple[bool, str]:
    specs = support.parse_requests(test_input)
    limits = support.limits_of(test_input)
    evidence["capacity"] = limits.num_blocks
    by_index = {s.index: s for s in specs}
    try:
        run = _Run(output, len(specs))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        message = f"malformed driver record: {exc!r}"
        evidence["rules"] = dict.fromkeys(RULES, message)
        return False, message
    _engine_evidence(run, limits, evidence)
    bad = _Violations()
    if run.error:
        bad.add(run.steps, "step results", f"step {run.steps}: {run.error}")
    _check_calls(run, by_index, limits, bad)
    _check_blocks(run, by_index, limits, bad)
    _check_step_results(run, specs, bad)
    _check_freed_before_callback(run, by_index, limits, bad)
    reference = _Reference(config, limits)
    lengths: list[int | None] = [None] * len(specs)
    forgiven = 0
    wrong_token = False
    for spec in specs:
        lengths[spec.index], near_tie = _check_request(spec, run, reference, bad)
        forgiven += near_tie
        wrong_token |= lengths[spec.index] is None and not near_tie
    # Where a wrong token (or a forgiven near-tie the engine then ended on) leaves a request's
    # length unknowable, the schedule is still checked, on the engine's own length for it: each
    # rule is judged separately. After a wrong token those differences only inform the rules;
    # the message names the first violation among the rest, as a wrong token makes it unknowable
    # what the schedule should have been.
    known = [0] * len(specs)
    for spec in specs:
        length = lengths[spec.index]
        if length is None:
            gen = run.generated[spec.index]
            length = support.finish_length(gen, spec.max_tokens, spec.stop_token,
                                           spec.stop_sequence) or min(len(gen), spec.max_tokens)
        known[spec.index] = length
    oracle = support.schedule(specs, known, limits)
    evidence["baseline_occupancy"] = [s.used for s in oracle][:MAX_PLOT_STEPS]
    evidence["oracle_batch"] = [len(s.decode) + len(s.prefill) for s in oracle][:MAX_PLOT_STEPS]
    preemptions = sum(len(s.preempted) for s in oracle)
    evidence["preemptions"] = preemptions
    bad.quiet = wrong_token
    _compare_with_oracle(run, oracle, by_index, limits, bad)
    bad.quiet = False
    evidence["rules"] = bad.rules()
    if bad.items:
        evidence["first_violation_step"] = bad.first_step()
        evidence["rule"] = bad.first_rule()  # the rule the message names (grading.judge)
        return False, f"first violation at step {bad.first_step()}: {bad.first()}"
    made = support.work_steps(oracle)
    summary = (f"ok: {len(specs)} requests, {sum(known)} tokens in {made} model steps "
               f"({run.steps} steps), the prescribed schedule exactly; peak "
               f"{max((s.used for s in oracle), default=0)} of {limits.num_blocks} blocks, "
               f"{preemptions} preemption(s)")
    if forgiven:
        summary += f"; {forgiven} near-tie divergence(s) forgiven"
    if str(test_input.get("group")) == "throughput":
        static = support.work_steps(support.schedule(specs, known, limits, policy="static"))
        summary += (f"; static batching on the same pool needs {static} model steps: "
                    f"x{static / made if made else 1.0:.2f}")
        if run.wall_s > 0:
            summary += f"; {sum(known) / run.wall_s:.0f} tokens/s on {run.device}"
    return True, summary


def _engine_evidence(run: _Run, limits: support.Limits, evidence: dict[str, Any]) -> None:
    evidence["occupancy"] = [limits.num_blocks - f if f is not None else 0
                             for f in run.free][:MAX_PLOT_STEPS]
    batch = [0] * run.steps
    for s, _i, _p, _t, _ok in run.decode:
        if 0 <= s < run.steps:
            batch[s] += 1
    for s, *_rest in run.prefill:
        if 0 <= s < run.steps:
            batch[s] += 1
    evidence["batch"] = batch[:MAX_PLOT_STEPS]
