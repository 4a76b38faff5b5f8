"""Async micro-batcher: implement the class below (see the statement for the rules)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any


class Batcher:
    def __init__(self, process_batch: Callable[[list[Any]], Awaitable[list[Any]]],
                 max_batch_size: int, max_wait_ms: float) -> None:
        """Created inside a running event loop."""
        raise NotImplementedError

    async def submit(self, item: Any) -> Any:
        """Queue one item; return its result from process_batch (or raise its batch's error)."""
        raise NotImplementedError

    async def close(self) -> None:
        """Flush everything pending, wait for it, and refuse later submits."""
        raise NotImplementedError
