"""What a screen reader hears of a run (issue 40.3), in a real browser against the scripted
grader: each finished test once, politely, and the verdict once, in a live region of their own
(the results table itself is not a live region: announcing it at each change would drown the
rest)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.frontend.fakes import FakeGrader, public_test, send, wait_for_sockets

pytestmark = pytest.mark.e2e


def test_each_finished_test_is_announced_politely_and_the_verdict_once(
    page: Page, grader: FakeGrader
) -> None:
    live = page.locator("[data-results-live]")
    expect(live).to_have_attribute("aria-live", "polite")
    assert page.locator("#results").get_attribute("aria-live") is None

    page.click("#run-button")
    ws = wait_for_sockets(page, grader, 1)
    send(ws, type="status", status="running")
    ws.send(json.dumps(public_test(0, "burst", "AC", input={"ops": [1]}, expected=[True])))
    expect(live.locator("p")).to_have_text(["Test 1, burst: Accepted."])
    ws.send(json.dumps(public_test(1, "refill", "WA", input={"ops": [2]}, expected=[1])))
    # A replayed event (a reconnect sends what was missed) is not said twice.
    ws.send(json.dumps(public_test(1, "refill", "WA", input={"ops": [2]}, expected=[1])))
    send(ws, type="done", verdict="WA", passed=1, total=2, score=0.5,
         by_tag={"correctness": [1, 2]})  # fmt: skip
    send(ws, type="done", verdict="WA", passed=1, total=2, score=0.5,
         by_tag={"correctness": [1, 2]})  # fmt: skip
    expect(page.locator("#result-summary")).to_contain_text("passed 1 of 2")
    expect(live.locator("p")).to_have_text([
        "Test 1, burst: Accepted.",
        "Test 2, refill: Wrong answer.",
        "Verdict: Wrong answer, passed 1 of 2.",
    ])  # fmt: skip

    # A new run starts a new account of what happened.
    page.click("#run-button")
    expect(live.locator("p")).to_have_count(0)
