"""/metrics in Prometheus text format, read from the real broker and database."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from grading.models import Submission
from grading.services import submission_create
from tests.factories import ADD_ONE, tiny_problem, user_with_role
from tests.processes import broker_purge

pytestmark = pytest.mark.django_db(transaction=True)


def metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert match, f"{name} missing"
    return float(match.group(1))


def test_metrics_report_queue_depth_and_oldest_waiting_age() -> None:
    problem = tiny_problem()
    candidate = user_with_role("cand", "candidate")
    depth = 'onsite_queue_depth{queue="cpu.interactive"}'
    before = metric(Client().get("/metrics").content.decode(), depth)
    for _ in range(3):  # no worker runs in this test: the messages wait in Redis
        submission_create(user=candidate, problem_slug=problem.slug, code=ADD_ONE, mode="run")
    response = Client().get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    assert metric(text, depth) == before + 3
    assert metric(text, "onsite_broker_up") == 1
    assert metric(text, 'onsite_oldest_waiting_seconds{queue="cpu"}') > 0
    assert metric(text, 'onsite_oldest_waiting_seconds{queue="gpu"}') == 0
    assert 'onsite_grading_latency_seconds_bucket{queue="cpu",le="+Inf"} 0' in text
    assert "onsite_pool_idle_containers" in text
    assert Submission.objects.filter(status="queued").count() == 3
    broker_purge()  # leave the shared test broker as we found it


def test_with_a_token_set_only_its_bearer_reads_the_metrics(settings) -> None:  # type: ignore[no-untyped-def]
    settings.ONSITE_METRICS_TOKEN = "s3cret-scrape"
    assert Client().get("/metrics").status_code == 403
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Basic s3cret-scrape").status_code == 403
    ok = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-scrape")
    assert ok.status_code == 200 and b"onsite_broker_up" in ok.content


def test_without_a_token_only_loopback_or_debug_reads_the_metrics(settings) -> None:  # type: ignore[no-untyped-def]
    settings.ONSITE_METRICS_TOKEN = ""
    settings.DEBUG = False
    assert Client(REMOTE_ADDR="203.0.113.7").get("/metrics").status_code == 403
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 200
    assert Client(REMOTE_ADDR="::1").get("/metrics").status_code == 200
    settings.DEBUG = True
    assert Client(REMOTE_ADDR="203.0.113.7").get("/metrics").status_code == 200


def test_through_the_trusted_proxy_the_metrics_need_the_token(settings) -> None:  # type: ignore[no-untyped-def]
    # Given nginx on the same host (make prod-up): every request's peer is 127.0.0.1
    settings.ONSITE_TRUSTED_PROXIES = ["127.0.0.1"]
    settings.ONSITE_METRICS_TOKEN = ""
    settings.DEBUG = False
    proxied = Client(REMOTE_ADDR="127.0.0.1")
    # Then a forwarded request is refused, whoever nginx says the client is
    assert proxied.get("/metrics", HTTP_X_FORWARDED_FOR="203.0.113.7").status_code == 403
    assert proxied.get("/metrics", HTTP_X_FORWARDED_FOR="127.0.0.1").status_code == 403
    assert proxied.get("/metrics", HTTP_X_REAL_IP="127.0.0.1").status_code == 403
    # and a scraper on the host that talks to the web process itself still reads them
    assert proxied.get("/metrics").status_code == 200
    # A non-ASCII guess at the token is a refusal, not a 500.
    settings.ONSITE_METRICS_TOKEN = "s3cret-scrape"
    assert proxied.get("/metrics", HTTP_AUTHORIZATION="Bearer sécret").status_code == 403


FORWARDING = [
    {"HTTP_X_FORWARDED_FOR": "203.0.113.7"},
    {"HTTP_X_FORWARDED_FOR": "127.0.0.1"},
    {"HTTP_X_REAL_IP": "127.0.0.1"},
    {"HTTP_FORWARDED": "for=203.0.113.7;proto=https"},
    {"HTTP_FORWARDED": 'for="[::1]"'},
]


@pytest.mark.parametrize("trusted", [[], ["127.0.0.1"]], ids=["undeclared", "declared"])
@pytest.mark.parametrize("peer", ["127.0.0.1", "::1"])
def test_anything_forwarded_needs_the_token_whether_or_not_its_proxy_is_declared(  # type: ignore[no-untyped-def]
    settings, trusted: list[str], peer: str
) -> None:
    # Given nginx on the same host, declared in ONSITE_TRUSTED_PROXIES or not (the default)
    settings.ONSITE_TRUSTED_PROXIES = trusted
    settings.ONSITE_METRICS_TOKEN = ""
    proxied = Client(REMOTE_ADDR=peer)
    for debug in (False, True):
        settings.DEBUG = debug
        # Then a loopback request carrying any forwarding header is refused without the token
        for headers in FORWARDING:
            response = proxied.get("/metrics", **headers)  # type: ignore[arg-type]
            assert response.status_code == 403, (headers, debug)
            assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    settings.DEBUG = False
    # and the same loopback peer with no forwarding header (a scraper on the host) reads them
    assert proxied.get("/metrics").status_code == 200
    # With a token set, the forwarded request that carries it reads them
    settings.ONSITE_METRICS_TOKEN = "s3cret-scrape"
    for headers in FORWARDING:
        assert proxied.get("/metrics", **headers).status_code == 403  # type: ignore[arg-type]
        ok = proxied.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-scrape", **headers)  # type: ignore[arg-type]
        assert ok.status_code == 200 and b"onsite_broker_up" in ok.content
