"""Reference: an asyncio micro-batcher.

Design: no background loop. Pending items sit in a deque with their arrival time; the first item
of a batch arms one timer (loop.call_later) for its deadline. A batch is dispatched when it
reaches max_batch_size (inside submit) or when the timer fires, whichever comes first. Each
dispatched batch runs in its own task, so a slow batch never delays forming the next one, and an
exception only ever touches the futures of the batch that raised it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

ProcessBatch = Callable[[list[Any]], Awaitable[list[Any]]]


class Batcher:
    """Groups submitted items into batches for ``process_batch``."""

    def __init__(self, process_batch: ProcessBatch, max_batch_size: int,
                 max_wait_ms: float) -> None:
        if max_batch_size < 1:
            raise ValueError("max_batch_size must be >= 1")
        self._process = process_batch
        self._max = max_batch_size
        self._wait = max_wait_ms / 1000.0
        self._loop = asyncio.get_running_loop()
        # (arrival time on the loop clock, item, the submitter's future), oldest first.
        self._pending: deque[tuple[float, Any, asyncio.Future[Any]]] = deque()
        self._timer: asyncio.TimerHandle | None = None
        self._inflight: set[asyncio.Task[None]] = set()
        self._closed = False

    async def submit(self, item: Any) -> Any:
        """Queue one item and wait for its own result (or its batch's exception)."""
        if self._closed:
            raise RuntimeError("batcher is closed")
        fut: asyncio.Future[Any] = self._loop.create_future()
        self._pending.append((self._loop.time(), item, fut))
        if len(self._pending) >= self._max:
            self._dispatch()
        elif self._timer is None:
            self._arm_timer()
        return await fut

    async def close(self) -> None:
        """Stop accepting items, flush everything pending, and wait until all batches are done."""
        self._closed = True
        while self._pending:
            self._dispatch()
        if self._inflight:
            await asyncio.gather(*self._inflight, return_exceptions=True)

    def _arm_timer(self) -> None:
        # The deadline belongs to the OLDEST pending item, not to the latest arrival.
        deadline = self._pending[0][0] + self._wait
        self._timer = self._loop.call_at(deadline, self._on_deadline)

    def _on_deadline(self) -> None:
        self._timer = None
        if self._pending:
            self._dispatch()

    def _dispatch(self) -> None:
        """Cut one batch (at most max_batch_size, oldest first) and start processing it."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        size = min(self._max, len(self._pending))
        batch = [self._pending.popleft() for _ in range(size)]
        task = self._loop.create_task(self._run_batch(batch))
        # Keep a strong reference: the loop only holds weak references to tasks.
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)
        if self._pending and not self._closed:
            self._arm_timer()

    async def _run_batch(self, batch: list[tuple[float, Any, asyncio.Future[Any]]]) -> None:
        items = [item for _, item, _ in batch]
        futures = [fut for _, _, fut in batch]
        try:
            results = await self._process(items)
        except asyncio.CancelledError:
            for fut in futures:
                fut.cancel()
            raise
        except Exception as exc:  # any model error goes to exactly these waiters
            self._fail(futures, exc)
            return
        if not isinstance(results, list) or len(results) != len(items):
            # zip() would silently drop the tail and leave its waiters hanging forever.
            self._fail(futures, ValueError(
                f"process_batch returned {len(results) if isinstance(results, list) else results!r}"
                f" results for a batch of {len(items)}"))
            return
        for fut, result in zip(futures, results, strict=True):
            if not fut.done():  # a waiter may have been cancelled meanwhile
                fut.set_result(result)

    @staticmethod
    def _fail(futures: list[asyncio.Future[Any]], exc: BaseException) -> None:
        for fut in futures:
            if not fut.done():
                fut.set_exception(exc)
