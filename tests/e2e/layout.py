"""Page-fit helpers for the browser tests: viewport widths, a console watcher, a signed-in context
and the no-horizontal-overflow check."""

from __future__ import annotations

from dataclasses import dataclass, field

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.e2e.conftest import Platform

WIDTHS = {"desktop": (1440, 900), "phone": (390, 844)}


@dataclass
class Watch:
    """Console errors, uncaught exceptions and failed requests of one browser context."""

    problems: list[str] = field(default_factory=list)

    def attach(self, page: Page) -> None:
        page.on("pageerror", lambda error: self.problems.append(f"pageerror: {error}"))
        page.on(
            "console",
            lambda m: self.problems.append(f"console: {m.text}") if m.type == "error" else None,
        )
        page.on(
            "response",
            lambda r: self.problems.append(f"{r.status} {r.url}") if r.status >= 400 else None,
        )


def log_in(context: BrowserContext, platform: Platform, username: str) -> None:
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", platform.password)
    page.click("form.login-form button[type=submit]")
    expect(page.locator(".user-name")).to_contain_text(username)
    page.close()


def context_for(
    browser: Browser, platform: Platform, role: str, width: int, height: int
) -> BrowserContext:
    context = browser.new_context(
        base_url=platform.base_url, viewport={"width": width, "height": height}
    )
    if role != "anonymous":
        log_in(context, platform, role)
    return context


def assert_fits(page: Page, name: str, width: int) -> None:
    overflow = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    if overflow > 0:
        wide = page.evaluate(
            """(limit) => [...document.querySelectorAll('body *')]
                .filter((el) => el.getBoundingClientRect().right > limit + 1)
                .slice(0, 5).map((el) => el.tagName + '.' + el.className)""",
            width,
        )
        raise AssertionError(f"{name} at {width} px scrolls sideways by {overflow} px: {wide}")
