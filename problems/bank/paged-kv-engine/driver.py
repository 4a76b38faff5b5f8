"""Custom driver for paged-kv-engine (runs inside the sandbox next to `support.py`).

Input: {"num_blocks": N, "block_size": K, "token_budget": T, "model": {...},
        "requests": [...] | "generate": {...}, "group": "...", "drain": "step" | "run_until_idle"}
or a randomised test, {"random": {...}, "model": {...}, "group": "..."}: the workloads
support.expand_workloads gives, each driven as below with a fresh engine and model, recorded as
{"runs": [record, ...], "device": ...}.

Before the s-th call of step() (s = 0, 1, ...) the driver submits every request whose "arrival"
is s, then steps until step() returns False with nothing left to submit (or run_until_idle()
once the last request is in). A request with "after": "<id>" is submitted by that request's
callback, from inside it (the first time it is called). Every model call is recorded with its
step, its request, its positions and its block table; after every step the engine's
free_blocks() is recorded. The driver tracks each request's sequence (prompt + the tokens the
model produced for it) to flag a call that feeds the wrong tokens or positions. The output is
data for checker.py:

{"steps": S, "decode": [[step, index, position, [blocks], ok, call number], ...],
 "prefill": [[step, index, start, length, [blocks], ok, call number], ...],
 "decode_calls": [[step, n], ...],
 "free": [free blocks after each step or null], "returned": [what each step() returned],
 "stray_calls": [step, ...],
 "callbacks": [[index, step, tokens, id_matches, free_blocks() inside it], ...],
 "generated": [[tokens of request i]],
 "error": str | null, "wall_s": ..., "device": ...}
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

import support


class _Runaway(BaseException):
    """Stops an engine that keeps stepping forever (BaseException: `except Exception` in the
    candidate's loop must not swallow it)."""


def _table(block_table: Any) -> list[int]:
    try:
        return [int(b) for b in block_table]
    except (TypeError, ValueError):
        return []


class _Recorder:
    """Stands between the engine and the model; knows which step is running."""

    def __init__(self, model: Any, specs: list[support.RequestSpec], max_steps: int) -> None:
        self._model = model
        self.num_blocks = model.num_blocks
        self.block_size = model.block_size
        self._index = {s.rid: s.index for s in specs}
        self._seq = {s.index: list(s.prompt) for s in specs}
        self.max_steps = max_steps
        self.steps = 0  # step() calls begun
        self.in_step = False
        self.decode_rows: list[list[Any]] = []
        self.prefill_rows: list[list[Any]] = []
        self.decode_calls: list[list[int]] = []
        self.stray: list[int] = []
        self.free: list[int | None] = []
        self.returned: list[bool] = []  # what each step() returned
        self.callbacks: list[list[Any]] = []
        self.generated: list[list[int]] = [[] for _ in specs]
        self.call_no = 0  # model calls so far: orders the calls inside a step
        self.engine: Any = None  # set once built: callbacks submit the requests they own
        self.children: dict[int, list[support.RequestSpec]] = {}
        for s in specs:
            if s.after is not None:
                self.children.setdefault(s.after, []).append(s)

    def begin_step(self) -> None:
        if self.steps >= self.max_steps:
            raise _Runaway
        self.in_step = True
        self.steps += 1

    def end_step(self, engine: Any) -> None:
        self.in_step = False
        free = engine.free_blocks()
        self.free.append(int(free) if isinstance(free, int) else None)

    def _step(self) -> int:
        if not self.in_step:
            self.stray.append(self.steps)
            return -1
        return self.steps - 1

    # The model's API, as the engine sees it.

    def prefill(self, request_id: Any, tokens: Any, block_table: Any, start: int = 0) -> int:
        step = self._step()
        index = self._index.get(str(request_id), -1)
        toks = [int(t) for t in tokens]
        start = int(start)
        token = self._model.prefill(request_id, toks, block_table, start)
        ok = False
        if index >= 0:
            seq = self._seq[index]
            ok = toks == seq[start:start + len(toks)] and start + len(toks) <= len(seq)
            if ok and start + len(toks) == len(seq):
                self._produced(index, token)
        self.prefill_rows.append([step, index, start, len(toks), _table(block_table), ok,
                                  self.call_no])
        self.call_no += 1
        return token

    def decode(self, batch: Any) -> list[int]:
        step = self._step()
        items = list(batch)
        tokens = self._model.decode(items)
        self.decode_calls.append([step, len(items)])
        for (rid, token, position, block_table), out in zip(items, tokens, strict=True):
            index = self._index.get(str(rid), -1)
            ok = False
            if index >= 0:
                seq = self._seq[index]
                gen = self.generated[index]
                ok = bool(gen) and int(position) == len(seq) - 1 and int(token) == seq[-1]
                if ok:
                    self._produced(index, out)
            self.decode_rows.append([step, index, int(position), _table(block_table), ok,
                                     self.call_no])
        self.call_no += 1
        return tokens

    def _produced(self, index: int, token: int) -> None:
        self._seq[index].append(int(token))
        self.generated[index].append(int(token))

    def callback_for(self, spec: support.RequestSpec) -> Any:
        def callback(request_id: str, tokens: Any) -> None:
            try:
                got: list[int] | None = [int(t) for t in tokens]
            except (TypeError, ValueError):
                got = None
            step = self.steps - 1 if self.in_step else self.steps
            first = not any(row[0] == spec.index for row in self.callbacks)
            try:  # what a callback sees: the ended sequence's blocks are free already
                free = self.engine.free_blocks() if self.engine is not None else None
            except Exception:  # not this rule's business: the other rules judge the engine
                free = None
            free = free if isinstance(free, int) else None
            self.callbacks.append([spec.index, step, got, request_id == spec.rid, free])
            if first and self.engine is not None:
                # The requests this one's callback submits (once, however often it is called).
                for child in self.children.get(spec.index, ()):
                    self.engine.submit(child.to_request(self.callback_for(child)))

        return callback


def _max_steps(specs: list[support.RequestSpec]) -> int:
    """Far more steps than any correct schedule of the workload needs, recomputes included."""
    last = max((s.arrival for s in specs), default=0)
    return last + 4 * sum(len(s.prompt) + max(s.max_tokens, 0) + 2 for s in specs) + 16


def drive(engine_cls: Any, model: Any, specs: list[support.RequestSpec],
          limits: support.Limits, drain: str = "step") -> dict[str, Any]:
    """Run one engine class over the workload and return the record (see module docstring)."""
    rec = _Recorder(model, specs, _max_steps(specs))
    engine = engine_cls(rec, limits.num_blocks, limits.block_size, limits.token_budget)
    rec.engine = engine
    original_step = engine.step

    def counted_step() -> bool:
        rec.begin_step()
        try:
            result = bool(original_step())
            rec.returned.append(result)
            return result
        finally:
            rec.end_step(engine)

    instrumented = True
    try:  # run_until_idle must call self.step(): route it through the counter
        engine.step = counted_step
    except AttributeError:  # __slots__ without __dict__: drain with the driver's own loop
        instrumented = False
    error = None
    queue = deque(s for s in specs if s.after is None)  # the rest come from callbacks
    start = time.perf_counter()
    try:
        while True:
            while queue and queue[0].arrival <= rec.steps:
                spec = queue.popleft()
                engine.submit(spec.to_request(rec.callback_for(spec)))
            if not queue and drain == "run_until_idle" and instrumented:
                engine.run_until_idle()
                break
            if not counted_step() and not queue:
                break
    except _Runaway:
        rec.in_step = False
        error = (f"the engine was still busy after {rec.max_steps} steps, more than any "
                 "correct schedule of this workload needs")
    wall = time.perf_counter() - start
    return {
        "steps": rec.steps, "decode": rec.decode_rows, "prefill": rec.prefill_rows,
        "decode_calls": rec.decode_calls, "free": rec.free, "returned": rec.returned,
        "stray_calls": rec.stray,
        "callbacks": rec.callbacks, "generated": rec.generated, "error": error,
        "wall_s": round(wall, 6),
    }


def _warm_up(model: Any) -> None:
    """One throwaway forward, so lazy initialisation (CUDA context, kernels) is never timed; the
    slots it wrote are zeroed again, so the engine starts from a clean pool either way."""
    model.prefill("_warm_up", [0], [0], 0)
    if model.tier == "torch":
        model.k_pool.zero_()
        model.v_pool.zero_()
    else:
        model._pool = [0] * (model.num_blocks * model.block_size)


def run(solution: Any, test_input: dict[str, Any]) -> dict[str, Any]:
    """Entry point called by the harness: drive the candidate's Engine over the test input."""
    config = support.model_config(test_input)
    if "random" in test_input:  # simulated tier: a fresh pool per workload costs nothing
        runs = []
        for workload in support.expand_workloads(test_input):
            limits = support.limits_of(workload)
            model = support.build_model(config, limits)
            runs.append(drive(solution.Engine, model, support.parse_requests(workload), limits,
                              str(workload.get("drain", "step"))))
        return {"runs": runs, "device": "cpu"}
    limits = support.limits_of(test_input)
    model = support.build_model(config, limits)
    if config["tier"] == "torch" and model.device == "cpu":
        import torch

        torch.set_num_threads(1)  # the sandbox gets one CPU; more threads only contend
    specs = support.parse_requests(test_input)
    _warm_up(model)
    out = drive(solution.Engine, model, specs, limits, str(test_input.get("drain", "step")))
    out["device"] = model.device
    return out


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


def _request_problem(number: int, item: Any, ids: set[str]) -> str | None:
    what = f"request #{number}"
    problem = _fmt_first(
        lambda: _fmt_object(
            item,
            what,
            ("id", "prompt", "max_tokens"),
            ("stop_token", "stop_sequence", "arrival", "after"),
        ),
        lambda: (
            None
            if isinstance(item["id"], str | int) and not isinstance(item["id"], bool)
            else f"{what}'s id must be a string"
        ),
        lambda: None if str(item["id"]) not in ids else f"{what}'s id {item['id']!r} is taken",
        lambda: _fmt_list(item["prompt"], f"{what}'s prompt"),
        lambda: next(
            (
                p
                for i, t in enumerate(item["prompt"])
                if (p := _fmt_int(t, f"{what}'s prompt token #{i}", 0))
            ),
            None,
        ),
        lambda: _fmt_int(item["max_tokens"], f"{what}'s max_tokens", 0, 100_000),
        lambda: (
            None
            if item.get("stop_token") is None
            else _fmt_int(item["stop_token"], f"{what}'s stop_token", 0)
        ),
        lambda: (
            None
            if item.get("stop_sequence") is None
            else _fmt_list(item["stop_sequence"], f"{what}'s stop_sequence")
        ),
        lambda: next(
            (
                p
                for i, t in enumerate(item.get("stop_sequence") or [])
                if (p := _fmt_int(t, f"{what}'s stop_sequence token #{i}", 0))
            ),
            None,
        ),
        lambda: _fmt_int(item.get("arrival", 0), f"{what}'s arrival", 0, 100_000),
        lambda: (
            None
            if item.get("after") is None or isinstance(item["after"], str | int)
            else f"{what}'s after must name another request's id"
        ),
    )
    ids.add(str(item["id"])) if not problem else None
    return problem


def _requests_problem(requests: Any) -> str | None:
    if problem := _fmt_list(requests, '"requests"'):
        return problem
    ids: set[str] = set()
    for number, item in enumerate(requests):
        if problem := _request_problem(number, item, ids):
            return problem
    return next(
        (
            f"request #{n}'s after names no request: {item['after']!r}"
            for n, item in enumerate(requests)
            if item.get("after") is not None and str(item["after"]) not in ids
        ),
        None,
    )


def _model_problem(model: Any) -> str | None:
    return _fmt_first(
        lambda: _fmt_object(model, '"model"', ("tier",), tuple(support.TORCH_DEFAULTS)),
        lambda: (
            None if model["tier"] in ("sim", "torch") else '"model.tier" must be "sim" or "torch"'
        ),
        lambda: next(
            (
                p
                for key, value in model.items()
                if key != "tier"
                if (p := _fmt_int(value, f'"model.{key}"', 0))
            ),
            None,
        ),
    )


def _generate_problem(spec: Any) -> str | None:
    return _fmt_first(
        lambda: _fmt_object(
            spec, '"generate"', ("seed", "n"), ("prompt_len", "mean_tokens", "max_cap")
        ),
        lambda: _fmt_int(spec["seed"], '"generate.seed"', 0),
        lambda: _fmt_int(spec["n"], '"generate.n"', 0, 100_000),
        lambda: (
            None
            if "prompt_len" not in spec
            or (
                isinstance(spec["prompt_len"], list)
                and len(spec["prompt_len"]) == 2
                and not any(_fmt_int(v, "", 1) for v in spec["prompt_len"])
                and spec["prompt_len"][0] <= spec["prompt_len"][1]
            )
            else '"generate.prompt_len" must be [shortest, longest], at least 1'
        ),
        lambda: _fmt_number(spec.get("mean_tokens", 12), '"generate.mean_tokens"', 0),
        lambda: _fmt_int(spec.get("max_cap", 48), '"generate.max_cap"', 1),
    )


def _random_problem(spec: Any, lists: tuple[str, ...], flags: tuple[str, ...]) -> str | None:
    return _fmt_first(
        lambda: _fmt_object(
            spec, '"random"', ("seed", "workloads"), ("max_requests", *lists, *flags)
        ),
        lambda: _fmt_int(spec["seed"], '"random.seed"', 0),
        lambda: _fmt_int(spec["workloads"], '"random.workloads"', 1, 100_000),
        lambda: _fmt_int(spec.get("max_requests", 16), '"random.max_requests"', 0, 10_000),
        lambda: next(
            (
                f'"random.{key}" must be a non-empty list of positive integers'
                for key in lists
                if key in spec
                if not isinstance(spec[key], list)
                or not spec[key]
                or any(_fmt_int(v, "", 1) for v in spec[key])
            ),
            None,
        ),
        lambda: next(
            (
                f'"random.{key}" must be true or false'
                for key in flags
                if not isinstance(spec.get(key, False), bool)
            ),
            None,
        ),
    )


def check_input(test_input: Any) -> str | None:
    """See the input shapes above: {"num_blocks", "block_size", "token_budget", "model",
    "group", "requests" | "generate", "drain", "property"}, or {"model", "group", "random"}."""
    if isinstance(test_input, dict) and "random" in test_input:
        return _fmt_first(
            lambda: _fmt_object(
                test_input, "the input", ("model", "group", "random"), ("property",)
            ),
            lambda: _model_problem(test_input["model"]),
            lambda: (
                None
                if test_input["model"]["tier"] == "sim"
                else 'a "random" test uses the "sim" model tier'
            ),
            lambda: None if isinstance(test_input["group"], str) else '"group" must be a string',
            lambda: _random_problem(
                test_input["random"],
                ("num_blocks", "block_sizes", "budgets"),
                ("callback_submits",),
            ),
        )
    work = "generate" if isinstance(test_input, dict) and "generate" in test_input else "requests"
    return _fmt_first(
        lambda: _fmt_object(
            test_input,
            "the input",
            ("num_blocks", "block_size", "token_budget", "model", "group", work),
            ("drain", "property"),
        ),
        lambda: _fmt_int(test_input["num_blocks"], '"num_blocks"', 1, 1_000_000),
        lambda: _fmt_int(test_input["block_size"], '"block_size"', 1, 4096),
        lambda: _fmt_int(test_input["token_budget"], '"token_budget"', 1, 1_000_000),
        lambda: _model_problem(test_input["model"]),
        lambda: None if isinstance(test_input["group"], str) else '"group" must be a string',
        lambda: (
            None
            if test_input.get("drain", "step") in ("step", "run_until_idle")
            else '"drain" must be "step" or "run_until_idle"'
        ),
        lambda: (
            None
            if isinstance(test_input.get("property", ""), str)
            else '"property" must be a string'
        ),
        lambda: (
            _requests_problem(test_input["requests"])
            if work == "requests"
            else _generate_problem(test_input["generate"])
        ),
    )
