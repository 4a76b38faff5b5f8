"""Streams the stop sequence with a match counter that drops to 0 on a mismatch without
re-testing the current token. Straddling steps works, but a match that starts inside a failed
partial match is missed (stop [a, b] after a, a, b; stop [a, a, b] after a, a, a, b)."""

from __future__ import annotations

from collections import deque
from typing import Any


class _Seq:
    def __init__(self, req: Any) -> None:
        self.req = req
        self.out: list[int] = []
        self.matched = 0

    def push(self, tok: int) -> bool:
        req = self.req
        self.out.append(tok)
        seq = req.stop_sequence
        if seq:
            if tok == seq[self.matched]:
                self.matched += 1
            else:
                self.matched = 0  # BUG: tok may itself start (or continue) a match
            if self.matched == len(seq):
                return True
        return len(self.out) >= req.max_tokens or tok == req.stop_token


class Engine:
    def __init__(self, model_next: Any, capacity: int) -> None:
        self.model_next = model_next
        self.capacity = capacity
        self.waiting: deque[Any] = deque()
        self.slots: list[_Seq | None] = [None] * capacity

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
                    self.slots[i] = _Seq(req)
        live = [(i, s) for i, s in enumerate(self.slots) if s is not None]
        if not live:
            return True
        tokens = self.model_next([list(s.req.prompt) + s.out for _, s in live])
        for (i, s), tok in zip(live, tokens, strict=True):
            if s.push(tok):
                s.req.callback(s.req.request_id, list(s.out))
                self.slots[i] = None
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
