"""A correct engine in an unusual style: slot state in numpy arrays (a token matrix, lengths,
limits, stop tokens), the stop tests vectorised over the batch."""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

WIDTH = 264  # len(prompt) + max_tokens <= 256, plus room for the longest stop sequence


class Engine:
    def __init__(self, model_next: Any, capacity: int) -> None:
        self.model_next = model_next
        self.queue: deque[Any] = deque()
        self.requests: list[Any] = [None] * capacity
        self.tokens = np.zeros((capacity, WIDTH), dtype=np.int64)
        self.prompt_len = np.zeros(capacity, dtype=np.int64)
        self.length = np.zeros(capacity, dtype=np.int64)  # prompt + generated
        self.limit = np.zeros(capacity, dtype=np.int64)
        self.stop = np.full(capacity, -1, dtype=np.int64)
        self.active = np.zeros(capacity, dtype=bool)

    def submit(self, request: Any) -> None:
        self.queue.append(request)

    def _admit(self) -> None:
        for slot in np.flatnonzero(~self.active):
            while self.queue and not self.active[slot]:
                req = self.queue.popleft()
                if req.max_tokens == 0:
                    req.callback(req.request_id, [])
                    continue
                n = len(req.prompt)
                self.tokens[slot, :] = 0
                self.tokens[slot, :n] = req.prompt
                self.prompt_len[slot] = self.length[slot] = n
                self.limit[slot] = n + req.max_tokens
                self.stop[slot] = -1 if req.stop_token is None else req.stop_token
                self.requests[slot] = req
                self.active[slot] = True

    def step(self) -> bool:
        if not self.queue and not self.active.any():
            return False
        self._admit()
        live = np.flatnonzero(self.active)
        if live.size == 0:
            return True
        prefixes = [self.tokens[s, : self.length[s]].tolist() for s in live]
        new = np.asarray(self.model_next(prefixes), dtype=np.int64)
        self.tokens[live, self.length[live]] = new
        self.length[live] += 1
        done = (self.length[live] >= self.limit[live]) | (new == self.stop[live])
        for k, slot in enumerate(live):
            seq = self.requests[slot].stop_sequence
            if seq and not done[k]:
                end = self.length[slot]
                start = end - len(seq)
                done[k] = start >= self.prompt_len[slot] and bool(
                    np.array_equal(self.tokens[slot, start:end], seq))
        for slot in live[done]:
            req = self.requests[slot]
            out = self.tokens[slot, self.prompt_len[slot]: self.length[slot]].tolist()
            self.active[slot] = False
            self.requests[slot] = None
            req.callback(req.request_id, out)
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
