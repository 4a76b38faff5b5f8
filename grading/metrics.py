"""`/metrics` in Prometheus text format: what an autoscaler needs to scale on queue depth.

Who may read it: a scraper sending `Authorization: Bearer <ONSITE_METRICS_TOKEN>`; with no
token configured, only a DEBUG server (a laptop) or a loopback client that reached the web
process directly. Anything forwarded (`X-Forwarded-For`, `X-Real-IP` or `Forwarded` present)
needs the token, whether or not its proxy is declared (`core.clientaddr`). Queue depths and
latencies say how busy the platform is, which is not for the public.
"""

from __future__ import annotations

import hmac
import logging

import redis
from django.conf import settings
from django.db.models import Min
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.utils import timezone
from django.views.decorators.http import require_GET

from core.clientaddr import carries_forwarding, client_is_local
from grading import queueing
from grading.lanes import KINDS, LANE_ORDER, all_queues, queue_name
from grading.models import Submission
from grading.workerstore import pool_stats_read

log = logging.getLogger(__name__)
QUEUES = KINDS  # the latency figures are per queue kind; depths per lane's queue
LATENCY_BUCKETS = (0.5, 1, 2, 5, 10, 30, 60, 120, 300)


def _queue_depths() -> dict[str, int] | None:
    try:
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2)
        return {queue: int(client.llen(queue)) for queue in all_queues()}
    except redis.RedisError:
        log.warning("metrics: broker unreachable")
        return None


def _lines() -> list[str]:
    lines = [
        "# HELP onsite_queue_depth Messages waiting in the broker per queue.",
        "# TYPE onsite_queue_depth gauge",
    ]
    depths = _queue_depths()
    for queue in all_queues():
        lines.append(f'onsite_queue_depth{{queue="{queue}"}} {depths[queue] if depths else "NaN"}')
    lines += [
        "# HELP onsite_broker_up Whether the broker answered.",
        "# TYPE onsite_broker_up gauge",
        f"onsite_broker_up {1 if depths is not None else 0}",
    ]
    now = timezone.now()
    lines += [
        "# HELP onsite_oldest_waiting_seconds Age of the oldest submission not yet graded.",
        "# TYPE onsite_oldest_waiting_seconds gauge",
    ]
    waiting = Submission.objects.filter(
        status__in=[Submission.Status.QUEUED, Submission.Status.RETRYING]
    )
    for queue in QUEUES:
        oldest = waiting.filter(problem__queue=queue).aggregate(t=Min("created_at"))["t"]
        age = (now - oldest).total_seconds() if oldest else 0.0
        lines.append(f'onsite_oldest_waiting_seconds{{queue="{queue}"}} {age:.3f}')
    lines += _lane_lines()
    lines += _latency_histogram()
    lines += _pool_lines()
    return lines


def _gauge(name: str, about: str, values: dict[str, object], label: str = "queue") -> list[str]:
    lines = [f"# HELP {name} {about}", f"# TYPE {name} gauge"]
    return lines + [f'{name}{{{label}="{key}"}} {value}' for key, value in values.items()]


def _lane_lines() -> list[str]:
    """What a waiting run's position and estimate are made of (grading/queueing.py)."""
    waiting = queueing.waiting_by_lane()
    lanes = [(kind, lane) for kind in KINDS for lane in LANE_ORDER]
    return [
        *_gauge("onsite_waiting_runs", "Runs waiting for a grading slot, per lane's queue.",
                {queue_name(k, lane): waiting[(k, str(lane))] for k, lane in lanes}),
        *_gauge("onsite_grading_slots", "Worker processes serving each lane's queue.",
                {queue_name(k, lane): queueing.slots(k, lane) for k, lane in lanes}),
        *_gauge("onsite_grading_service_seconds",
                "Median start-to-verdict time of recent gradings.",
                {k: f"{queueing.service_seconds(k):.3f}" for k in KINDS}, label="kind"),
    ]


def _pool_lines() -> list[str]:
    stats = pool_stats_read()
    idle = sum(s["idle"] for s in stats)
    size = sum(s["size"] for s in stats)
    return [
        "# HELP onsite_pool_idle_containers Warm sandbox containers ready to take a run.",
        "# TYPE onsite_pool_idle_containers gauge",
        f"onsite_pool_idle_containers {idle}",
        "# HELP onsite_pool_target_containers Warm containers the pools aim to keep per shape.",
        "# TYPE onsite_pool_target_containers gauge",
        f"onsite_pool_target_containers {size}",
        "# HELP onsite_pool_hits_total Runs that found a warm container.",
        "# TYPE onsite_pool_hits_total counter",
        f"onsite_pool_hits_total {sum(s['hits'] for s in stats)}",
        "# HELP onsite_pool_misses_total Runs that had to start a container cold.",
        "# TYPE onsite_pool_misses_total counter",
        f"onsite_pool_misses_total {sum(s['misses'] for s in stats)}",
        "# HELP onsite_worker_processes Worker processes reporting in the last 5 minutes.",
        "# TYPE onsite_worker_processes gauge",
        f"onsite_worker_processes {len(stats)}",
    ]


def _latency_histogram() -> list[str]:
    """Created-to-finished time of every graded submission, as a cumulative histogram."""
    lines = [
        "# HELP onsite_grading_latency_seconds Time from submission to verdict.",
        "# TYPE onsite_grading_latency_seconds histogram",
    ]
    for queue in QUEUES:
        rows = Submission.objects.filter(
            problem__queue=queue, status=Submission.Status.DONE, finished_at__isnull=False
        ).values_list("created_at", "finished_at")
        latencies = [(done - created).total_seconds() for created, done in rows if done]
        for bound in LATENCY_BUCKETS:
            count = sum(1 for value in latencies if value <= bound)
            lines.append(
                f'onsite_grading_latency_seconds_bucket{{queue="{queue}",le="{bound}"}} {count}'
            )
        lines.append(
            f'onsite_grading_latency_seconds_bucket{{queue="{queue}",le="+Inf"}} {len(latencies)}'
        )
        lines.append(f'onsite_grading_latency_seconds_sum{{queue="{queue}"}} {sum(latencies):.3f}')
        lines.append(f'onsite_grading_latency_seconds_count{{queue="{queue}"}} {len(latencies)}')
    return lines


def metrics_allowed(request: HttpRequest) -> bool:
    """The bearer token when one is set; else only DEBUG or a local client, and never a
    request that was forwarded: one carrying `X-Forwarded-For`, `X-Real-IP` or `Forwarded`
    needs the token whether or not its proxy is declared in ONSITE_TRUSTED_PROXIES (for an
    undeclared nginx on the same host the loopback peer is all that shows)."""
    token: str = settings.ONSITE_METRICS_TOKEN
    if token:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        # Constant time: the comparison must not tell how much of a guess was right.
        # Bytes: compare_digest refuses non-ASCII text with a TypeError (a 500).
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode("utf-8"), token.encode("utf-8")
        )
    if carries_forwarding(request):
        return False
    return bool(settings.DEBUG) or client_is_local(request)


@require_GET  # a scrape reads; a POST here is no form (tests/privacy/test_routes.py)
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not metrics_allowed(request):
        response = HttpResponseForbidden("metrics need a bearer token\n", content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse("\n".join(_lines()) + "\n", content_type="text/plain; version=0.0.4")
