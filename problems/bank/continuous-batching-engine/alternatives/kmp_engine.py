"""A correct engine in another style: stop sequences matched by a streaming KMP automaton.

Each slot keeps only its match state (how many tokens of the stop sequence the generated
tokens end with); on a mismatch it falls back along the failure function instead of
restarting, so self-overlapping sequences ([a, a, b] after a, a, a, b) still end at their
first completion. Slots live in a dict keyed by slot number, the queue is a deque, and
max_tokens == 0 requests end in their FIFO turn.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any


def _failure(seq: Sequence[int]) -> list[int]:
    """fail[i]: length of the longest proper border of seq[:i + 1]."""
    fail = [0] * len(seq)
    k = 0
    for i in range(1, len(seq)):
        while k and seq[i] != seq[k]:
            k = fail[k - 1]
        if seq[i] == seq[k]:
            k += 1
        fail[i] = k
    return fail


class _Running:
    __slots__ = ("fail", "matched", "out", "request", "seq")

    def __init__(self, request: Any) -> None:
        self.request = request
        self.out: list[int] = []
        self.seq = list(request.stop_sequence or [])
        self.fail = _failure(self.seq)
        self.matched = 0

    def push(self, token: int) -> bool:
        """Append one generated token; True when the request ends with it."""
        self.out.append(token)
        seq = self.seq
        hit = False
        if seq:
            k = self.matched
            while k and token != seq[k]:
                k = self.fail[k - 1]
            if token == seq[k]:
                k += 1
            if k == len(seq):
                hit = True
                k = self.fail[k - 1]
            self.matched = k
        stop = self.request.stop_token
        full = len(self.out) >= self.request.max_tokens
        return hit or full or (stop is not None and token == stop)


class Engine:
    def __init__(self, model_next: Callable[[list[list[int]]], Sequence[int]],
                 capacity: int) -> None:
        self._model_next = model_next
        self._capacity = capacity
        self._running: dict[int, _Running] = {}
        self._queue: deque[Any] = deque()

    def submit(self, request: Any) -> None:
        self._queue.append(request)

    def _free_slot(self) -> int | None:
        for slot in range(self._capacity):
            if slot not in self._running:
                return slot
        return None

    def step(self) -> bool:
        if not self._running and not self._queue:
            return False
        while self._queue:
            slot = self._free_slot()
            if slot is None:
                break
            request = self._queue.popleft()
            if request.max_tokens <= 0:
                request.callback(request.request_id, [])  # may submit: the loop sees it
                continue
            self._running[slot] = _Running(request)
        if not self._running:
            return True
        order = sorted(self._running, reverse=True)  # any order inside the batch
        prefixes = [[*self._running[s].request.prompt, *self._running[s].out] for s in order]
        tokens = self._model_next(prefixes)
        for slot, token in zip(order, tokens, strict=True):
            running = self._running[slot]
            if running.push(int(token)):
                del self._running[slot]
                running.request.callback(running.request.request_id, list(running.out))
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
