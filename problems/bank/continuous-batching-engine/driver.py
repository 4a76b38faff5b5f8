"""Custom driver for continuous-batching-engine (runs inside the sandbox next to `support.py`).

Input: {"capacity": B, "model": {...}, "requests": [...] | "generate": {...},
        "group": "...", "drain": "step" | "run_until_idle", "baseline": bool}
or a randomised test: {"model": {...}, "group": "...", "random": {...}} that support.py expands
into many small workloads, each run with a fresh engine (output {"runs": [record, ...]}).

Before the s-th call of step() (s = 0, 1, ...) the driver submits every request whose
"arrival" is s; a request with "after" is submitted from inside that request's callback. With
drain "run_until_idle" it calls run_until_idle() once the last request is submitted; otherwise
it keeps calling step() until it returns False. Every model_next call is recorded; each
sequence in a batch is matched to the live request whose prompt + generated tokens it equals (so
a leaked buffer, a scrambled slot or a finished request shows up as an unknown sequence). Where
several live requests share a prompt their rows look alike; when one of them is called back
with tokens that another one's rows carry, the two histories are swapped, so the record follows
the request the engine really decoded. The output is data for checker.py, which recomputes
everything it needs:

{"steps": S, "calls": [[step, [request index or -1, ...]], ...], "occupancy": [...],
 "stray_calls": [...], "callbacks": [[index, step, tokens, id_matches, inside step()], ...] (in call
 order),
 "returns": [step() result, ...], "mutated": [[index, step], ...] (callback lists changed after
 the call), "generated": [[tokens the model produced for request i], ...], "error": str | null,
 "wall_s": ..., "device": ..., "baseline": {...} | null}

For the throughput group (or "baseline": true) the same workload also runs through a built-in
static-batching engine on the same model, for the checker's cross-check and wall-clock figures.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import support


class _Runaway(BaseException):
    """Stops an engine that keeps stepping forever (BaseException: `except Exception` in the
    candidate's loop must not swallow it)."""


class _Recorder:
    """Wraps the model and the callbacks; knows which step is running."""

    def __init__(self, model: Callable[[Sequence[Sequence[int]]], list[int]],
                 specs: list[support.RequestSpec], max_steps: int) -> None:
        self._model = model
        self._specs = {s.index: s for s in specs}  # by index in the input, not arrival order
        self.max_steps = max_steps
        self.steps = 0  # step() calls begun
        self.in_step = False
        self.calls: list[list[Any]] = []
        self.stray_calls: list[list[Any]] = []
        self.occupancy: list[int] = []
        self.callbacks: list[list[Any]] = []
        self.returns: list[bool] = []
        self.generated: list[list[int]] = [[] for _ in specs]
        # Every list handed to a callback, with a copy: compared again once the run is over.
        self._delivered: list[tuple[int, int, Any, list[int]]] = []
        self._children: dict[int, list[support.RequestSpec]] = {}
        for spec in specs:
            if spec.after is not None:
                self._children.setdefault(spec.after, []).append(spec)
        self.submit: Callable[[support.RequestSpec], None] = lambda spec: None
        # Live sequences: prompt + generated so far -> request indices (several when prompts
        # repeat). A request leaves it at its first callback.
        self._live: dict[tuple[int, ...], list[int]] = {}
        self._key: dict[int, tuple[int, ...]] = {}
        self._done: set[int] = set()
        self._last: dict[int, int] = {}  # request -> last step a row was put down to it

    def begin_step(self) -> int:
        if self.steps >= self.max_steps:
            raise _Runaway
        self.in_step = True
        self.occupancy.append(0)
        self.steps += 1
        return self.steps - 1

    def end_step(self) -> None:
        self.in_step = False

    def mutated(self) -> list[list[int]]:
        """[index, step] of every callback list whose contents changed after the call."""
        out = []
        for index, step, obj, copy in self._delivered:
            try:
                same = [int(t) for t in obj] == copy
            except (TypeError, ValueError):
                same = False
            if not same:
                out.append([index, step])
        return out

    def submitted(self, index: int) -> None:
        key = self._specs[index].prompt
        self._live.setdefault(key, []).append(index)
        self._key[index] = key

    def model_next(self, prefixes: Any) -> list[int]:
        batch = [tuple(int(t) for t in p) for p in prefixes]
        owners: list[int] = []
        taken: set[int] = set()
        step = self.steps - 1 if self.in_step else -1
        for seq in batch:
            # Alike rows (equal prompt + generated, e.g. prompt [1] after token 2 and prompt
            # [1, 2]) go first to a request decoded in the previous step (a running sequence
            # continues), then to the earliest submitted.
            free = [i for i in self._live.get(seq, ()) if i not in taken]
            running = [i for i in free if self._last.get(i) == step - 1]
            owner = (running or free or [-1])[0]
            owners.append(owner)
            taken.add(owner)
            if owner >= 0:
                self._last[owner] = step
        if step >= 0:
            self.calls.append([step, owners])
            self.occupancy[step] += len(batch)
        else:
            self.stray_calls.append([self.steps, owners])
        tokens = self._model(batch) if batch else []
        for seq, owner, token in zip(batch, owners, tokens, strict=True):
            if owner >= 0:
                self._advance(owner, seq, token)
        return tokens

    def _advance(self, index: int, seq: tuple[int, ...], token: int) -> None:
        self._live[seq].remove(index)
        if not self._live[seq]:
            del self._live[seq]
        key = (*seq, token)
        self._live.setdefault(key, []).append(index)
        self._key[index] = key
        self.generated[index].append(token)

    def callback_for(self, index: int) -> Callable[[str, list[int]], None]:
        rid = self._specs[index].rid

        def callback(request_id: str, tokens: Any) -> None:
            try:
                got: list[int] | None = [int(t) for t in tokens]
            except (TypeError, ValueError):
                got = None
            step = self.steps - 1 if self.in_step else self.steps
            self.callbacks.append([index, step, got, request_id == rid, self.in_step])
            if got is not None:
                self._delivered.append((index, step, tokens, list(got)))
            if index not in self._done:
                self._done.add(index)
                if got is not None:
                    self._follow(index, got)
                key = self._key.pop(index, None)
                owners = self._live.get(key, []) if key is not None else []
                if index in owners:
                    owners.remove(index)
                    if not owners:
                        del self._live[key]  # type: ignore[arg-type]
                for child in self._children.get(index, ()):
                    self.submit(child)

        return callback

    def _follow(self, index: int, tokens: list[int]) -> None:
        """The engine calls back `index` with `tokens`: if the rows that carry prompt + tokens
        were put down to another live request with the same prompt (alike rows go to the
        earliest), they were this one's. Swap the two histories."""
        prompt = self._specs[index].prompt
        key = (*prompt, *tokens)
        if self._key.get(index) == key:
            return
        other = next((i for i in self._live.get(key, ()) if i != index
                      and self._specs[i].prompt == prompt), None)
        if other is None:
            return
        mine = self._key.get(index)
        self._live[key][self._live[key].index(other)] = index
        if mine is not None:
            self._live[mine][self._live[mine].index(index)] = other
            self._key[other] = mine
        else:
            self._key.pop(other, None)
        self._key[index] = key
        self.generated[index], self.generated[other] = self.generated[other], self.generated[index]
        last_i, last_o = self._last.pop(index, None), self._last.pop(other, None)
        if last_o is not None:
            self._last[index] = last_o
        if last_i is not None:
            self._last[other] = last_i
        swap = {index: other, other: index}
        for call in self.calls:
            call[1] = [swap.get(o, o) for o in call[1]]


def _max_steps(specs: list[support.RequestSpec]) -> int:
    """More steps than any correct engine can use: arrivals, then one request at a time."""
    last = max((s.arrival for s in specs), default=0)
    return last + sum(max(s.max_tokens, 0) + 1 for s in specs) + 8


def drive(engine_cls: Any, model: Any, specs: list[support.RequestSpec], capacity: int,
          drain: str = "step", timings: bool = False) -> dict[str, Any]:
    """Run one engine class over the workload and return the record (see module docstring);
    with `timings`, also "step_end_s": seconds from the start of the run to the end of each
    step (for latency figures in bench/ and platform/gpu/)."""
    rec = _Recorder(model, specs, _max_steps(specs))
    step_end: list[float] = []
    start = time.perf_counter()
    engine = engine_cls(rec.model_next, capacity)
    original_step = engine.step

    def counted_step() -> bool:
        rec.begin_step()
        try:
            result = bool(original_step())
            rec.returns.append(result)
            return result
        finally:
            rec.end_step()
            if timings:
                step_end.append(time.perf_counter() - start)

    def submit(spec: support.RequestSpec) -> None:
        rec.submitted(spec.index)
        engine.submit(spec.to_request(rec.callback_for(spec.index)))

    rec.submit = submit

    instrumented = True
    try:  # run_until_idle must call self.step(): route it through the counter
        engine.step = counted_step
    except AttributeError:  # __slots__ without __dict__: drain with the driver's own loop
        instrumented = False
    error = None
    queue = deque(s for s in specs if s.after is None)
    start = time.perf_counter()  # again: construction is not part of the run
    try:
        while True:
            while queue and queue[0].arrival <= rec.steps:
                submit(queue.popleft())
            if not queue and drain == "run_until_idle" and instrumented:
                engine.run_until_idle()
                break
            if not counted_step() and not queue:
                break
        if drain == "run_until_idle" and not instrumented:
            engine.run_until_idle()
    except _Runaway:
        rec.in_step = False
        error = (f"the engine was still busy after {rec.max_steps} steps, more than any "
                 "correct schedule of this workload needs")
    wall = time.perf_counter() - start
    extra = {"step_end_s": [round(t, 6) for t in step_end]} if timings else {}
    return {
        **extra, "steps": rec.steps, "calls": rec.calls, "occupancy": rec.occupancy,
        "stray_calls": rec.stray_calls, "callbacks": rec.callbacks, "returns": rec.returns,
        "mutated": rec.mutated(), "generated": rec.generated, "error": error,
        "wall_s": round(wall, 6),
    }


class StaticBatchingEngine:
    """The baseline: admit up to B requests only when the previous batch has fully finished.

    As in request-level batching frameworks, a finished sequence stays in the batch as a dead
    row (decoded, its tokens discarded) until the whole batch is done: the model-call count is
    the same as dropping it, and the compute per call is what static batching really pays."""

    def __init__(self, model_next: Callable[[list[list[int]]], Sequence[int]],
                 capacity: int) -> None:
        self._model_next = model_next
        self._capacity = capacity
        self._waiting: deque[Any] = deque()
        self._batch: list[list[Any]] = []  # [request, generated, finished]

    def submit(self, request: Any) -> None:
        self._waiting.append(request)

    def step(self) -> bool:
        if not self._batch and not self._waiting:
            return False
        if not self._batch:
            while self._waiting and len(self._batch) < self._capacity:
                req = self._waiting.popleft()
                if req.max_tokens <= 0:
                    req.callback(req.request_id, [])
                else:
                    self._batch.append([req, [], False])
        if not self._batch:
            return True
        tokens = self._model_next([list(r.prompt) + out for r, out, _ in self._batch])
        for row, token in zip(self._batch, tokens, strict=True):
            req, out, finished = row
            out.append(int(token))
            if finished:
                continue
            if support.finish_length(out, req.max_tokens, req.stop_token,
                                     req.stop_sequence) is not None:
                row[2] = True
                req.callback(req.request_id, list(out))
        if all(row[2] for row in self._batch):
            self._batch = []
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass


def _warm_up(model: Any) -> None:
    """One throwaway call, so lazy initialisation (CUDA context, kernels) is never timed."""
    model([[0, 1, 2]])


def environment(model: Any) -> dict[str, Any]:
    """Where the model ran: device, its name, and the torch and CUDA versions (torch tier)."""
    env: dict[str, Any] = {"device": model.device}
    if getattr(model, "tier", "") == "torch":
        import torch

        env["torch"] = torch.__version__
        env["cuda"] = torch.version.cuda
        if str(model.device).startswith("cuda"):
            env["device_name"] = torch.cuda.get_device_name(0)
    return env


def run(solution: Any, test_input: dict[str, Any]) -> dict[str, Any]:
    """Entry point called by the harness: drive the candidate's Engine over the test input."""
    config = support.model_config(test_input)
    model = support.build_model(config)
    if config["tier"] == "torch" and model.device == "cpu":
        import torch

        torch.set_num_threads(1)  # the sandbox gets one CPU; more threads only contend
    _warm_up(model)
    if "random" in test_input:
        runs = []
        for workload in support.expand_workloads(test_input):
            specs = support.parse_requests(workload)
            runs.append(drive(solution.Engine, model, specs, int(workload["capacity"]),
                              str(workload.get("drain", "step"))))
        return {"runs": runs, "device": model.device, "environment": environment(model),
                "baseline": None}
    specs = support.parse_requests(test_input)
    capacity = int(test_input["capacity"])
    out = drive(solution.Engine, model, specs, capacity, str(test_input.get("drain", "step")))
    out["device"] = model.device
    out["environment"] = environment(model)
    out["baseline"] = None
    if test_input.get("group") == "throughput" or test_input.get("baseline"):
        base = drive(StaticBatchingEngine, model, specs, capacity)
        lengths = [0] * len(specs)
        for index, _step, tokens, *_rest in base["callbacks"]:
            lengths[index] = len(tokens or [])
        out["baseline"] = {"calls": len(base["calls"]), "steps": base["steps"],
                           "lengths": lengths, "wall_s": base["wall_s"]}
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
    """See the input shapes above: {"capacity", "model", "group", "requests" | "generate",
    "drain", "baseline", "property"}, or {"model", "group", "random"}."""
    if isinstance(test_input, dict) and "random" in test_input:
        return _fmt_first(
            lambda: _fmt_object(
                test_input, "the input", ("model", "group", "random"), ("property",)
            ),
            lambda: _model_problem(test_input["model"]),
            lambda: None if isinstance(test_input["group"], str) else '"group" must be a string',
            lambda: _random_problem(
                test_input["random"],
                ("capacities",),
                ("callback_submits", "text", "edge_tokens", "prompt_stops", "admission_submits"),
            ),
        )
    work = "generate" if isinstance(test_input, dict) and "generate" in test_input else "requests"
    return _fmt_first(
        lambda: _fmt_object(
            test_input,
            "the input",
            ("capacity", "model", "group", work),
            ("drain", "baseline", "property"),
        ),
        lambda: _fmt_int(test_input["capacity"], '"capacity"', 1, 100_000),
        lambda: _model_problem(test_input["model"]),
        lambda: None if isinstance(test_input["group"], str) else '"group" must be a string',
        lambda: (
            None
            if test_input.get("drain", "step") in ("step", "run_until_idle")
            else '"drain" must be "step" or "run_until_idle"'
        ),
        lambda: (
            None
            if isinstance(test_input.get("baseline", False), bool)
            else '"baseline" must be true or false'
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
