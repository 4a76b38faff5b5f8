"""Checker for continuous-batching-engine (runs in the worker; the driver's output is data).

The driver records every model call (which requests were in the batch, at which step), every
callback (its step, its tokens, whether the list changed afterwards), every step() result, and
the tokens the model really produced for each request. This checker recomputes the truth itself
and reports the FIRST violating step, in every test:

* model calls only inside step(), at most one per step, never empty, never more than
  `capacity`; every sequence in a batch is the prompt + generated tokens of an unfinished
  request; each request's tokens equal a sequential reference decode (one request at a time,
  computed here with support.py's model), it ends at the earliest of max_tokens / stop token /
  stop sequence (generated tokens only), and its callback fires exactly once with exactly those
  tokens;
* the oracle: from those output lengths, the schedule the statement prescribes (FIFO admission
  at the start of each step, max_tokens == 0 ending in its turn without a slot, one call per
  step with every active request, each callback in the step its request ends; _oracle). Every
  step's batch membership (as a set), every callback's step and every step() result must equal
  it; the first difference is named with the rule it breaks (FIFO, work conservation, decoded
  after its end, callback timing, ...);
* throughput: static-batching model calls / the engine's model calls >= 0.7 x the ideal ratio
  (static / continuous for the same output lengths at the same capacity), a cross-check with
  wall-clock figures.

Results by rule: every check above belongs to one rule of the statement (tokens, stops,
callbacks, capacity, schedule, step results, throughput), and the evidence reports each rule
judged in this test ("rules": rule -> None or its first violation) and the rule the test's
group is about ("property", GROUP_PROPERTY, or the input's own). The schedule is replayed on
the lengths the engine itself gave each request, so a request stopped at the wrong token
breaks the stop rules, not every later step; it is judged whenever every batch row is known
(no token rule broke). A test passes only when every rule held.

A randomised test ("random" in the input) is many small workloads expanded from a seed by
support.expand_workloads; each is checked as above, a rule holds when it held in every
workload, and the first failing workload is reported.

PyTorch tier: a token that differs from the reference is forgiven only where the reference's
top-2 logit margin is below support.MARGIN_TOLERANCE (float32 rounding differs with batch
composition and device); that request's later tokens are then checked for the stop rule only.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import marshal
import math
import sys
import types
from collections import OrderedDict, deque
from collections.abc import Iterator
from typing import Any

import support

THROUGHPUT_FRACTION = 0.7
_CACHE_MODULE = "_onsite_cbe_reference_cache"
_CACHE_PROMPTS = 4096


# ------------------------------------------------------------------------------------ cache


def _cache() -> dict[str, Any]:
    """Process-wide store of models and reference continuations. The worker builds a fresh
    Checker (fresh module globals) per submission, so the store hangs off sys.modules to let the
    next submission reuse decodes of the same prompts. Keys include the content hash of
    support.py (given by the worker's loader), a fingerprint of the model code and the torch
    version: an edited support.py never reads a stale decode."""
    holder = sys.modules.get(_CACHE_MODULE)
    if holder is None:
        holder = sys.modules[_CACHE_MODULE] = types.ModuleType(_CACHE_MODULE)
    store: dict[str, Any] = holder.__dict__.setdefault(
        "store", {"models": {}, "continuations": OrderedDict()})
    return store


def _fingerprint(config: dict[str, Any]) -> str:
    codes = [support.SimModel.next_token.__code__, support.TorchModel.__init__.__code__,
             support.TorchModel.logits.__code__, support.TorchModel.next_with_margin.__code__]
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode())
    # The whole support.py, where the worker's loader gives its content hash.
    digest.update(str(getattr(support, "__source_sha256__", "")).encode())
    for code in codes:
        digest.update(marshal.dumps(code))
    if config["tier"] == "torch":
        import torch

        digest.update(torch.__version__.encode())
    return digest.hexdigest()[:24]


def _continuation(config: dict[str, Any], prompt: tuple[int, ...]) -> support.Continuation:
    store = _cache()
    key = _fingerprint(config)
    models: dict[str, Any] = store["models"]
    conts: OrderedDict[tuple[str, tuple[int, ...]], support.Continuation] = store["continuations"]
    model = models.get(key)
    if model is None:
        # The reference always runs on the worker's CPU: deterministic, and no GPU needed here.
        model = models[key] = support.build_model(config, device="cpu")
    ckey = (key, prompt)
    cont = conts.get(ckey)
    if cont is None:
        cont = conts[ckey] = support.Continuation(model, prompt)
        while len(conts) > _CACHE_PROMPTS:
            conts.popitem(last=False)  # least recently used
    else:
        conts.move_to_end(ckey)
    return cont


# ------------------------------------------------------------------------------------ records


class _Run:
    """The driver's record, validated into plain typed fields."""

    def __init__(self, output: Any, n: int) -> None:
        if not isinstance(output, dict):
            raise ValueError("the driver returned no record")
        self.steps = int(output["steps"])
        self.calls = [(int(s), [int(o) for o in owners]) for s, owners in output["calls"]]
        self.stray = [(int(s), list(owners)) for s, owners in output.get("stray_calls", [])]
        self.occupancy = [int(x) for x in output["occupancy"]]
        self.generated = [[int(t) for t in toks] for toks in output["generated"]]
        if len(self.generated) != n:
            raise ValueError("the record does not cover every request")
        self.callbacks: list[list[tuple[int, list[int] | None, bool]]] = [[] for _ in range(n)]
        self.callback_rank: dict[int, int] = {}  # index -> position of its first callback
        self.outside_step: list[tuple[int, int]] = []  # callbacks made outside step()
        for rank, (index, step, tokens, id_ok, *inside) in enumerate(output["callbacks"]):
            toks = None if tokens is None else [int(t) for t in tokens]
            if inside and not inside[0]:
                self.outside_step.append((int(index), int(step)))
            self.callbacks[int(index)].append((int(step), toks, bool(id_ok)))
            self.callback_rank.setdefault(int(index), rank)
        self.returns = [bool(r) for r in output.get("returns", [])]
        self.mutated = [(int(i), int(s)) for i, s in output.get("mutated", [])]
        self.error = output.get("error")
        self.wall_s = float(output.get("wall_s") or 0.0)
        self.baseline = output.get("baseline")
        self.device = str(output.get("device", "?"))
        self.appearances: list[list[int]] = [[] for _ in range(n)]
        for step, owners in self.calls:
            for owner in owners:
                if 0 <= owner < n:
                    self.appearances[owner].append(step)


# The statement's rules, each judged on its own in every test (evidence "rules": rule -> None
# when it held, else the first way it was broken), so one slip of convention shows as that rule
# failing while every other rule still counts (the judge's results by rule).
TOKENS = "tokens"  # each request's tokens are the model's for its own prefix (rules 1, 5)
STOPS = "stops"  # each request ends at the earliest stop condition, generated tokens only (2)
CALLBACKS = "callbacks"  # once, inside the step it ends, with its tokens, list kept (3, 4)
CAPACITY = "capacity"  # never more than `capacity` sequences in a model call (1)
SCHEDULE = "schedule"  # the batches of the statement's schedule: FIFO, refill, one call (1, 4-7)
STEP_RESULTS = "step results"  # step() returns True exactly when there is work (1)
THROUGHPUT = "throughput"  # static / engine model calls >= 0.7 x ideal (throughput group)
# Judged only once every request's length is known (the oracle needs them).
SCHEDULED_RULES = (SCHEDULE, STEP_RESULTS)
ALWAYS_RULES = (TOKENS, STOPS, CALLBACKS, CAPACITY)
# The rule each group's workloads are about (evidence "property"): its score counts tests in
# which that rule held. A test input may name its own ("property": "step results").
GROUP_PROPERTY = {
    "correctness": TOKENS, "exactly_once": CALLBACKS, "capacity": CAPACITY,
    "work_conservation": SCHEDULE, "edge": STOPS, "throughput": THROUGHPUT,
    "random_stops": STOPS, "random_schedules": SCHEDULE, "random_text": STOPS,
}


class _Violations:
    def __init__(self) -> None:
        self.items: list[tuple[int, str, str]] = []  # (step, message, rule)

    def add(self, rule: str, step: int, message: str) -> None:
        self.items.append((step, message, rule))

    def first(self) -> str:
        self.items.sort(key=lambda item: item[0])
        _step, message, _rule = self.items[0]
        more = len(self.items) - 1
        return message + (f" (+{more} more violation{'s' * (more > 1)})" if more else "")

    def first_rule(self) -> str:
        """The rule first() names (the earliest violation's)."""
        return min(self.items, key=lambda item: item[0])[2]

    def rules(self, judged: tuple[str, ...]) -> dict[str, str | None]:
        """Each judged rule: None when it held, else its earliest violation's message."""
        out: dict[str, str | None] = dict.fromkeys(judged)
        for _step, message, rule in sorted(self.items, key=lambda item: item[0]):
            if out.get(rule) is None:
                out[rule] = message
        return out


# ------------------------------------------------------------------------------------ checks


def _check_calls(run: _Run, specs: list[support.RequestSpec], capacity: int,
                 bad: _Violations) -> None:
    for before, _owners in run.stray:
        bad.add(SCHEDULE, before, f"step {before}: model_next was called outside step()")
    per_step: dict[int, int] = {}
    for step, owners in run.calls:
        per_step[step] = per_step.get(step, 0) + 1
        if per_step[step] == 2:
            bad.add(SCHEDULE, step,
                    f"step {step}: model_next was called more than once in one step")
        if not owners:
            bad.add(SCHEDULE, step, f"step {step}: model_next was called with an empty batch")
        if len(owners) > capacity:
            bad.add(CAPACITY, step,
                    f"step {step}: a batch of {len(owners)} sequences exceeds capacity "
                    f"{capacity}")
        for pos, owner in enumerate(owners):
            if owner < 0:
                bad.add(TOKENS, step,
                        f"step {step}: batch entry {pos} is not the prompt + generated "
                        "tokens of any unfinished request (a buffer not reset on refill, "
                        "tokens given to the wrong slot, or a finished request still "
                        "in the batch)")
    for spec in specs:
        seen = run.appearances[spec.index]
        for a, b in itertools.pairwise(seen):
            if b != a + 1:
                bad.add(SCHEDULE, a + 1,
                        f"step {a + 1}: request {spec.rid!r} was in the batch at step {a} "
                        f"and again at step {b}, but left out of it at step {a + 1}")
                break


def _stop_reason(toks: list[int], spec: support.RequestSpec) -> str | None:
    """Why a request whose generated tokens are `toks` ends right after the last one, if it does."""
    n = len(toks)
    if spec.stop_token is not None and toks[-1] == spec.stop_token:
        return f"stop token {spec.stop_token} generated as token #{n}"
    seq = spec.stop_sequence
    if seq and n >= len(seq) and tuple(toks[-len(seq):]) == seq:
        return f"stop sequence {list(seq)} completed at token #{n}"
    if n >= spec.max_tokens:
        return f"max_tokens={spec.max_tokens} reached"
    return None


def _expected_length(spec: support.RequestSpec, gen: list[int], config: dict[str, Any],
                     bad: _Violations, steps: list[int]) -> tuple[int | None, str, bool]:
    """(length the request must end at or None if unknowable, why, a near-tie was forgiven).
    Walks the generated tokens against the reference, continuing with the reference past the
    end of what was generated (to see where a request stopped too early should have ended)."""
    if spec.max_tokens <= 0:
        return 0, "max_tokens=0", False
    cont = _continuation(config, spec.prompt)
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
                    bad.add(TOKENS, step,
                            f"step {step}: request {spec.rid!r} token #{i + 1} is {gen[i]}, "
                            f"but the model decoding it alone gives {ref[i]} (margin "
                            f"{cont.margins[i]:.3g}): the model itself was altered")
                    return None, "", forgiven
            toks.append(gen[i])
        elif forgiven:
            return None, "", forgiven
        else:
            ref = cont.extend_to(i + 1)
            if i >= len(ref):
                return None, "", forgiven
            toks.append(ref[i])
        reason = _stop_reason(toks, spec)
        if reason:
            return i + 1, reason, forgiven
    return spec.max_tokens, f"max_tokens={spec.max_tokens} reached", forgiven


def _check_request(spec: support.RequestSpec, run: _Run, config: dict[str, Any],
                   bad: _Violations) -> tuple[int | None, bool, str]:
    """Tokens, stop rule and exactly-once callback of one request; returns its checked length,
    whether a near-tie was forgiven, and why it ends there."""
    gen = run.generated[spec.index]
    steps = run.appearances[spec.index]
    calls = run.callbacks[spec.index]
    rid = spec.rid
    end = run.steps - 1
    if spec.max_tokens <= 0 and steps:
        bad.add(SCHEDULE, steps[0],
                f"step {steps[0]}: request {rid!r} has max_tokens=0 but was put in "
                "the batch")
    length, why, forgiven = _expected_length(spec, gen, config, bad, steps)
    if length is not None and len(gen) > length:
        step = steps[length] if length < len(steps) else end
        bad.add(STOPS, step, f"step {step}: request {rid!r} was decoded again after it had ended "
                             f"({why}): token #{length + 1} should never have been generated")
    if not calls:
        last = f"last in the batch at step {steps[-1]}" if steps else "never admitted"
        at = steps[-1] if steps else max(end, spec.arrival)
        bad.add(CALLBACKS, at,
                f"step {at}: request {rid!r} never got its callback ({len(gen)} token(s) "
                f"generated, {last})")
        return length, forgiven, why
    if len(calls) > 1:
        bad.add(CALLBACKS, calls[1][0], f"step {calls[1][0]}: callback for {rid!r} called again "
                                        f"({len(calls)} times in all)")
    step, tokens, id_ok = calls[0]
    if not id_ok:
        bad.add(CALLBACKS, step,
                f"step {step}: callback for {rid!r} received a different request_id")
    if length is None and not forgiven:
        return None, forgiven, why
    if length is None or len(gen) < length:
        need = f"it should have run to {length} tokens ({why})" if length is not None else \
            "no stop condition was met"
        bad.add(STOPS, step,
                f"step {step}: request {rid!r} ended after {len(gen)} token(s), but {need}")
    elif tokens != gen and tokens != gen[:length]:  # decoding on after the end is a stop fault
        bad.add(CALLBACKS, step,
                f"step {step}: callback for {rid!r} delivered {_short(tokens)}, but the "
                f"model generated {_short(gen)} for it")
    return length, forgiven, why


def _short(tokens: list[int] | None) -> str:
    if tokens is None:
        return "something that is not a list of ints"
    return str(tokens) if len(tokens) <= 12 else f"{tokens[:12]}... ({len(tokens)} tokens)"


# ------------------------------------------------------------------------------------ oracle


class _Schedule:
    """The schedule the statement prescribes for known output lengths (all by request index)."""

    def __init__(self) -> None:
        self.batches: list[frozenset[int]] = []  # per step: who is in the model call
        self.returns: list[bool] = []  # per step: what step() returns
        self.submitted: dict[int, int] = {}  # step before (or in) which each was submitted
        self.admitted: dict[int, int] = {}
        self.ended: dict[int, int] = {}  # the step each request is called back in
        self.fifo: list[int] = []  # submission order
        self.capacity = 0


def _oracle(specs: list[support.RequestSpec], lengths: list[int], capacity: int,
            callback_rank: dict[int, int]) -> _Schedule:
    """Replay the statement's rules. Before step s the grader submits the requests arriving at
    s; the step returns False (doing nothing) if nothing is active or waiting, else admits from
    the front of the queue into free slots (a max_tokens == 0 request ends in its turn, without
    a slot), makes one model call with every active request and calls back, in this step, those
    that reach their length. A callback's submit() joins the queue at once. Requests ending in
    one step may be called back in any order: the engine's order (`callback_rank`) orders the
    requests their callbacks submit. `specs` are in submission order (support.parse_requests)."""
    sched = _Schedule()
    sched.capacity = capacity
    children: dict[int, list[int]] = {}
    for spec in specs:
        if spec.after is not None:
            children.setdefault(spec.after, []).append(spec.index)
    arrivals = deque(s for s in specs if s.after is None)
    waiting: deque[int] = deque()
    active: dict[int, int] = {}  # request -> tokens generated

    def enqueue(index: int, step: int) -> None:
        sched.submitted[index] = step
        sched.fifo.append(index)
        waiting.append(index)

    def end(index: int, step: int) -> None:
        sched.ended[index] = step
        for child in children.get(index, ()):
            enqueue(child, step)

    step = 0
    while True:
        while arrivals and arrivals[0].arrival <= step:
            enqueue(arrivals.popleft().index, step)
        busy = bool(active or waiting)
        sched.returns.append(busy)
        if not busy:
            sched.batches.append(frozenset())
            if not arrivals:
                return sched
            step += 1
            continue
        while waiting and len(active) < capacity:
            index = waiting.popleft()
            sched.admitted[index] = step
            if lengths[index] <= 0:
                end(index, step)
            else:
                active[index] = 0
        sched.batches.append(frozenset(active))
        done = []
        for index in active:
            active[index] += 1
            if active[index] >= lengths[index]:
                done.append(index)
        for index in sorted(done, key=lambda i: (callback_rank.get(i, len(specs)), i)):
            del active[index]
            end(index, step)
        step += 1


def _names(indices: frozenset[int] | set[int], specs: dict[int, support.RequestSpec],
           fifo: dict[int, int]) -> str:
    ordered = sorted(indices, key=lambda i: (fifo.get(i, len(fifo)), i))
    shown = [specs[i].rid for i in ordered[:12]]
    return "{" + ", ".join(shown) + (f", ... ({len(ordered)})" if len(ordered) > 12 else "") + "}"


def _batch_rule(step: int, got: set[int], want: frozenset[int], sched: _Schedule,
                specs: dict[int, support.RequestSpec], fifo: dict[int, int]) -> str:
    """The rule a batch that differs from the schedule's breaks, as a sentence."""
    def first(indices: set[int]) -> int | None:
        return min(indices, key=lambda i: (fifo.get(i, len(fifo)), i)) if indices else None

    x, m = first(got - want), first(set(want) - got)
    if x is not None:
        rx = specs[x].rid
        if specs[x].max_tokens <= 0:
            return (f"max_tokens=0 at step {step}: {rx!r} is in the batch (it ends in its FIFO "
                    "turn without a slot)")
        ended = sched.ended.get(x, step)
        if ended < step:
            return (f"decoded after its end at step {step}: {rx!r} is in the batch, and the "
                    f"statement's schedule ends it at step {ended}")
        if m is not None and fifo.get(x, 0) > fifo.get(m, 0):
            return f"FIFO violated at step {step}: admitted {rx!r}, expected {specs[m].rid!r}"
        return (f"admitted too early at step {step}: {rx!r} (the schedule admits it at step "
                f"{sched.admitted.get(x, '-')})")
    assert m is not None
    rm = specs[m].rid
    admitted = sched.admitted.get(m, step)
    if admitted == step:
        return (f"work conservation broken at step {step}: {len(got)} of "
                f"{sched.capacity} slots were used, and the statement's schedule admits "
                f"{rm!r} at this step (free slots are filled from the queue at the start of "
                "every step)")
    return (f"left out of the batch at step {step}: the statement's schedule has {rm!r} in "
            f"the batch from step {admitted}")


def _compare_schedule(run: _Run, specs: list[support.RequestSpec], sched: _Schedule,
                      reasons: dict[int, str], bad: _Violations) -> None:
    """Every step's batch (as a set), every step() result and every callback's step against
    the oracle; the first difference of each kind is named."""
    by_index = {s.index: s for s in specs}
    fifo = {index: pos for pos, index in enumerate(sched.fifo)}
    actual: dict[int, set[int]] = {}
    for step, owners in run.calls:
        actual.setdefault(step, set()).update(o for o in owners if o >= 0)
    for step in range(max(len(sched.batches), run.steps)):
        want = sched.batches[step] if step < len(sched.batches) else frozenset()
        got = actual.get(step, set())
        if got != want:
            bad.add(SCHEDULE, step,
                    f"{_batch_rule(step, got, want, sched, by_index, fifo)}; the batch "
                    f"was {_names(got, by_index, fifo)}, the statement's schedule has "
                    f"{_names(want, by_index, fifo)}")
            break  # everything after follows from the first difference
    late = []
    for spec in specs:
        calls = run.callbacks[spec.index]
        want_step = sched.ended.get(spec.index)
        if calls and want_step is not None and calls[0][0] != want_step:
            late.append((min(calls[0][0], want_step), spec, calls[0][0], want_step))
    if late:
        at, spec, got_step, want_step = min(late, key=lambda item: item[0])
        rule = ("a max_tokens=0 request is called back in its FIFO turn, without a slot"
                if spec.max_tokens <= 0 else "a callback fires in the step its request ends")
        bad.add(CALLBACKS, at,
                f"callback timing wrong at step {at}: {spec.rid!r} was called back at step "
                f"{got_step}, expected step {want_step}, when it ends "
                f"({reasons.get(spec.index, '?')}; {rule})")
    _check_step_results(run, specs, bad)
    for index, step in run.outside_step[:1]:
        bad.add(CALLBACKS, step,
                f"callback outside step() before step {step}: {by_index[index].rid!r} was "
                "called back outside step() (callbacks fire inside step(), in the step "
                "their request ends)")
    for index, step in run.mutated:
        bad.add(CALLBACKS, step,
                f"callback list changed at step {step}: the list passed to "
                f"{by_index[index].rid!r}'s callback was modified after the call (the "
                "grader keeps every delivered list and compares it at the end of the run;"
                " the list belongs to the caller)")


def pending_spans(run: _Run, specs: list[support.RequestSpec]) -> dict[int, tuple[int, float]]:
    """From the engine's own record: per request, the first and last step at whose start it
    was submitted and not yet called back (the last is inf when it never was). A top-level
    request is submitted before its arrival step; one a callback submits, right after that
    callback (inside step s: from step s + 1). Called back inside step s: pending at s's start;
    outside step() before step s: no longer pending at s."""
    first_call: dict[int, tuple[int, bool]] = {}
    outside = set(run.outside_step)
    for index, calls in enumerate(run.callbacks):
        if calls:
            step = calls[0][0]
            first_call[index] = (step, (index, step) not in outside)
    spans: dict[int, tuple[int, float]] = {}
    for spec in specs:
        if spec.after is None:
            start = spec.arrival
        elif spec.after in first_call:
            parent_step, inside = first_call[spec.after]
            start = parent_step + 1 if inside else parent_step
        else:
            continue  # never submitted: its parent was never called back
        if spec.index in first_call:
            step, inside = first_call[spec.index]
            end: float = step if inside else step - 1
        else:
            end = math.inf
        spans[spec.index] = (start, end)
    return spans


def _check_step_results(run: _Run, specs: list[support.RequestSpec], bad: _Violations) -> None:
    """step() returns True exactly when a request is waiting or running as the call begins:
    judged on the engine's own record (when each request was submitted and called back), so
    the message states only what the record shows, naming the request it means."""
    spans = pending_spans(run, specs)
    by_index = {s.index: s for s in specs}
    for step, got in enumerate(run.returns):
        pending = sorted(i for i, (start, end) in spans.items() if start <= step <= end)
        if got == bool(pending):
            continue
        if pending:
            first = by_index[pending[0]]
            start = spans[first.index][0]
            calls = run.callbacks[first.index]
            called = f"called back at step {calls[0][0]}" if calls else "never called back"
            fact = (f"request {first.rid!r} was submitted before step {start} and "
                    f"{called}")
        else:
            fact = "every request submitted by then had been called back"
        bad.add(STEP_RESULTS, step,
                f"step() result wrong at step {step}: it returned {got}, but {fact} (True "
                "exactly when a request is waiting or running at the start of the call)")
        return


def _throughput(run: _Run, specs: list[support.RequestSpec], lengths: list[int],
                capacity: int) -> tuple[bool, str]:
    """Gate on model calls (noise-free); wall-clock figures are reported, never gated.
    `specs` are in submission order and `lengths` follow them."""
    arrivals = [s.arrival for s in specs]
    static = support.model_calls(lengths, arrivals, capacity, "static")
    cont = support.model_calls(lengths, arrivals, capacity, "continuous")
    made = len(run.calls)
    ideal = static / cont if cont else 1.0
    ratio = static / made if made else 0.0
    base = run.baseline
    if not isinstance(base, dict):
        return False, "throughput: the driver returned no static-batching baseline run"
    base_lengths = [int(base["lengths"][s.index]) for s in specs]
    if int(base["calls"]) != support.model_calls(base_lengths, arrivals, capacity, "static"):
        return False, ("throughput: the static-batching baseline run was disturbed (its call "
                       "count does not match its own output lengths)")
    tokens = sum(lengths)
    wall = ""
    if run.wall_s > 0 and float(base["wall_s"]) > 0:
        wall = (f"; wall clock on {run.device}: {tokens / run.wall_s:.0f} vs "
                f"{tokens / float(base['wall_s']):.0f} tokens/s "
                f"(x{float(base['wall_s']) / run.wall_s:.2f})")
    figures = (f"B={capacity}: static batching needs {static} model calls, ideal continuous "
               f"{cont} (ideal ratio {ideal:.2f}); the engine made {made} (ratio {ratio:.2f})")
    if ratio < THROUGHPUT_FRACTION * ideal:
        return False, (f"throughput ratio {ratio:.2f} is below {THROUGHPUT_FRACTION} x ideal "
                       f"{ideal:.2f}: {figures}{wall}")
    return True, figures + wall


@contextlib.contextmanager
def _one_torch_thread(config: dict[str, Any]) -> Iterator[None]:
    """The reference decode runs batch-1 forwards of a tiny model: every op is far below what a
    thread pool helps with, and on a busy worker OpenMP spinning made it 7-14x slower. The
    worker's own thread count is restored afterwards (checks are serialised by the grader)."""
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


MAX_PLOT_STEPS = 400


def check(test_input: dict[str, Any], expected: Any,
          output: Any) -> tuple[bool, str, dict[str, Any]]:
    """Verdict for one test: (passed, message naming the first violating step, evidence).

    The evidence is what the results page plots: the engine's batch occupancy per step next to
    the oracle's schedule and a static-batching schedule of the same workload, per-request
    queue wait and completion step (p50/p99), and the first violating step. A randomised test
    reports its first failing workload (or, when all pass, its largest)."""
    config = support.model_config(test_input)
    with _one_torch_thread(config):
        if "random" not in test_input:
            ok, message, evidence = _check_one(test_input, config, output)
        else:
            ok, message, evidence = _check_random(test_input, config, output)
    group = str(test_input.get("group", "correctness"))
    prop = test_input.get("property") or GROUP_PROPERTY.get(group)
    if prop:
        evidence["property"] = str(prop)
    return ok, message, evidence


def _check_random(test_input: dict[str, Any], config: dict[str, Any],
                  output: Any) -> tuple[bool, str, dict[str, Any]]:
    workloads = support.expand_workloads(test_input)
    runs = output.get("runs") if isinstance(output, dict) else None
    group = str(test_input.get("group", "correctness"))
    if not isinstance(runs, list) or len(runs) != len(workloads):
        return False, "malformed driver record: not one run per workload", {"group": group}
    if isinstance(output, dict):
        for run in runs:
            if isinstance(run, dict):
                run.setdefault("device", output.get("device"))
                run.setdefault("environment", output.get("environment"))
    largest: tuple[int, dict[str, Any]] = (-1, {})
    requests = calls = 0
    failed: tuple[str, dict[str, Any]] | None = None  # the first failing workload
    rules: dict[str, str | None] = {}
    for number, (workload, run) in enumerate(zip(workloads, runs, strict=True), start=1):
        ok, message, evidence = _check_one(workload, config, run)
        n = len(workload["requests"])
        # A rule holds in the test when it held in every workload; the first break is named.
        for rule, broken in evidence.get("rules", {}).items():
            if rules.get(rule) is None:
                rules[rule] = None if broken is None else f"workload {number}: {broken}"
        if not ok and failed is None:
            evidence["workload"] = number
            failed = (f"workload {number} of {len(workloads)} (B={workload['capacity']}, "
                      f"{n} requests, drain {workload['drain']}): {message}"), evidence
        requests += n
        calls += len(run["calls"]) if isinstance(run, dict) else 0
        if n > largest[0]:
            largest = (n, evidence)
    if failed is not None:
        return False, failed[0], failed[1] | {"rules": rules}
    capacities = sorted({int(w["capacity"]) for w in workloads})
    evidence = largest[1] | {"rules": rules}
    return True, (f"ok: {len(workloads)} workloads (B in {capacities}), {requests} requests, "
                  f"{calls} model calls, every step and callback as the statement's schedule"
                  ), evidence


def _percentiles(values: list[int]) -> dict[str, int]:
    """Nearest-rank p50 and p99."""
    if not values:
        return {}
    ordered = sorted(values)
    def rank(p: float) -> int:
        return ordered[max(0, math.ceil(p * len(ordered)) - 1)]
    return {"p50": rank(0.50), "p99": rank(0.99)}


def _latency(run: _Run, specs: list[support.RequestSpec]) -> dict[str, dict[str, int]]:
    """Per-request queue wait (admission step - submission step) and completion step (the step
    of the callback), from the engine's record."""
    submitted: dict[int, int] = {}
    waits, completions = [], []
    for spec in specs:  # submission order: a parent comes before the request it submits
        if spec.after is None:
            submitted[spec.index] = spec.arrival
        elif run.callbacks[spec.after]:
            submitted[spec.index] = run.callbacks[spec.after][0][0]
        calls = run.callbacks[spec.index]
        if spec.index not in submitted or not calls:
            continue
        seen = run.appearances[spec.index]
        admitted = seen[0] if seen else calls[0][0]
        waits.append(admitted - submitted[spec.index])
        completions.append(calls[0][0])
    return {"queue_wait": _percentiles(waits), "completion_step": _percentiles(completions)}


def _evidence(test_input: dict[str, Any], specs: list[support.RequestSpec], run: _Run | None,
              output: Any, lengths: list[int | None], sched: _Schedule | None,
              first_step: int | None) -> dict[str, Any]:
    capacity = int(test_input.get("capacity", 0))
    evidence: dict[str, Any] = {"group": str(test_input.get("group", "correctness")),
                                "capacity": capacity}
    if first_step is not None:
        evidence["first_violation_step"] = first_step
    env = output.get("environment") if isinstance(output, dict) else None
    if isinstance(env, dict):  # where the sandbox ran the model (device, torch, CUDA)
        evidence["environment"] = {str(k): str(v) for k, v in env.items()}
    occupancy = output.get("occupancy") if isinstance(output, dict) else None
    if isinstance(occupancy, list) and all(isinstance(x, int) for x in occupancy):
        evidence["occupancy"] = occupancy[:MAX_PLOT_STEPS]
    if sched is not None:
        evidence["oracle_occupancy"] = [len(b) for b in sched.batches][:MAX_PLOT_STEPS]
    if run is None or not specs:
        return evidence
    # The static schedule of the true lengths (or, where unknown, the delivered ones).
    static_lengths = [0] * len(specs)
    for spec in specs:
        known = lengths[spec.index]
        delivered = run.callbacks[spec.index][0][1] if run.callbacks[spec.index] else None
        static_lengths[spec.index] = known if known is not None else len(delivered or [])
    arrivals = [s.arrival for s in sorted(specs, key=lambda s: s.index)]
    static = support.simulate(static_lengths, arrivals, capacity or 1, "static")
    evidence["baseline_occupancy"] = list(static)[:MAX_PLOT_STEPS]
    evidence["latency"] = _latency(run, specs)
    return evidence


def _check_one(test_input: dict[str, Any], config: dict[str, Any],
               output: Any) -> tuple[bool, str, dict[str, Any]]:
    specs = support.parse_requests(test_input)
    capacity = int(test_input["capacity"])
    group = str(test_input.get("group", "correctness"))
    try:
        run = _Run(output, len(specs))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        return (False, f"malformed driver record: {exc!r}",
                _evidence(test_input, specs, None, output, [], None, None))
    bad = _Violations()
    if run.error:
        bad.add(SCHEDULE, run.steps, f"step {run.steps}: {run.error}")
    _check_calls(run, specs, capacity, bad)
    lengths: list[int | None] = []
    reasons: dict[int, str] = {}
    forgiven = 0
    for spec in sorted(specs, key=lambda s: s.index):
        length, near_tie, reasons[spec.index] = _check_request(spec, run, config, bad)
        lengths.append(length)
        forgiven += near_tie
    sched = None
    judged: tuple[str, ...] = ALWAYS_RULES
    throughput: tuple[bool, str] | None = None
    known = [x or 0 for x in lengths]  # by request index
    if not any(rule == TOKENS for _step, _message, rule in bad.items):
        # The schedule is judged on the lengths the engine itself gave each request (every
        # row is known when no token rule broke): a request that stops at the wrong token
        # breaks the stop rules, not every step, callback and step() result after it. For a
        # correct engine these are the true lengths.
        # A request the engine never decoded keeps its true length (at least 1): 0 would make
        # it a max_tokens == 0 request, which ends without a slot.
        own = [len(run.generated[spec.index]) or (lengths[spec.index] or 1
                                                  if spec.max_tokens > 0 else 0)
               for spec in sorted(specs, key=lambda s: s.index)]
        why = {spec.index: reasons[spec.index] if own[spec.index] == lengths[spec.index]
               else f"after the {own[spec.index]} token(s) the engine generated for it"
               for spec in specs}
        sched = _oracle(specs, own, capacity, run.callback_rank)
        _compare_schedule(run, specs, sched, why, bad)
        judged += SCHEDULED_RULES
    if group == "throughput" and all(length is not None for length in lengths):
        judged += (THROUGHPUT,)  # on the true lengths, whatever else broke
        throughput = _throughput(run, specs, [known[s.index] for s in specs], capacity)
        if not throughput[0]:
            bad.add(THROUGHPUT, run.steps, throughput[1])
    rules = bad.rules(judged)
    if bad.items:
        first = min(step for step, _message, _rule in bad.items)
        evidence = _evidence(test_input, specs, run, output, lengths, sched, first)
        # "rule": the rule the message names, for the verdict line (grading.judge).
        return False, bad.first(), evidence | {"rules": rules, "rule": bad.first_rule()}
    evidence = _evidence(test_input, specs, run, output, lengths, sched, None)
    evidence["near_ties_forgiven"] = forgiven
    evidence["rules"] = rules
    calls = len(run.calls)
    busy = sum(run.occupancy)
    summary = (f"ok: {len(specs)} requests, {sum(known)} tokens, {calls} model calls "
               f"in {run.steps} steps, mean batch {busy / calls if calls else 0:.2f} of "
               f"{capacity}, every step and callback as the statement's schedule")
    if forgiven:
        summary += f"; {forgiven} near-tie divergence(s) forgiven"
    if throughput is not None:
        summary += f"; {throughput[1]}"
    return True, summary, evidence
