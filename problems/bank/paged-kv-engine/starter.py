"""Paged KV-cache engine. Implement Engine; see the statement for the exact rules."""

from __future__ import annotations

from typing import Any


class Engine:
    def __init__(self, model: Any, num_blocks: int, block_size: int, token_budget: int) -> None:
        """model.prefill(request_id, tokens, block_table, start) -> next token;
        model.decode([(request_id, token, position, block_table), ...]) -> next tokens."""
        raise NotImplementedError

    def submit(self, request: Any) -> None:
        """Add a request to the waiting queue (FIFO)."""
        raise NotImplementedError

    def step(self) -> bool:
        """Decode, then prefill chunks, then admission, within the token budget. Return False
        (doing nothing) when nothing is running or waiting."""
        raise NotImplementedError

    def run_until_idle(self) -> None:
        """Call self.step() until it returns False."""
        raise NotImplementedError

    def free_blocks(self) -> int:
        """How many of the num_blocks blocks no sequence holds right now."""
        raise NotImplementedError
