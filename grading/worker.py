"""Celery worker lifecycle: the warm sandbox pool per worker process, and the signal handlers
that keep its report in Redis (grading/workerstore.py: the pool's statistics and the queues the
process serves, which grading.queueing counts the slots of each lane from).

Imported by config/celery.py so that the signal handlers are connected in every worker; nothing
else imports it (readers of the report import grading.workerstore).
"""

from __future__ import annotations

import importlib
import logging
import threading
from typing import TYPE_CHECKING, Any

from celery.signals import (
    celeryd_after_setup,
    task_postrun,
    worker_process_init,
    worker_process_shutdown,
)
from django.conf import settings

from grading import workerstore

if TYPE_CHECKING:
    from sandbox import WarmPool

log = logging.getLogger(__name__)
_queues: list[str] = []  # what this worker consumes, in its order (set before the pool forks)
_warm = threading.Event()  # this process has warmed what its offered problems need
WARM_WAIT_SECONDS = 120.0  # at most this long for a container of every shape before reporting


@celeryd_after_setup.connect
def _remember_queues(sender: Any = None, instance: Any = None, **kwargs: Any) -> None:
    if instance is not None:
        _queues[:] = list(instance.app.amqp.queues.consume_from or {})


@worker_process_init.connect
def _start_pool(**kwargs: Any) -> None:
    """Each prefork child gets its own pool, warmed for the shapes of the problems its queues
    grade (the cpu problems' most common shape at once; every offered problem's shape, and the
    libraries their checkers import in this process, from a background thread)."""
    from grading.sandboxing import sandbox_image, sandbox_limits
    from sandbox import configure_default_pool

    size = settings.ONSITE_SANDBOX_POOL_SIZE
    pool = configure_default_pool(size) if size > 0 else None
    if pool is not None:
        kinds = served_kinds()
        try:
            if "cpu" in kinds:
                pool.prewarm(sandbox_image("cpu"), sandbox_limits({}))
        except Exception:  # a missing image must not stop the worker: runs then start cold
            log.exception("could not prewarm the sandbox pool")
        threading.Thread(
            target=_prewarm_live, args=(pool, kinds), name="sandbox-prewarm", daemon=True
        ).start()
    else:
        _warm.set()  # nothing to warm
    # With or without a pool: its queues count as grading slots.
    workerstore.pool_stats_publish(_queues, warm=_warm.is_set())


def served_kinds() -> set[str]:
    """The queue kinds (`cpu`, `gpu`: grading.lanes.KINDS) of the queues this worker consumes
    (`-Q`; Celery's default queue without it): `cpu.submit` is a `cpu` lane."""
    from celery import current_app

    from grading.lanes import KINDS

    return {name.split(".")[0] for name in current_app.amqp.queues.consume_from} & set(KINDS)


def _prewarm_live(pool: WarmPool, queues: set[str]) -> None:
    """In its own thread (its own database connection, never the one the prefork parent may
    have left): prewarm the offered problems' shapes, then import what their checkers need
    here (torch for the PyTorch problems: 1.3-2.5 s the first Submit would otherwise wait).
    Then, whatever came of it, report this process warm: platform/run.py starts the web once
    the foreground workers are, so that the first Run of a PyTorch problem does not pay this."""
    try:
        _prewarm_offered(pool, queues)
    finally:
        _warm.set()
        workerstore.pool_stats_publish(_queues, warm=True)


def _prewarm_offered(pool: WarmPool, queues: set[str]) -> None:
    from django.db import connection

    from grading.services import pool_prewarm_live

    try:
        libraries = pool_prewarm_live(pool=pool, queues=queues)
    except Exception:  # no database yet, a missing image...: runs learn their shapes
        log.exception("could not prewarm the sandbox pool for the offered problems")
        return
    finally:
        connection.close()
    for name in libraries:
        try:
            importlib.import_module(name)
        except Exception:  # the checker reports it when it needs the library
            log.warning("could not import %s for the checkers", name)
    if not pool.wait_warm(WARM_WAIT_SECONDS):
        log.warning("the sandbox pool had not warmed every shape within %s s", WARM_WAIT_SECONDS)


@task_postrun.connect
def _after_task(**kwargs: Any) -> None:
    workerstore.pool_stats_publish(_queues, warm=_warm.is_set())


@worker_process_shutdown.connect
def _withdraw_stats(**kwargs: Any) -> None:
    workerstore.pool_stats_withdraw()
