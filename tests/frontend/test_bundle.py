"""The editor bundle in a real browser, against a scripted grader.

The page is the real problem template rendered by Django; the REST API and the websocket are
played by Playwright routes, so each test decides exactly which events arrive and when. The
whole platform (daphne, celery, Docker) is exercised by tests/e2e instead.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.frontend.fakes import (
    STARTER,
    FakeGrader,
    public_test,
    send,
    wait_for_sockets,
)

pytestmark = pytest.mark.e2e


def test_editor_mounts_with_the_starter_code_and_keeps_the_draft_across_a_reload(
    page: Page,
) -> None:
    assert page.evaluate("window.onsiteEditor.getCode()") == STARTER
    expect(page.locator("#editor .cm-content")).to_contain_text("class TokenBucket:")

    page.evaluate("window.onsiteEditor.setCode('print(42)\\n')")
    page.reload()
    expect(page.locator("#problem")).to_have_attribute("data-ready", "true")

    assert page.evaluate("window.onsiteEditor.getCode()") == "print(42)\n"


def test_run_posts_the_code_and_renders_each_test_as_it_arrives(
    page: Page, grader: FakeGrader
) -> None:
    page.evaluate("window.onsiteEditor.setCode('x = 1\\n')")

    page.click("#run-button")
    ws = wait_for_sockets(page, grader, 1)
    send(ws, type="status", status="running")
    ws.send(json.dumps(public_test(0, "burst", "AC", input={"ops": [1]}, expected=[True])))

    expect(page.locator("tbody.test")).to_have_count(1)
    expect(page.locator("#run-button")).to_be_disabled()
    expect(page.locator("#results")).to_have_attribute("data-state", "running")

    # The grader sends detail fields as text it serialised itself: shown verbatim.
    ws.send(json.dumps(public_test(1, "refill", "WA", input='{"init": [3, 1]}', expected="[1]",
                                   output="[2]", stdout="dbg\n")))  # fmt: skip
    send(ws, type="done", verdict="WA", passed=1, total=2, score=0.5,
         by_tag={"correctness": [1, 2]})  # fmt: skip

    expect(page.locator("#result-summary")).to_contain_text("passed 1 of 2")
    expect(page.locator("tbody.test .test-name")).to_have_text(["burst", "refill"])
    expect(page.locator("tbody.test .verdict")).to_have_text(["AC", "WA"])
    expect(page.locator("tbody.test[data-index='1'] .test-detail-list pre")).to_have_text(
        ['{"init": [3, 1]}', "[1]", "[2]"]
    )
    # What the test printed is visible under its row without unfolding anything.
    expect(page.locator("tbody.test[data-index='1'] .test-stdout .stdout-text")).to_be_visible()
    expect(page.locator("tbody.test[data-index='1'] .stdout-text")).to_have_text("dbg\n")
    expect(page.locator("#run-button")).to_be_enabled()
    assert grader.posts == [{"problem": "token-bucket", "code": "x = 1\n", "mode": "run"}]
    assert grader.csrf_headers == ["csrf-abc"]


def test_candidate_output_is_shown_as_text_never_as_html(page: Page, grader: FakeGrader) -> None:
    payload = '<img src=x onerror="window.owned=1"><b>bold</b>'

    def script(ws: WebSocketRoute, _: int) -> None:
        ws.send(json.dumps(public_test(0, "<i>name</i>", "WA", output=payload, error=payload)))
        send(ws, type="done", verdict="WA", passed=0, total=1, score=0.0, by_tag={})

    grader.on_connect = script

    page.click("#run-button")

    expect(page.locator("#result-summary")).to_contain_text("passed 0 of 1")
    expect(page.locator("tbody.test .test-name")).to_have_text("<i>name</i>")
    expect(page.locator(".test-detail-list")).to_contain_text(payload)
    assert page.locator("#results img, #results b, #results i").count() == 0
    assert page.evaluate("window.owned") is None


def test_tests_arriving_out_of_order_or_replayed_keep_one_row_each_in_order(
    page: Page, grader: FakeGrader
) -> None:
    def script(ws: WebSocketRoute, _: int) -> None:
        for index in (2, 0, 1, 0, 2):  # a replay after reconnect repeats finished tests
            ws.send(json.dumps(public_test(index, f"t{index}", "AC")))
        send(ws, type="done", verdict="AC", passed=3, total=3, score=1.0, by_tag={})

    grader.on_connect = script

    page.click("#run-button")

    expect(page.locator("#result-summary")).to_contain_text("passed 3 of 3")
    expect(page.locator("tbody.test .test-name")).to_have_text(["t0", "t1", "t2"])


def test_submit_shows_hidden_progress_and_the_aggregate_but_no_hidden_test(
    page: Page, grader: FakeGrader
) -> None:
    def script(ws: WebSocketRoute, _: int) -> None:
        ws.send(json.dumps(public_test(0, "public one", "AC")))
        # A staff-shaped hidden event must still not be itemised on the candidate page.
        ws.send(json.dumps(public_test(1, "SECRET-hidden-name", "WA", input="SECRET-input")
                           | {"hidden": True}))  # fmt: skip
        send(ws, type="progress", done=2, total=5)
        send(ws, type="done", verdict="WA", passed=3, total=5, score=0.6,
             by_tag={"correctness": [2, 3], "edge_cases": [1, 2]})  # fmt: skip

    grader.on_connect = script

    page.click("#submit-button")

    expect(page.locator("#result-summary")).to_contain_text("passed 3 of 5")
    expect(page.locator("#result-summary [data-tag=edge_cases]")).to_have_text(
        "edge cases: passed 1 of 2"
    )
    expect(page.locator("#result-progress")).to_have_text("Hidden tests: 2 of 5 finished")
    expect(page.locator("tbody.test")).to_have_count(1)
    assert "SECRET" not in page.content()
    assert grader.posts[-1]["mode"] == "submit"


def test_a_retrying_grader_is_announced(page: Page, grader: FakeGrader) -> None:
    grader.on_connect = lambda ws, _: send(
        ws, type="status", status="retrying", message="grader unavailable, retrying"
    )

    page.click("#run-button")

    expect(page.locator("#result-status")).to_have_text("grader unavailable, retrying")
    expect(page.locator("#result-status")).to_have_class("result-status error")


def test_a_refused_socket_says_why_and_frees_the_buttons(page: Page, grader: FakeGrader) -> None:
    grader.on_connect = lambda ws, _: ws.close(code=4401, reason="login required")

    page.click("#run-button")

    expect(page.locator("#result-status")).to_contain_text("logged out")
    expect(page.locator("#run-button")).to_be_enabled()


def test_a_dropped_socket_reconnects_and_finishes_from_the_replay(
    page: Page, grader: FakeGrader
) -> None:
    def script(ws: WebSocketRoute, connection: int) -> None:
        ws.send(json.dumps(public_test(0, "first", "AC")))
        if connection == 1:
            ws.close(code=1011, reason="server restarting")
            return
        ws.send(json.dumps(public_test(1, "second", "AC")))
        send(ws, type="done", verdict="AC", passed=2, total=2, score=1.0, by_tag={})

    grader.on_connect = script

    page.click("#run-button")

    expect(page.locator("#result-summary")).to_contain_text("passed 2 of 2")
    expect(page.locator("tbody.test .test-name")).to_have_text(["first", "second"])
    assert len(grader.sockets) == 2


def test_a_rejected_submission_shows_the_servers_reason(page: Page, grader: FakeGrader) -> None:
    grader.create_status = 400
    grader.create_body = {"detail": "code is over 64 KB"}

    page.click("#submit-button")

    expect(page.locator("#result-status")).to_have_text("code is over 64 KB")
    expect(page.locator("#submit-button")).to_be_enabled()
    assert grader.sockets == []


def test_code_over_64_kb_is_refused_before_it_is_sent(page: Page, grader: FakeGrader) -> None:
    page.evaluate("window.onsiteEditor.setCode('#'.repeat(64 * 1024 + 1))")

    page.click("#run-button")

    expect(page.locator("#result-status")).to_contain_text("over 64 KB")
    assert grader.posts == []


def test_hints_are_revealed_one_at_a_time_with_htmx(page: Page) -> None:
    page.click("text=Show hint 1 of 2")

    expect(page.locator(".hint[data-hint='1']")).to_have_text("Hint number 1")


def test_checker_evidence_is_plotted_as_occupancy_per_step(page: Page, grader: FakeGrader) -> None:
    page.click("#run-button")
    ws = wait_for_sockets(page, grader, 1)
    evidence = {
        "group": "throughput",
        "capacity": 4,
        "occupancy": [4, 4, 3, 4, 2],
        "baseline_occupancy": [4, 3, 2, 1, 4, 2, 1],
    }
    message = "throughput ratio 1.10 is below 0.7 x ideal"
    ws.send(json.dumps(public_test(0, "static", "WA", evidence=evidence, message=message)))
    plot = page.locator("tbody.test[data-index='0'] .occupancy-plot")
    expect(plot).to_have_count(1)
    expect(plot.locator("polyline")).to_have_count(2)
    expect(plot.locator("figcaption")).to_contain_text("engine: 5 steps")
    expect(plot.locator("figcaption")).to_contain_text("static batching: 7 steps")


def test_done_lists_pass_counts_per_group(page: Page, grader: FakeGrader) -> None:
    page.click("#submit-button")
    ws = wait_for_sockets(page, grader, 1)
    send(ws, type="done", verdict="WA", passed=5, total=7, score=0.71,
         by_tag={"correctness": [3, 4], "performance": [2, 3]},
         by_group={"capacity": [2, 2], "work conservation": [1, 3]})  # fmt: skip
    groups = page.locator("#result-summary .by-group li")
    expect(groups).to_have_text(["capacity: passed 2 of 2", "work conservation: passed 1 of 3"])


def test_rows_show_cpu_time_against_its_limit_and_tests_not_run(
    page: Page, grader: FakeGrader
) -> None:
    page.click("#run-button")
    ws = wait_for_sockets(page, grader, 1)
    slow = public_test(0, "burst", "TLE", message="time limit exceeded (CPU)")
    slow |= {"cpu_ms": 2004.2, "time_ms": 2310.0}
    fast = public_test(1, "refill", "AC") | {"cpu_ms": 3.14, "time_ms": 4.2}
    # Replayed out of order: the not-run row still lands last.
    skipped = public_test(2, "idle", "", message="not run (stopped after a time limit)")
    skipped |= {"cpu_ms": 0.0, "time_ms": 0.0}
    for event in (slow, skipped, fast):
        ws.send(json.dumps(event))
    send(ws, type="done", verdict="TLE", passed=1, total=3, score=0.33, by_tag={})

    expect(page.locator("#result-summary")).to_contain_text("passed 1 of 3")
    expect(page.locator("tbody.test .test-time")).to_have_text([
        "CPU 2.00 s / 2 s limit · wall 2.3 s",
        "CPU 3.1 ms / 2 s limit · wall 4.2 ms",
        "not run (stopped after a time limit)",
    ])  # fmt: skip
    expect(page.locator("tbody.test .verdict")).to_have_text(["TLE", "AC", "not run"])
    expect(page.locator("tbody.test[data-index='2'] .verdict")).to_have_class(
        "verdict verdict-not-run"
    )
