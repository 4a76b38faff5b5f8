"""An 'idle' test that is too eager: once the queue is empty and the batch is not full, step()
reports there is nothing to do, so the last sequences (fewer than B) never finish and their
callbacks never fire."""

from __future__ import annotations

from collections import deque
from typing import Any


class Engine:
    def __init__(self, model_next: Any, capacity: int) -> None:
        self.model_next = model_next
        self.capacity = capacity
        self.waiting: deque[Any] = deque()
        self.slots: list[Any] = [None] * capacity
        self.outs: list[list[int]] = [[] for _ in range(capacity)]

    def submit(self, request: Any) -> None:
        self.waiting.append(request)

    def step(self) -> bool:
        for i in range(self.capacity):
            while self.slots[i] is None and self.waiting:
                req = self.waiting.popleft()
                if req.max_tokens == 0:
                    req.callback(req.request_id, [])
                else:
                    self.slots[i], self.outs[i] = req, []
        live = [i for i in range(self.capacity) if self.slots[i] is not None]
        if len(live) < self.capacity and not self.waiting:  # BUG: a partial batch is real work
            return False
        tokens = self.model_next([list(self.slots[i].prompt) + self.outs[i] for i in live])
        for i, tok in zip(live, tokens, strict=True):
            req, out = self.slots[i], self.outs[i]
            out.append(tok)
            seq = req.stop_sequence
            if (len(out) >= req.max_tokens or tok == req.stop_token
                    or (seq and out[-len(seq):] == list(seq))):
                req.callback(req.request_id, list(out))
                self.slots[i] = None
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
