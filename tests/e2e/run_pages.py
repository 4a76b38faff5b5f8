"""The run flow's helpers for the browser tests: the token-bucket package and signing in."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.conftest import Platform

PACKAGE = Path(__file__).resolve().parents[2] / "problems" / "bank" / "token-bucket"


PROBLEM_URL = "/problems/token-bucket/"


# Grading starts a container per submission; on a busy two-core machine that can take a while.
GRADING_TIMEOUT_MS = 180_000


def log_in(page: Page, platform: Platform) -> None:
    """Opens the problem, is sent to the login form, and comes back to the problem."""
    page.goto(PROBLEM_URL)
    page.fill("input[name=username]", "candidate")
    page.fill("input[name=password]", platform.password)
    page.click("form.login-form button[type=submit]")
    expect(page).to_have_url(platform.base_url + PROBLEM_URL)
    expect(page.locator("#problem")).to_have_attribute("data-ready", "true")
