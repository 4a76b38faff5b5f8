"""Wrong (TLE): the worker waits until it has a FULL batch; max_wait_ms is never used, so a
partial batch is only flushed by close() and its submitters wait forever in between.
"""

from __future__ import annotations

import asyncio
from typing import Any


class Batcher:
    def __init__(self, process_batch: Any, max_batch_size: int, max_wait_ms: float) -> None:
        self.process_batch = process_batch
        self.max_batch_size = max_batch_size
        self.max_wait = max_wait_ms / 1000
        self.queue: asyncio.Queue[tuple[Any, asyncio.Future[Any]]] = asyncio.Queue()
        self.worker = asyncio.get_running_loop().create_task(self._work())
        self.closed = False

    async def submit(self, item: Any) -> Any:
        if self.closed:
            raise RuntimeError("closed")
        fut = asyncio.get_running_loop().create_future()
        await self.queue.put((item, fut))
        return await fut

    async def _work(self) -> None:
        while True:
            batch = []
            while len(batch) < self.max_batch_size:
                batch.append(await self.queue.get())
            await self._run(batch)

    async def _run(self, batch: list[tuple[Any, asyncio.Future[Any]]]) -> None:
        try:
            results = await self.process_batch([item for item, _ in batch])
            if len(results) != len(batch):
                raise ValueError("wrong number of results")
        except Exception as exc:
            for _, fut in batch:
                fut.set_exception(exc)
            return
        for (_, fut), res in zip(batch, results):
            fut.set_result(res)

    async def close(self) -> None:
        self.closed = True
        self.worker.cancel()
        while not self.queue.empty():
            batch = []
            while batch.__len__() < self.max_batch_size and not self.queue.empty():
                batch.append(self.queue.get_nowait())
            await self._run(batch)
