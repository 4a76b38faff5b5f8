"""Looks for the stop sequence only inside the tokens produced by the current step. One token
arrives per step, so a stop sequence of two or more tokens (which always straddles steps) is
never seen: such requests run on to max_tokens."""

from __future__ import annotations

from collections import deque
from typing import Any


def _contains(tokens: list[int], seq: list[int]) -> bool:
    k = len(seq)
    return any(tokens[i:i + k] == seq for i in range(len(tokens) - k + 1))


class Engine:
    def __init__(self, model_next: Any, capacity: int) -> None:
        self.model_next = model_next
        self.capacity = capacity
        self.waiting: deque[Any] = deque()
        self.slots: list[dict[str, Any] | None] = [None] * capacity

    def submit(self, request: Any) -> None:
        self.waiting.append(request)

    def step(self) -> bool:
        if not self.waiting and not any(self.slots):
            return False
        for i in range(self.capacity):
            while self.slots[i] is None and self.waiting:
                req = self.waiting.popleft()
                if req.max_tokens == 0:
                    req.callback(req.request_id, [])
                else:
                    self.slots[i] = {"req": req, "out": []}
        live = [i for i, s in enumerate(self.slots) if s is not None]
        if not live:
            return True
        batch = [self.slots[i] for i in live]
        new_tokens = self.model_next([list(s["req"].prompt) + s["out"] for s in batch])
        for i, s, tok in zip(live, batch, new_tokens, strict=True):
            req = s["req"]
            s["out"].append(tok)
            chunk = [tok]  # BUG: only this step's tokens are searched
            hit = bool(req.stop_sequence) and _contains(chunk, list(req.stop_sequence))
            if len(s["out"]) >= req.max_tokens or tok == req.stop_token or hit:
                req.callback(req.request_id, list(s["out"]))
                self.slots[i] = None
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
