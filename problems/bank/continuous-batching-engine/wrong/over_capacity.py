"""Admits while `len(active) <= capacity`: every full batch carries capacity + 1 sequences."""

from __future__ import annotations

from collections import deque
from typing import Any


class Engine:
    def __init__(self, model_next: Any, capacity: int) -> None:
        self.model_next = model_next
        self.capacity = capacity
        self.waiting: deque[Any] = deque()
        self.active: list[tuple[Any, list[int]]] = []

    def submit(self, request: Any) -> None:
        self.waiting.append(request)

    def step(self) -> bool:
        if not self.waiting and not self.active:
            return False
        while self.waiting and len(self.active) <= self.capacity:  # BUG: off by one
            req = self.waiting.popleft()
            if req.max_tokens == 0:
                req.callback(req.request_id, [])
            else:
                self.active.append((req, []))
        if not self.active:
            return True
        tokens = self.model_next([list(r.prompt) + out for r, out in self.active])
        keep = []
        for (req, out), tok in zip(self.active, tokens, strict=True):
            out.append(tok)
            seq = req.stop_sequence
            if (len(out) >= req.max_tokens or tok == req.stop_token
                    or (seq and out[-len(seq):] == list(seq))):
                req.callback(req.request_id, list(out))
            else:
                keep.append((req, out))
        self.active = keep
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
