"""Checks the length limit before appending the new token (`>` instead of `>=` after it), so a
request that ends on max_tokens gets one token too many."""

from __future__ import annotations

from collections import deque
from typing import Any


class Engine:
    def __init__(self, model_next: Any, capacity: int) -> None:
        self.model_next = model_next
        self.capacity = capacity
        self.waiting: deque[Any] = deque()
        self.active: dict[int, tuple[Any, list[int]]] = {}

    def submit(self, request: Any) -> None:
        self.waiting.append(request)

    def step(self) -> bool:
        if not self.waiting and not self.active:
            return False
        for slot in range(self.capacity):
            while slot not in self.active and self.waiting:
                req = self.waiting.popleft()
                if req.max_tokens == 0:
                    req.callback(req.request_id, [])
                else:
                    self.active[slot] = (req, [])
        if not self.active:
            return True
        slots = sorted(self.active)
        tokens = self.model_next([list(self.active[s][0].prompt) + self.active[s][1]
                                  for s in slots])
        for slot, tok in zip(slots, tokens, strict=True):
            req, out = self.active[slot]
            out.append(tok)
            seq = list(req.stop_sequence or [])
            if (len(out) > req.max_tokens  # BUG: should be >=
                    or tok == req.stop_token or (seq and out[-len(seq):] == seq)):
                req.callback(req.request_id, out)
                del self.active[slot]
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
