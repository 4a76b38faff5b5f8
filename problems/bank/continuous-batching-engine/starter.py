"""Continuous-batching decode engine. Implement Engine; see the statement for the exact rules."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

ModelNext = Callable[[list[list[int]]], Sequence[int]]


class Engine:
    def __init__(self, model_next: ModelNext, capacity: int) -> None:
        """model_next(prefixes) -> one next token per prefix; capacity = batch slots (B)."""
        raise NotImplementedError

    def submit(self, request: Any) -> None:
        """Add a request to the waiting queue (FIFO)."""
        raise NotImplementedError

    def step(self) -> bool:
        """One scheduling round: fill free slots, then call model_next once for every active
        sequence. Return False (doing nothing) when nothing is active or waiting."""
        raise NotImplementedError

    def run_until_idle(self) -> None:
        """Call self.step() until it returns False."""
        raise NotImplementedError
