"""Calls max_tokens == 0 requests back after the admission loop instead of in their FIFO turn:
each is still called back in the right step, but a request its callback submits joins the queue
too late for the slot still free in this step and waits one (stress)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

ModelNext = Callable[[list[list[int]]], Sequence[int]]


class _Slot:
    """One occupied batch slot: the request and the tokens generated for it so far."""

    __slots__ = ("generated", "request")

    def __init__(self, request: Any) -> None:
        self.request = request
        self.generated: list[int] = []

    def prefix(self) -> list[int]:
        return list(self.request.prompt) + self.generated

    def finished(self) -> bool:
        """Earliest of max_tokens, the stop token, or the stop sequence as a suffix of the
        generated tokens (never of the prompt). One token arrives per step, so checking the
        suffix after every append catches a stop sequence spread over many steps."""
        req, out = self.request, self.generated
        if len(out) >= req.max_tokens:
            return True
        if req.stop_token is not None and out[-1] == req.stop_token:
            return True
        seq = req.stop_sequence
        return bool(seq) and len(out) >= len(seq) and out[-len(seq):] == list(seq)


class Engine:
    """Continuous batching: free slots are refilled from the queue at the start of every step."""

    def __init__(self, model_next: ModelNext, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._model_next = model_next
        self._slots: list[_Slot | None] = [None] * capacity
        self._waiting: deque[Any] = deque()

    def submit(self, request: Any) -> None:
        """Queue a request (FIFO). Safe between steps and from inside a callback."""
        self._waiting.append(request)

    def step(self) -> bool:
        """Admit into free slots, then decode one token for every active sequence with exactly
        one model call. Returns False, doing nothing, when nothing is active or waiting."""
        if not self._waiting and all(slot is None for slot in self._slots):
            return False
        self._admit()
        active = [(i, slot) for i, slot in enumerate(self._slots) if slot is not None]
        if not active:  # everything admitted this step had max_tokens == 0
            return True
        tokens = list(self._model_next([slot.prefix() for _, slot in active]))
        if len(tokens) != len(active):
            raise RuntimeError(f"model_next returned {len(tokens)} tokens for {len(active)}")
        for (i, slot), token in zip(active, tokens, strict=True):
            slot.generated.append(int(token))
            if slot.finished():
                # Free the slot before the callback: a callback may submit() more work.
                self._slots[i] = None
                slot.request.callback(slot.request.request_id, list(slot.generated))
        return True

    def run_until_idle(self) -> None:
        """Step until nothing is active or waiting."""
        while self.step():
            pass

    def _admit(self) -> None:
        ended: list[Any] = []
        for i, slot in enumerate(self._slots):
            while slot is None and self._waiting:
                request = self._waiting.popleft()
                if request.max_tokens <= 0:
                    ended.append(request)  # ends at admission: no slot, no model call
                    continue
                slot = self._slots[i] = _Slot(request)
        # BUG: called back once the slots are filled, so a request such a callback submits
        # misses the slot still free in this step.
        for request in ended:
            request.callback(request.request_id, [])
