"""Matches the stop token and stop sequence against the whole sequence (prompt + generated)
instead of the generated tokens: a stop sequence that straddles the prompt boundary ends a
request too early."""

from __future__ import annotations

from collections import deque
from typing import Any


class Engine:
    def __init__(self, model_next: Any, capacity: int) -> None:
        self.model_next = model_next
        self.capacity = capacity
        self.waiting: deque[Any] = deque()
        self.slots: list[Any] = [None] * capacity  # [request, full sequence, prompt length]

    def submit(self, request: Any) -> None:
        self.waiting.append(request)

    def step(self) -> bool:
        if not self.waiting and all(s is None for s in self.slots):
            return False
        for i in range(self.capacity):
            while self.slots[i] is None and self.waiting:
                req = self.waiting.popleft()
                if req.max_tokens == 0:
                    req.callback(req.request_id, [])
                else:
                    self.slots[i] = [req, list(req.prompt), len(req.prompt)]
        live = [i for i in range(self.capacity) if self.slots[i] is not None]
        if not live:
            return True
        tokens = self.model_next([list(self.slots[i][1]) for i in live])
        for i, tok in zip(live, tokens, strict=True):
            req, seq_all, n_prompt = self.slots[i]
            seq_all.append(tok)
            stop = req.stop_sequence
            generated = seq_all[n_prompt:]
            # BUG: the suffix test runs over prompt + generated tokens
            if (len(generated) >= req.max_tokens or tok == req.stop_token
                    or (stop and seq_all[-len(stop):] == list(stop))):
                req.callback(req.request_id, generated)
                self.slots[i] = None
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
