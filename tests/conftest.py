"""Suite-wide fixtures. The real Redis comes from the plugin in tests/services.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.csp import CspGuard


@pytest.fixture(scope="session")
def sandbox_images() -> dict[str, str]:
    """The CPU sandbox image, built once (skipped when its recipe's hash already exists)."""
    from sandbox.image import ensure

    return {"cpu": ensure("cpu")}


@pytest.fixture(scope="session")
def gpu_image() -> str:
    """The GPU queue's image (PyTorch inside): built only for the tests that grade with it."""
    from sandbox.image import ensure

    return ensure("gpu")


@pytest.fixture(autouse=True)
def _images_for_docker_tests(request: pytest.FixtureRequest) -> None:
    """A test marked `docker` grades for real: make sure the images it runs exist."""
    if request.node.get_closest_marker("docker"):
        request.getfixturevalue("sandbox_images")
    if request.node.get_closest_marker("gpu_image"):
        request.getfixturevalue("gpu_image")


def _xdist_group(item: pytest.Item) -> str | None:
    """Which tests share one pytest-xdist worker (`make test` runs with `--dist loadgroup`):
    each browser-flow module (its tests build on each other's pages; a worker starts the
    platform once for all the modules it gets), the fault drills (they write one figures
    file) and the tests of the real clarifying-question model (one worker loads it, seconds of
    CPU, instead of each). Everything else, the bank's solutions included, goes wherever a
    worker is free."""
    path = item.path.as_posix()
    if "/tests/e2e/" in path:
        return f"browser-{item.path.stem}"
    if path.endswith("tests/grading/test_faults.py"):
        return "faults"
    if item.path.name in _REAL_MODEL_MODULES and "/tests/interviews/" in path:
        return "clarify-model"
    return None


# The modules whose tests use the real embedding model (ONSITE_CLARIFY_EMBEDDER = "").
_REAL_MODEL_MODULES = ("test_matching.py", "test_design_matching.py", "test_matching_eval.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = _xdist_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


_HANDLER_PARTS = (
    "_view_middleware",
    "_template_response_middleware",
    "_exception_middleware",
    "_middleware_chain",
)


@pytest.fixture(autouse=True, scope="session")
def _one_middleware_chain() -> Iterator[None]:
    """Django's test clients share one middleware chain, as a server process does: each new
    client would build its own on its first request, and WhiteNoise's part of that (every
    static file found and stat'ed, `WHITENOISE_USE_FINDERS`) is ~16 ms of CPU, paid by every
    `client_for(...)` of every test. The chain is built again after any setting changes
    (override_settings, pytest-django's `settings`): middleware read some settings once."""
    from django.core.handlers.base import BaseHandler
    from django.test.client import AsyncClientHandler, ClientHandler
    from django.test.signals import setting_changed

    built: dict[tuple[type, bool], tuple[Any, ...]] = {}

    def load_middleware(self: BaseHandler, is_async: bool = False) -> None:
        key = (type(self), is_async)
        if key not in built:
            BaseHandler.load_middleware(self, is_async)
            built[key] = tuple(getattr(self, part) for part in _HANDLER_PARTS)
        for part, value in zip(_HANDLER_PARTS, built[key], strict=True):
            setattr(self, part, value)

    def forget(**_: Any) -> None:
        built.clear()

    setting_changed.connect(forget, weak=False)
    with pytest.MonkeyPatch.context() as patch:
        for handler in (ClientHandler, AsyncClientHandler):
            patch.setattr(handler, "load_middleware", load_middleware, raising=False)
        yield
    setting_changed.disconnect(forget)


@pytest.fixture(autouse=True)
def csp_guard(request: pytest.FixtureRequest) -> Iterator[CspGuard]:
    """Fails any browser test whose pages hit a Content-Security-Policy violation (the real
    platform's pages in tests/e2e, the scripted ones of tests/frontend: tests/csp.py)."""
    guard = CspGuard()
    if "browser" not in request.fixturenames:
        yield guard
        return
    from playwright.sync_api import Browser, BrowserContext, Page

    browser: Browser = request.getfixturevalue("browser")
    new_context = browser.new_context

    def watched_context(**options: Any) -> BrowserContext:
        return guard.watch(new_context(**options))

    def watched_page(**options: Any) -> Page:
        return watched_context(**options).new_page()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(browser, "new_context", watched_context)
        patch.setattr(browser, "new_page", watched_page)
        yield guard
    assert guard.violations == [], f"Content-Security-Policy violations: {guard.violations}"


@pytest.fixture(autouse=True)
def _fresh_channel_layer(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test starts on a fresh channel layer and may not leave a consumer waiting on it
    (tests/sockets.py says why; socket scenarios run through its `run_scenario`)."""
    from tests.sockets import fresh_layers, waiting_layers

    fresh_layers()
    yield
    left = waiting_layers()
    fresh_layers()
    if left:
        pytest.fail(
            f"{request.node.nodeid} left a consumer waiting on channel layer {left}", pytrace=False
        )


@pytest.fixture(autouse=True)
def _fresh_rate_limits() -> None:
    """Every test starts with no request counted against any rate limit. The counters live in
    the real Redis under ids the test databases hand out again (a user id of an earlier test
    is a later test's too), so a test that lowers a limit could start over it. Only this
    worker's counters are emptied (config/test_settings.py gives each its own key prefix)."""
    import redis
    from django.core.cache import cache

    try:
        client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]
        stale = list(client.scan_iter(match=cache.make_key("rate:*"), count=1000))
        if stale:
            client.delete(*stale)
    except redis.RedisError:
        pass  # a test that stopped Redis: nothing can be counted either
