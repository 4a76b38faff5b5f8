"""The Celery app: tasks are routed by problem queue (`cpu` or `gpu`)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("onsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_finalize.connect
def _worker_hooks(**kwargs: object) -> None:
    import grading.worker  # noqa: F401 - connects the worker's signal handlers
