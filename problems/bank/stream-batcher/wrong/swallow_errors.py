"""Wrong (WA): when process_batch raises (or returns too few results) every waiter of that
batch is answered with None instead of getting the exception: errors are silently swallowed.
"""

from __future__ import annotations

import asyncio
from typing import Any

_STOP = object()


class Batcher:
    def __init__(self, process_batch: Any, max_batch_size: int, max_wait_ms: float) -> None:
        self.process_batch = process_batch
        self.max_batch_size = max_batch_size
        self.max_wait = max_wait_ms / 1000
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.loop = asyncio.get_running_loop()
        self.worker = self.loop.create_task(self._work())
        self.closed = False

    async def submit(self, item: Any) -> Any:
        if self.closed:
            raise RuntimeError("closed")
        fut = self.loop.create_future()
        self.queue.put_nowait((item, fut))
        return await fut

    async def _work(self) -> None:
        stopping = False
        while not stopping:
            entry = await self.queue.get()
            if entry is _STOP:
                break
            batch = [entry]
            deadline = self.loop.time() + self.max_wait
            while len(batch) < self.max_batch_size:
                remaining = deadline - self.loop.time()
                if remaining <= 0:
                    break
                try:
                    entry = await asyncio.wait_for(self.queue.get(), remaining)
                except asyncio.TimeoutError:
                    break
                if entry is _STOP:
                    stopping = True
                    break
                batch.append(entry)
            await self._run(batch)

    async def _run(self, batch: list[tuple[Any, asyncio.Future[Any]]]) -> None:
        try:
            results = await self.process_batch([item for item, _ in batch])
        except Exception:
            results = [None] * len(batch)  # "never let one bad batch crash the service"
        if len(results) != len(batch):
            results = [None] * len(batch)
        for (_, fut), res in zip(batch, results):
            if not fut.done():
                fut.set_result(res)

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(_STOP)
        await asyncio.shield(self.worker)
