"""The accessibility audit of the browser tests (issue 40.1): axe-core, served by the site
itself (frontend/build.mjs copies node_modules/axe-core/axe.min.js to /static/frontend/), run
in the page under test.

`audit(page, name)` returns one line per problem: every serious or critical violation, and
every minor or moderate one that `a11y_accepted.json` does not accept on that page (rule id ->
the pages, as the audit names them, and the reason). A serious or critical rule can never be
accepted there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE_URL = "/static/frontend/axe.min.js"
ACCEPTED_FILE = Path(__file__).resolve().parent / "a11y_accepted.json"
BLOCKING = frozenset({"serious", "critical"})
# WCAG 2.0, 2.1 and 2.2, levels A and AA, and axe's best practices.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa", "best-practice"]

RUN = """async (tags) => {
  // Colours part way through a transition (a page that follows the colour scheme just
  // switched, as the admin's links do) are neither scheme's: audited once they have settled.
  await Promise.all(document.getAnimations()
    .filter((animation) => animation instanceof CSSTransition)
    .map((animation) => animation.finished.catch(() => null)));
  const results = await window.axe.run(document, {
    runOnly: { type: "tag", values: tags },
    resultTypes: ["violations"],
  });
  return results.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => n.target.join(" ")),
    summary: v.nodes.length ? v.nodes[0].failureSummary : "",
  }));
}"""


def accepted() -> dict[str, dict[str, Any]]:
    """The accepted minor or moderate rules: each with the pages it is accepted on, and why."""
    table: dict[str, dict[str, Any]] = json.loads(ACCEPTED_FILE.read_text())
    return table


def violations(page: Page) -> list[dict[str, Any]]:
    """axe's violations on the page as it is now (axe is loaded once per document)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(url=AXE_URL)
    found: list[dict[str, Any]] = page.evaluate(RUN, TAGS)
    return found


def audit(page: Page, name: str) -> list[str]:
    """What fails the audit on the page, one line each (empty when it passes)."""
    allowed = accepted()
    problems = []
    for violation in violations(page):
        where = name.split(" @")[0]
        entry = allowed.get(violation["id"], {})
        if violation["impact"] in BLOCKING or where not in entry.get("pages", []):
            nodes = violation["nodes"]
            problems.append(
                f"{name}: {violation['impact']} {violation['id']} ({violation['help']}) on "
                f"{len(nodes)} node(s): {'; '.join(nodes[:4])}; first: {violation['summary']}"
            )
    return problems


# Issue 40.4, colour is never the only signal: the classes the stylesheets colour to say
# something (a verdict, a state, a level, a notice), each of which must carry words too (its
# text, visually hidden or not, or an aria-label); the plot's legend entries and the board's
# notices likewise. Decorative copies (aria-hidden, such as the replay's timeline ticks, whose
# list says the same in words) are not signals of their own.
COLOURED = [
    ".verdict", ".status", ".status-mark", ".difficulty", ".kind-badge", ".badge",
    ".level-badge", ".state", ".rec", ".chip-bad", ".tag-count", ".suggestion-badge",
    ".connection", ".session-banner", ".board-notice", ".board-alert", ".plot-legend li",
    ".mark-item", ".diff-add", ".diff-del", ".result-status", ".rule-broken", ".rule-held",
]  # fmt: skip

UNSAID = """(selectors) => {
  const words = (el) => (el.textContent || "").replace(/\\s+/g, " ").trim()
    || (el.getAttribute("aria-label") || "").trim();
  const found = { checked: {}, unsaid: [] };
  for (const selector of selectors) {
    for (const el of document.querySelectorAll(selector)) {
      // Not shown at all (a notice with nothing to say is hidden), or a decorative copy.
      if (el.closest("[hidden], template, [aria-hidden=true]")) continue;
      if (!el.getClientRects().length && !el.closest("details:not([open])")) continue;
      found.checked[selector] = (found.checked[selector] || 0) + 1;
      if (!words(el)) found.unsaid.push(`${selector}: ${el.outerHTML.slice(0, 200)}`);
    }
  }
  return found;
}"""


def colour_only(page: Page) -> tuple[dict[str, int], list[str]]:
    """The coloured signals on the page as it is now: how many of each were checked, and
    those that say nothing but their colour (one line each)."""
    found: dict[str, Any] = page.evaluate(UNSAID, COLOURED)
    return found["checked"], found["unsaid"]
