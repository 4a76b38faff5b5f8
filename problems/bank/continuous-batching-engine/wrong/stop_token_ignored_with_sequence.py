"""When a request has a stop_sequence, only the sequence is tested: its stop_token is ignored."""

from __future__ import annotations

from typing import Any


class Engine:
    def __init__(self, model_next: Any, capacity: int) -> None:
        self.model_next = model_next
        self.slots: list[Any] = [None] * capacity  # [request, generated] or None
        self.waiting: list[Any] = []

    def submit(self, request: Any) -> None:
        self.waiting.append(request)

    def step(self) -> bool:
        if not self.waiting and all(s is None for s in self.slots):
            return False
        for i in range(len(self.slots)):
            while self.slots[i] is None and self.waiting:
                req = self.waiting.pop(0)
                if req.max_tokens <= 0:
                    req.callback(req.request_id, [])
                    continue
                self.slots[i] = [req, []]
        live = [i for i, s in enumerate(self.slots) if s is not None]
        if not live:
            return True
        tokens = self.model_next([list(self.slots[i][0].prompt) + self.slots[i][1] for i in live])
        for i, tok in zip(live, tokens, strict=True):
            req, out = self.slots[i]
            out.append(int(tok))
            seq = req.stop_sequence
            if seq:  # BUG: the stop token no longer counts
                done = len(out) >= req.max_tokens or out[-len(seq):] == list(seq)
            else:
                done = len(out) >= req.max_tokens or out[-1] == req.stop_token
            if done:
                self.slots[i] = None
                req.callback(req.request_id, list(out))
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
