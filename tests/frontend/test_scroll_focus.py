"""Scrolling tables and code blocks take focus (issue 40.1, axe's scrollable-region-focusable),
also when a page's own script puts them in after the load (a report that fills in when grading
ends): frontend/static/frontend/nav.js, in chromium at phone width."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

pytestmark = pytest.mark.e2e

NAV = Path(__file__).resolve().parents[2] / "frontend" / "static" / "frontend" / "nav.js"
ORIGIN = "http://scroll.test"
PAGE = """<!doctype html><html lang="en"><body><main id="main" class="site-main">
<h1>Report</h1><pre>print("loaded with the page")</pre><div id="later"></div></main>
<script src="/nav.js"></script></body></html>"""
WIDE_ROWS = "".join(f"<td>column {i} with a long heading</td>" for i in range(12))


def test_a_table_or_code_block_added_after_the_load_takes_focus_too(browser: Browser) -> None:
    context = browser.new_context(base_url=ORIGIN, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.route(f"{ORIGIN}/", lambda route: route.fulfill(body=PAGE, content_type="text/html"))
    page.route(f"{ORIGIN}/nav.js", lambda route: route.fulfill(
        body=NAV.read_text(), content_type="text/javascript"))
    try:
        page.goto("/")
        expect(page.locator("main > pre")).to_have_attribute("tabindex", "0")
        page.evaluate(
            """rows => { document.getElementById("later").innerHTML =
                 '<section><table><tr>' + rows + '</tr></table><pre>late()</pre></section>'; }""",
            WIDE_ROWS,
        )
        table = page.locator("#later table")
        expect(table).to_have_attribute("tabindex", "0")
        expect(table).to_have_attribute("aria-label", "Table 1")
        expect(page.locator("#later pre")).to_have_attribute("tabindex", "0")
        expect(page.locator("#later pre")).to_have_attribute("aria-label", "Code block 2")
        # A table put straight in (the node added is the table itself) too.
        page.evaluate("""() => { const t = document.createElement("table");
            t.id = "bare"; t.innerHTML = "<tr><td>x</td></tr>";
            document.querySelector("main").appendChild(t); }""")
        expect(page.locator("#bare")).to_have_attribute("tabindex", "0")
    finally:
        context.close()
