"""Fixtures for the frontend tests: the built bundle and Debian's chromium through Playwright."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.frontend.fakes import ORIGIN, SUBMISSION_ID, FakeGrader, problem_page_html

FRONTEND_DIR = Path(__file__).resolve().parents[2] / "frontend"
BUNDLE = FRONTEND_DIR / "static" / "frontend" / "bundle.js"
CHROMIUM = "/usr/bin/chromium"
# Flags for a headless chromium that talks to nothing but the page under test.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def bundle_ensure() -> Path:
    """Rebuilds the bundle when the build tools are installed, so tests never run stale JS."""
    if (FRONTEND_DIR / "node_modules" / "esbuild").is_dir() and shutil.which("node"):
        subprocess.run(["node", "build.mjs"], cwd=FRONTEND_DIR, check=True, capture_output=True)
    if not BUNDLE.is_file():
        pytest.fail(f"{BUNDLE} is missing: run `cd frontend && npm ci && node build.mjs`")
    return BUNDLE


@pytest.fixture(scope="session")
def bundle() -> Path:
    return bundle_ensure()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium, one per test module; Playwright never downloads a browser here.

    Module scope, not session: while Playwright's sync API is active, its asyncio loop counts
    as running in this thread, which breaks Django's ORM and async_to_sync in any test that
    runs meanwhile; closing it at the end of the module keeps that to the browser tests.
    """
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def grader() -> FakeGrader:
    return FakeGrader(page_html=problem_page_html())


@pytest.fixture
def page(browser: Browser, bundle: Path, grader: FakeGrader) -> Iterator[Page]:
    context = browser.new_context(base_url=ORIGIN, viewport={"width": 1280, "height": 900})
    context.add_cookies([{"name": "csrftoken", "value": "csrf-abc", "url": ORIGIN}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route("**/*", grader.http)
    page.route_web_socket(f"**/ws/submissions/{SUBMISSION_ID}/", grader.socket)
    page.goto("/problems/token-bucket/")
    expect(page.locator("#problem")).to_have_attribute("data-ready", "true")
    yield page
    context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"


@pytest.fixture
def node_findings() -> Callable[[str], dict[str, bool]]:
    """Runs a `tests/frontend/js/<name>` check with node against frontend/node_modules and
    returns its findings (the JSON object on its last line of output); skips without node."""
    if shutil.which("node") is None or not (FRONTEND_DIR / "node_modules" / "yjs").is_dir():
        pytest.skip("node and frontend/node_modules are needed (cd frontend && npm ci)")

    def run(name: str) -> dict[str, bool]:
        script = Path(__file__).resolve().parent / "js" / name
        done = subprocess.run(["node", str(script), str(FRONTEND_DIR)], capture_output=True,
                              text=True, timeout=60, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        findings: dict[str, bool] = json.loads(done.stdout.strip().splitlines()[-1])
        return findings

    return run
