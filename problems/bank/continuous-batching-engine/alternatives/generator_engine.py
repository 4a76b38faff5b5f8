"""A correct engine in an unusual style: each request's life is a generator that yields its
prefix and is sent the next token; a slot holds the running generator."""

from __future__ import annotations

from collections import deque
from collections.abc import Generator
from typing import Any

Life = Generator[list[int], int, list[int]]


def _life(request: Any) -> Life:
    out: list[int] = []
    seq = list(request.stop_sequence or [])
    while True:
        token = yield list(request.prompt) + out
        out.append(int(token))
        if (len(out) >= request.max_tokens or token == request.stop_token
                or (seq and out[-len(seq):] == seq)):
            return out


class Engine:
    def __init__(self, model_next: Any, capacity: int) -> None:
        self._model_next = model_next
        self._slots: list[tuple[Any, Life, list[int]] | None] = [None] * capacity
        self._queue: deque[Any] = deque()

    def submit(self, request: Any) -> None:
        self._queue.append(request)

    def step(self) -> bool:
        if not self._queue and not any(self._slots):
            return False
        for i, slot in enumerate(self._slots):
            while slot is None and self._queue:
                request = self._queue.popleft()
                if request.max_tokens == 0:
                    request.callback(request.request_id, [])
                    continue
                life = _life(request)
                slot = self._slots[i] = (request, life, next(life))
        busy = [i for i, slot in enumerate(self._slots) if slot]
        if busy:
            tokens = self._model_next([self._slots[i][2] for i in busy])  # type: ignore[index]
            for i, token in zip(busy, tokens, strict=True):
                request, life, _ = self._slots[i]  # type: ignore[misc]
                try:
                    self._slots[i] = (request, life, life.send(int(token)))
                except StopIteration as done:
                    self._slots[i] = None
                    request.callback(request.request_id, done.value)
        return True

    def run_until_idle(self) -> None:
        while self.step():
            pass
