"""Correct alternative, written unlike the reference: plain dicts per request, a set of free
block ids (any id will do), an admission stamp per running sequence (the victim is the highest
stamp), and the stop sequence checked as a suffix of the generated tokens only. Decode checks
the token budget (it never binds, but checking is allowed)."""

from __future__ import annotations

from collections import deque
from typing import Any


class Engine:
    def __init__(self, model: Any, num_blocks: int, block_size: int, token_budget: int) -> None:
        self.model = model
        self.block_size = block_size
        self.token_budget = token_budget
        self.free: set[int] = set(range(num_blocks))
        self.live: dict[str, dict[str, Any]] = {}  # request_id -> state, while running
        self.waiting: deque[dict[str, Any]] = deque()
        self.stamp = 0

    def submit(self, request: Any) -> None:
        self.waiting.append({"req": request, "gen": [], "table": [], "cached": 0, "target": 0})

    def free_blocks(self) -> int:
        return len(self.free)

    def run_until_idle(self) -> None:
        while self.step():
            pass

    def step(self) -> bool:
        if not self.live and not self.waiting:
            return False
        budget = self.token_budget
        preempted = False
        batch: list[dict[str, Any]] = []
        for st in sorted(self.live.values(), key=lambda s: s["stamp"]):
            if budget == len(batch):
                break
            if st["req"].request_id not in self.live or st["cached"] < st["target"]:
                continue
            position = len(st["req"].prompt) + len(st["gen"]) - 1
            while position // self.block_size >= len(st["table"]) and not self.free:
                victim = max(self.live.values(), key=lambda s: s["stamp"])
                self._release(victim)
                victim["cached"] = victim["target"] = 0
                self.waiting.appendleft(victim)
                preempted = True
                if victim is st:
                    break
            if st["req"].request_id not in self.live:
                continue
            if position // self.block_size >= len(st["table"]):
                st["table"].append(self.free.pop())
            batch.append(st)
        budget -= len(batch)
        if batch:
            rows = []
            for st in batch:
                seq = list(st["req"].prompt) + st["gen"]
                rows.append((st["req"].request_id, seq[-1], len(seq) - 1, list(st["table"])))
            outs = self.model.decode(rows)
            for st, token in zip(batch, outs, strict=True):
                st["cached"] += 1
                self._generated(st, int(token))
        for st in sorted(self.live.values(), key=lambda s: s["stamp"]):
            if budget and st["cached"] < st["target"]:
                budget -= self._prefill(st, budget)
        while not preempted and budget and self.waiting:
            st = self.waiting[0]
            req = st["req"]
            if req.max_tokens == 0:
                self.waiting.popleft()
                req.callback(req.request_id, [])
                continue
            total = len(req.prompt) + len(st["gen"])
            blocks = (total + self.block_size - 1) // self.block_size
            if blocks > len(self.free):
                break
            self.waiting.popleft()
            st["table"] = [self.free.pop() for _ in range(blocks)]
            st["cached"], st["target"] = 0, total
            self.stamp += 1
            st["stamp"] = self.stamp
            self.live[req.request_id] = st
            budget -= self._prefill(st, budget)
        return True

    def _prefill(self, st: dict[str, Any], budget: int) -> int:
        seq = list(st["req"].prompt) + st["gen"]
        end = min(st["target"], st["cached"] + budget)
        token = self.model.prefill(st["req"].request_id, seq[st["cached"]:end],
                                   list(st["table"]), st["cached"])
        n = end - st["cached"]
        st["cached"] = end
        if end == st["target"]:
            self._generated(st, int(token))
        return n

    def _generated(self, st: dict[str, Any], token: int) -> None:
        req, gen = st["req"], st["gen"]
        gen.append(token)
        stop = list(req.stop_sequence or [])
        ended = (len(gen) >= req.max_tokens
                 or (req.stop_token is not None and token == req.stop_token)
                 or (bool(stop) and gen[-len(stop):] == stop))
        if ended:
            self._release(st)
            req.callback(req.request_id, list(gen))

    def _release(self, st: dict[str, Any]) -> None:
        del self.live[st["req"].request_id]
        self.free.update(st["table"])
        st["table"] = []
