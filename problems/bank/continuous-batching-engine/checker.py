"""Checker for continuous-batching-engine (runs in the worker; the driver's output is data).

The driver records every model call (which requests were in the batch, at which step), every
callback, and the tokens the model really produced for each request. This checker recomputes
the truth itself and reports the FIRST violating step:

* every group: model calls only inside step(), at most one per step, never empty, never more
  than `capacity`; every sequence in a batch is the prompt + generated tokens of an unfinished
  request; an admitted request is decoded at every step until it ends; its tokens equal a
  sequential reference decode (one request at a time, computed here with support.py's model),
  it ends at the earliest of max_tokens / stop token / stop sequence (generated tokens only),
  and its callback fires exactly once with exactly those tokens;
* work_conservation: no step leaves a slot idle while a submitted request waits; FIFO admission;
* throughput: static-batching model calls / the engine's model calls >= 0.7 x the ideal ratio
  (static / continuous for the same output lengths at the same capacity); a failure also names
  the first step that left a slot idle while a request waited.

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
import sys
import types
from collections import OrderedDict
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
    next submission reuse decodes of the same prompts. Keys include a fingerprint of the model
    code and the torch version: an edited support.py never reads a stale decode."""
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
        for index, step, tokens, id_ok in output["callbacks"]:
            toks = None if tokens is None else [int(t) for t in tokens]
            self.callbacks[int(index)].append((int(step), toks, bool(id_ok)))
        self.error = output.get("error")
        self.wall_s = float(output.get("wall_s") or 0.0)
        self.baseline = output.get("baseline")
        self.device = str(output.get("device", "?"))
        self.appearances: list[list[int]] = [[] for _ in range(n)]
        for step, owners in self.calls:
            for owner in owners:
                if 0 <= owner < n:
                    self.appearances[owner].append(step)


class _Violations:
    def __init__(self) -> None:
        self.items: list[tuple[int, str]] = []

    def add(self, step: int, message: str) -> None:
        self.items.append((step, message))

    def first(self) -> str:
        self.items.sort(key=lambda item: item[0])
        _step, message = self.items[0]
        more = len(self.items) - 1
        return message + (f" (+{more} more violation{'s' * (more > 1)})" if more else "")


# ------------------------------------------------------------------------------------ checks


def _check_calls(run: _Run, specs: list[support.RequestSpec], capacity: int,
                 bad: _Violations) -> None:
    for before, _owners in run.stray:
        bad.add(before, f"step {before}: model_next was called outside step()")
    per_step: dict[int, int] = {}
    for step, owners in run.calls:
        per_step[step] = per_step.get(step, 0) + 1
        if per_step[step] == 2:
            bad.add(step, f"step {step}: model_next was called more than once in one step")
        if not owners:
            bad.add(step, f"step {step}: model_next was called with an empty batch")
        if len(owners) > capacity:
            bad.add(step, f"step {step}: a batch of {len(owners)} sequences exceeds capacity "
                          f"{capacity}")
        for pos, owner in enumerate(owners):
            if owner < 0:
                bad.add(step, f"step {step}: batch entry {pos} is not the prompt + generated "
                              "tokens of any unfinished request (a buffer not reset on refill, "
                              "tokens given to the wrong slot, or a finished request still "
                              "in the batch)")
    for spec in specs:
        seen = run.appearances[spec.index]
        for a, b in itertools.pairwise(seen):
            if b != a + 1:
                bad.add(a + 1, f"step {a + 1}: request {spec.rid!r} was active but left out "
                               "of the batch")
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
                    bad.add(step, f"step {step}: request {spec.rid!r} token #{i + 1} is {gen[i]}, "
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
                   bad: _Violations) -> tuple[int | None, bool]:
    """Tokens, stop rule and exactly-once callback of one request; returns its checked length."""
    gen = run.generated[spec.index]
    steps = run.appearances[spec.index]
    calls = run.callbacks[spec.index]
    rid = spec.rid
    end = run.steps - 1
    if spec.max_tokens <= 0 and steps:
        bad.add(steps[0], f"step {steps[0]}: request {rid!r} has max_tokens=0 but was put in "
                          "the batch")
    length, why, forgiven = _expected_length(spec, gen, config, bad, steps)
    if length is not None and len(gen) > length:
        step = steps[length] if length < len(steps) else end
        bad.add(step, f"step {step}: request {rid!r} was decoded again after it had ended "
                      f"({why}): token #{length + 1} should never have been generated")
    if not calls:
        last = f"last in the batch at step {steps[-1]}" if steps else "never admitted"
        at = steps[-1] if steps else max(end, spec.arrival)
        bad.add(at, f"step {at}: request {rid!r} never got its callback ({len(gen)} token(s) "
                    f"generated, {last})")
        return length, forgiven
    if len(calls) > 1:
        bad.add(calls[1][0], f"step {calls[1][0]}: callback for {rid!r} called again "
                             f"({len(calls)} times in all)")
    step, tokens, id_ok = calls[0]
    if not id_ok:
        bad.add(step, f"step {step}: callback for {rid!r} received a different request_id")
    if length is None and not forgiven:
        return None, forgiven
    if length is None or len(gen) < length:
        need = f"it should have run to {length} tokens ({why})" if length is not None else \
            "no stop condition was met"
        bad.add(step, f"step {step}: request {rid!r} ended after {len(gen)} token(s), but {need}")
    elif tokens != gen[:length]:
        bad.add(step, f"step {step}: callback for {rid!r} delivered {_short(tokens)}, but the "
                      f"model generated {_short(gen[:length])} for it")
    return length, forgiven


def _short(tokens: list[int] | None) -> str:
    if tokens is None:
        return "something that is not a list of ints"
    return str(tokens) if len(tokens) <= 12 else f"{tokens[:12]}... ({len(tokens)} tokens)"


def _check_work_conservation(run: _Run, specs: list[support.RequestSpec], capacity: int,
                             bad: _Violations) -> None:
    admitted: dict[int, int | None] = {}
    for spec in specs:
        seen = run.appearances[spec.index]
        if seen:
            admitted[spec.index] = seen[0]
        elif run.callbacks[spec.index]:
            admitted[spec.index] = run.callbacks[spec.index][0][0]
        else:
            admitted[spec.index] = None
    for step in range(run.steps):
        waiting = [s for s in specs if s.arrival <= step
                   and (admitted[s.index] is None or admitted[s.index] > step)]  # type: ignore[operator]
        busy = run.occupancy[step] if step < len(run.occupancy) else 0
        if waiting and busy < capacity:
            oldest = waiting[0]
            bad.add(step, f"step {step}: only {busy} of {capacity} slots were busy while "
                          f"{len(waiting)} request(s) waited (oldest {oldest.rid!r}, submitted "
                          f"before step {oldest.arrival})")
            break
    decoding = [s for s in specs if s.max_tokens > 0]  # max_tokens 0 may end at submit()
    for later_pos, later in enumerate(decoding):
        got = admitted[later.index]
        if got is None:
            continue
        for earlier in decoding[:later_pos]:
            first = admitted[earlier.index]
            if first is None or first > got:
                bad.add(got, f"step {got}: request {later.rid!r} was admitted before "
                             f"{earlier.rid!r}, which was submitted earlier (FIFO)")
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
    a static-batching schedule of the same workload, and the first violating step."""
    config = support.model_config(test_input)
    with _one_torch_thread(config):
        ok, message = _check(test_input, config, output)
    return ok, message, _evidence(test_input, output)


def _evidence(test_input: dict[str, Any], output: Any) -> dict[str, Any]:
    evidence: dict[str, Any] = {"group": str(test_input.get("group", "correctness")),
                                "capacity": int(test_input.get("capacity", 0))}
    if not isinstance(output, dict):
        return evidence
    occupancy = output.get("occupancy")
    if isinstance(occupancy, list) and all(isinstance(x, int) for x in occupancy):
        evidence["occupancy"] = occupancy[:MAX_PLOT_STEPS]
    callbacks = output.get("callbacks")
    specs = support.parse_requests(test_input)
    if isinstance(callbacks, list) and specs:
        # The static schedule of the lengths the engine produced: the baseline to compare with.
        lengths = [0] * len(specs)
        for item in callbacks:
            if isinstance(item, list) and len(item) >= 3 and isinstance(item[2], list):
                if isinstance(item[0], int) and 0 <= item[0] < len(specs):
                    lengths[item[0]] = len(item[2])
        arrivals = [s.arrival for s in sorted(specs, key=lambda s: s.index)]
        static = support.simulate(lengths, arrivals, evidence["capacity"] or 1, "static")
        evidence["baseline_occupancy"] = list(static)[:MAX_PLOT_STEPS]
    return evidence


def _check(test_input: dict[str, Any], config: dict[str, Any], output: Any) -> tuple[bool, str]:
    specs = support.parse_requests(test_input)
    capacity = int(test_input["capacity"])
    group = str(test_input.get("group", "correctness"))
    try:
        run = _Run(output, len(specs))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        return False, f"malformed driver record: {exc!r}"
    bad = _Violations()
    if run.error:
        bad.add(run.steps, f"step {run.steps}: {run.error}")
    _check_calls(run, specs, capacity, bad)
    lengths: list[int | None] = []
    forgiven = 0
    for spec in sorted(specs, key=lambda s: s.index):
        length, near_tie = _check_request(spec, run, config, bad)
        lengths.append(length)
        forgiven += near_tie
    if group == "work_conservation":
        _check_work_conservation(run, specs, capacity, bad)
    if bad.items:
        return False, f"first violation at step {min(step for step, _ in bad.items)}: {bad.first()}"
    known = [x or 0 for x in lengths]  # by request index; all known when nothing was flagged
    calls = len(run.calls)
    busy = sum(run.occupancy)
    summary = (f"ok: {len(specs)} requests, {sum(known)} tokens, {calls} model calls "
               f"in {run.steps} steps, mean batch {busy / calls if calls else 0:.2f} of "
               f"{capacity}")
    if forgiven:
        summary += f"; {forgiven} near-tie divergence(s) forgiven"
    if group == "throughput":
        ok, message = _throughput(run, specs, [known[s.index] for s in specs], capacity)
        if ok:
            return True, f"{summary}; {message}"
        idle = _Violations()
        _check_work_conservation(run, specs, capacity, idle)
        return False, message + (f"; first idle slot: {idle.first()}" if idle.items else "")
    return True, summary
