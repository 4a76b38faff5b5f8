"""Colour is never the only signal in the results panel (issue 40.4), in a real browser against
the scripted grader: every verdict, state and rule the panel colours carries words too
(tests/e2e/a11y.py COLOURED, the same check as the server's pages in
tests/e2e/test_colour_signals.py), the occupancy plot's legend names each entry in words and
gives marks of one colour different shapes; a planted wordless verdict is caught.

Screenshots: var/screenshots/results-colour-{1440,390}.png.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.a11y import colour_only
from tests.frontend.fakes import FakeGrader, public_test, send, wait_for_sockets
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

EVIDENCE = {"group": "correctness", "capacity": 2, "occupancy": [2, 3, 2],
            "oracle_occupancy": [2, 2, 1], "baseline_occupancy": [2, 2, 2, 1],
            "first_violation_step": 1,
            "rules": {"capacity": "step 1: 3 in a call of 2", "tokens": None}}  # fmt: skip

SWATCHES = """() => [...document.querySelectorAll(".plot-legend li")].map((item) => {
  const swatch = getComputedStyle(item.querySelector(".plot-swatch"));
  return { text: item.textContent.trim(), colour: swatch.backgroundColor,
           shape: [swatch.width, swatch.height, swatch.backgroundImage].join(" ") };
})"""


def test_verdicts_rules_and_the_plot_legend_carry_words_and_shapes(
    page: Page, grader: FakeGrader
) -> None:
    page.click("#run-button")
    ws = wait_for_sockets(page, grader, 1)
    send(ws, type="status", status="running")
    ws.send(json.dumps(public_test(0, "over capacity", "WA", evidence=EVIDENCE,
                                   message="capacity broken at step 1")))  # fmt: skip
    ws.send(json.dumps(public_test(1, "burst", "AC", input={"ops": [1]}, expected=[True])))
    ws.send(json.dumps(public_test(2, "slow", "TLE", input={"ops": [2]})))
    ws.send(json.dumps(public_test(3, "crash", "RE", input={"ops": [3]})))
    send(ws, type="done", verdict="WA", passed=1, total=4, score=0.25,
         by_tag={"correctness": [1, 4]})  # fmt: skip
    expect(page.locator("#result-summary")).to_contain_text("passed 1 of 4")
    expect(page.locator(".occupancy-plot")).to_be_visible()  # a failed test's details open

    checked, unsaid = colour_only(page)
    assert unsaid == [], "\n".join(unsaid)
    for selector in (".verdict", ".plot-legend li", ".rule-broken", ".rule-held"):
        assert checked.get(selector, 0) > 0, (selector, checked)

    legend = page.evaluate(SWATCHES)
    assert [entry["text"] for entry in legend] == [
        "engine", "statement's schedule", "static batching", "above capacity 2",
        "first violation (step 1)",
    ]  # fmt: skip
    # Two entries of one colour (above capacity, the first violation) differ in shape.
    for i, one in enumerate(legend):
        for other in legend[i + 1 :]:
            assert (one["colour"], one["shape"]) != (other["colour"], other["shape"]), legend

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator(".occupancy-plot").screenshot(
            path=str(SCREENSHOTS / f"results-colour-{width}.png")
        )

    # The check is not vacuous: a verdict that says nothing but its colour is caught.
    page.evaluate(
        """() => {
          const planted = document.createElement("span");
          planted.className = "verdict verdict-WA planted";
          document.querySelector("#results").append(planted);
        }"""
    )
    _, unsaid = colour_only(page)
    assert len(unsaid) == 1 and "planted" in unsaid[0], unsaid
