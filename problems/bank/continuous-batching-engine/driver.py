"""Custom driver for continuous-batching-engine (runs inside the sandbox next to `support.py`).

Input: {"capacity": B, "model": {...}, "requests": [...] | "generate": {...},
        "group": "...", "drain": "step" | "run_until_idle", "baseline": bool}

Before the s-th call of step() (s = 0, 1, ...) the driver submits every request whose
"arrival" is s. With drain "run_until_idle" it calls run_until_idle() once the last request is
submitted; otherwise it keeps calling step() until it returns False. Every model_next call is
recorded; each sequence in a batch is matched to the live request whose prompt + generated
tokens it equals (so a leaked buffer, a scrambled slot or a finished request shows up as an
unknown sequence). The output is data for checker.py, which recomputes everything it needs:

{"steps": S, "calls": [[step, [request index or -1, ...]], ...], "occupancy": [...],
 "stray_calls": [...], "callbacks": [[index, step, tokens, id_matches], ...],
 "generated": [[tokens the model produced for request i], ...], "error": str | null,
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
        self.generated: list[list[int]] = [[] for _ in specs]
        # Live sequences: prompt + generated so far -> request indices (several when prompts
        # repeat). A request leaves it at its first callback.
        self._live: dict[tuple[int, ...], list[int]] = {}
        self._key: dict[int, tuple[int, ...]] = {}
        self._done: set[int] = set()

    def begin_step(self) -> int:
        if self.steps >= self.max_steps:
            raise _Runaway
        self.in_step = True
        self.occupancy.append(0)
        self.steps += 1
        return self.steps - 1

    def end_step(self) -> None:
        self.in_step = False

    def submitted(self, index: int) -> None:
        key = self._specs[index].prompt
        self._live.setdefault(key, []).append(index)
        self._key[index] = key

    def model_next(self, prefixes: Any) -> list[int]:
        batch = [tuple(int(t) for t in p) for p in prefixes]
        owners: list[int] = []
        taken: set[int] = set()
        for seq in batch:
            owner = next((i for i in self._live.get(seq, ()) if i not in taken), -1)
            owners.append(owner)
            taken.add(owner)
        step = self.steps - 1 if self.in_step else -1
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
            self.callbacks.append([index, step, got, request_id == rid])
            if index not in self._done:
                self._done.add(index)
                key = self._key.pop(index, None)
                owners = self._live.get(key, []) if key is not None else []
                if index in owners:
                    owners.remove(index)
                    if not owners:
                        del self._live[key]  # type: ignore[arg-type]

        return callback


def _max_steps(specs: list[support.RequestSpec]) -> int:
    """More steps than any correct engine can use: arrivals, then one request at a time."""
    last = max((s.arrival for s in specs), default=0)
    return last + sum(max(s.max_tokens, 0) + 1 for s in specs) + 8


def drive(engine_cls: Any, model: Any, specs: list[support.RequestSpec], capacity: int,
          drain: str = "step") -> dict[str, Any]:
    """Run one engine class over the workload and return the record (see module docstring)."""
    rec = _Recorder(model, specs, _max_steps(specs))
    engine = engine_cls(rec.model_next, capacity)
    original_step = engine.step

    def counted_step() -> bool:
        rec.begin_step()
        try:
            return bool(original_step())
        finally:
            rec.end_step()

    instrumented = True
    try:  # run_until_idle must call self.step(): route it through the counter
        engine.step = counted_step
    except AttributeError:  # __slots__ without __dict__: drain with the driver's own loop
        instrumented = False
    error = None
    queue = deque(specs)
    start = time.perf_counter()
    try:
        while True:
            while queue and queue[0].arrival <= rec.steps:
                spec = queue.popleft()
                rec.submitted(spec.index)
                engine.submit(spec.to_request(rec.callback_for(spec.index)))
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
    return {
        "steps": rec.steps, "calls": rec.calls, "occupancy": rec.occupancy,
        "stray_calls": rec.stray_calls, "callbacks": rec.callbacks,
        "generated": rec.generated, "error": error, "wall_s": round(wall, 6),
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


def run(solution: Any, test_input: dict[str, Any]) -> dict[str, Any]:
    """Entry point called by the harness: drive the candidate's Engine over the test input."""
    config = support.model_config(test_input)
    model = support.build_model(config)
    if config["tier"] == "torch" and model.device == "cpu":
        import torch

        torch.set_num_threads(1)  # the sandbox gets one CPU; more threads only contend
    specs = support.parse_requests(test_input)
    capacity = int(test_input["capacity"])
    _warm_up(model)
    out = drive(solution.Engine, model, specs, capacity, str(test_input.get("drain", "step")))
    out["device"] = model.device
    out["baseline"] = None
    if test_input.get("group") == "throughput" or test_input.get("baseline"):
        base = drive(StaticBatchingEngine, model, specs, capacity)
        lengths = [0] * len(specs)
        for index, _step, tokens, _ok in base["callbacks"]:
            lengths[index] = len(tokens or [])
        out["baseline"] = {"calls": len(base["calls"]), "steps": base["steps"],
                           "lengths": lengths, "wall_s": base["wall_s"]}
    return out
