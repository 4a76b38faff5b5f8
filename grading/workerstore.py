"""What each grading worker process reports of itself in Redis: its warm pool's occupancy and
the queues it serves (grading.queueing counts each lane's slots from it; `/metrics` reports
it). Written by the worker (grading/worker.py's signal handlers), read by anyone: reading it
never imports the module whose import wires Celery's signals.

One key per process, `onsite:pool:<host>:<pid>`, expiring unless refreshed: a killed process
stops counting as a slot on its own.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
from collections.abc import Sequence
from typing import Any

import redis
from django.conf import settings

log = logging.getLogger(__name__)
POOL_STATS_KEY = "onsite:pool:{host}:{pid}"
POOL_STATS_TTL_SECONDS = 300


def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2)


def _stats_key() -> str:
    return POOL_STATS_KEY.format(host=socket.gethostname(), pid=os.getpid())


def pool_stats_publish(queues: Sequence[str], *, warm: bool = True) -> None:
    """Write this process's pool occupancy and `queues` where /metrics can read it (expires
    if we die); `warm`: whether it has warmed what its offered problems need (grading/worker.py),
    which platform/run.py waits for before the web answers."""
    from sandbox import default_pool

    pool = default_pool()
    stats: dict[str, Any] = {"size": 0, "idle": 0, "hits": 0, "misses": 0}
    if pool is not None:
        stats = {
            "size": pool.size,
            "idle": pool.idle_count(),
            "hits": pool.hits,
            "misses": pool.misses,
        }
    stats["queues"] = list(queues)
    stats["warm"] = warm
    try:
        _client().set(_stats_key(), json.dumps(stats), ex=POOL_STATS_TTL_SECONDS)
    except redis.RedisError:
        log.warning("could not publish pool statistics")


def pool_stats_withdraw() -> None:
    """A process that stops is no grading slot any more (a killed one expires with its TTL)."""
    with contextlib.suppress(redis.RedisError):
        _client().delete(_stats_key())


def pool_stats_read() -> list[dict[str, Any]]:
    """Every live worker process's report ([] when Redis cannot be read)."""
    try:
        client = _client()
        keys = list(client.scan_iter(match="onsite:pool:*", count=100))
        return [json.loads(raw) for raw in client.mget(keys) if raw] if keys else []
    except redis.RedisError:
        return []
