"""Slots are preallocated buffers that are never cleared: a refilled slot keeps the previous
request's generated tokens, so the new request's prefix (and its output) is contaminated."""

from __future__ import annotations

from collections import deque
from typing import Any


class Engine:
    def __init__(self, model_next: Any, capacity: int) -> None:
        self.model_next = model_next
        self.capacity = capacity
        self.waiting: deque[Any] = deque()
        self.slot_req: list[Any] = [None] * capacity
        self.slot_out: list[list[int]] = [[] for _ in range(capacity)]
        self.slot_start: list[int] = [0] * capacity

    def submit(self, request: Any) -> None:
        self.waiting.append(request)

    def step(self) -> bool:
        if not self.waiting and all(r is None for r in self.slot_req):
            return False
        for i in range(self.capacity):
            while self.slot_req[i] is None and self.waiting:
                req = self.waiting.popleft()
                if req.max_tokens == 0:
                    req.callback(req.request_id, [])
                    continue
                self.slot_req[i] = req
                # BUG: the buffer of the slot's previous request is reused as is.
                self.slot_start[i] = len(self.slot_out[i])
        live = [i for i in range(self.capacity) if self.slot_req[i] is not None]
        if not live:
            return True
        prefixes = [list(self.slot_req[i].prompt) + self.slot_out[i] for i in live]
        tokens = self.model_next(prefixes)
        for i, tok in zip(live, tokens, strict=True):
            req = self.slot_req[i]
            self.slot_out[i].append(tok)
            mine = self.slot_out[i][self.slot_start[i]:]
            seq = req.stop_sequence
            if (len(mine) >= req.max_tokens or tok == req.stop_token
                    or (seq and mine[-len(seq):] == list(seq))):
                req.callback(req.request_id, list(mine))
                self.slot_req[i] = None
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
