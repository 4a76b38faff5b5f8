"""A streaming stop-sequence matcher (KMP-style, correct on overlaps) whose progress counter lives
in the slot and is not reset on refill: a request that ended part-way through a stop sequence
hands its progress to the next occupant."""

from __future__ import annotations

from typing import Any


class Engine:
    def __init__(self, model_next: Any, capacity: int) -> None:
        self.model_next = model_next
        self.slots: list[Any] = [None] * capacity  # [request, generated] or None
        self.matched: list[int] = [0] * capacity  # stop-sequence progress per slot
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
            seq = list(req.stop_sequence or [])
            hit = False
            if seq:
                k = self.matched[i]  # BUG: never reset when the slot is refilled
                while k and seq[k % len(seq)] != out[-1]:
                    k = max((j for j in range(k) if seq[:j] == seq[k - j:k]), default=0)
                k = k + 1 if seq[k % len(seq)] == out[-1] else 0
                hit, self.matched[i] = k >= len(seq), k
            if len(out) >= req.max_tokens or out[-1] == req.stop_token or hit:
                self.slots[i] = None
                req.callback(req.request_id, list(out))
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
