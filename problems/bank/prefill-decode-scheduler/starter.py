"""Prefill/decode step scheduler: implement the class below (see the statement for the rules)."""

from __future__ import annotations

from typing import Any


class Scheduler:
    def __init__(self, token_budget: int, max_running: int) -> None:
        """token_budget: tokens per step (>= 0); max_running: cap on requests in Prefill/Decode."""
        raise NotImplementedError

    def add(self, request_id: str, prompt_len: int, max_new_tokens: int) -> bool:
        """Queue a request for the next step(); return False if it is rejected (never scheduled)."""
        raise NotImplementedError

    def step(self) -> dict[str, Any]:
        """Run one step; return {"step", "decode", "prefill", "finished", "tokens_used"}."""
        raise NotImplementedError

    def run_until_done(self) -> list[dict[str, Any]]:
        """Call step() until nothing is waiting or running; return those steps' records."""
        raise NotImplementedError
