"""The Content-Security-Policy (core/csp.py) as a browser test sees it.

Every page a browser test opens reports what the policy refused: chromium's own "Refused to …"
console errors, and `CSP_LISTENER`'s line for each `securitypolicyviolation` event (it also
catches what chromium only counts, not logs). The autouse `csp_guard` fixture (tests/conftest.py)
watches every context a test's browser opens and fails the test on any violation; the scripted
pages of tests/frontend are served with the real header (`csp_headers`), so the same guard holds
there as on the real platform of tests/e2e.
"""

from __future__ import annotations

from django.test import RequestFactory
from playwright.sync_api import BrowserContext

from core.csp import HEADER, policy_build

# The nonce a scripted page is rendered with (its meta tag) and served under (its header).
NONCE = "scripted-page-nonce"

CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.effectiveDirective} refused ${event.blockedURI || "inline"}`
    + ` (${event.sourceFile || document.location.pathname}:${event.lineNumber})`
    + (event.sample ? ` ${event.sample}` : ""));
});
"""


def csp_violation(text: str) -> bool:
    return text.startswith("CSP violation:") or "Content Security Policy" in text


def csp_headers() -> dict[str, str]:
    """The header the site sends with a page rendered with `csp_nonce = NONCE`."""
    return {HEADER: policy_build(RequestFactory().get("/"), nonce=NONCE)}


class CspGuard:
    """Watches every context the test's browser opens; what the policy refused, in order."""

    def __init__(self) -> None:
        self.violations: list[str] = []

    def watch(self, context: BrowserContext) -> BrowserContext:
        context.add_init_script(CSP_LISTENER)
        context.on("console", lambda message: self._console(message.text))
        return context

    def _console(self, text: str) -> None:
        if csp_violation(text):
            self.violations.append(text)

    def take(self) -> list[str]:
        """The violations so far, forgotten (for a test that provokes some on purpose)."""
        taken, self.violations = self.violations, []
        return taken
