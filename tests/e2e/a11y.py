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
