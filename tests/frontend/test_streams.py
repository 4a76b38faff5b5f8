"""stdout and stderr in the order they were written (issue 36): a test's rows and a custom
run's box follow the harness's ordered `streams`; without them, stdout then stderr. The real
bundle in chromium; the grader's websocket is scripted (the
fixtures of tests/frontend/conftest.py)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.frontend.fakes import FakeGrader, public_test, send, wait_for_sockets
from tests.processes import SCREENSHOTS

pytestmark = pytest.mark.e2e

STREAMS = [["stdout", "out1\n"], ["stderr", "err2\n"], ["stdout", "out3\n"], ["stderr", "err4\n"]]


def test_a_tests_rows_follow_the_order_the_streams_were_written_in(
    page: Page,
    grader: FakeGrader,
) -> None:
    page.click("#run-button")
    ws = wait_for_sockets(page, grader, 1)
    ws.send(
        json.dumps(
            public_test(
                0, "ordered", "AC", stdout="out1\nout3\n", stderr="err2\nerr4\n", streams=STREAMS
            )
        )
    )
    ws.send(json.dumps(public_test(1, "apart", "AC", stdout="a\n", stderr="b\n")))
    ordered = page.locator("tbody.test[data-index='0'] .test-stream")
    expect(ordered.locator(".stream-label")).to_have_text(["stdout", "stderr", "stdout", "stderr"])
    expect(ordered.locator(".stream-text")).to_have_text(["out1\n", "err2\n", "out3\n", "err4\n"])
    # An older result without the order: stdout, then stderr, as before.
    apart = page.locator("tbody.test[data-index='1'] .test-stream")
    expect(apart.locator(".stream-label")).to_have_text(["stdout", "stderr"])
    # The ordered pieces are not repeated among the test's other details.
    expect(
        page.locator("tbody.test[data-index='0'] .test-detail-list dt", has_text="streams")
    ).to_have_count(0)


def test_a_custom_run_that_wrote_to_both_streams_shows_them_in_one_box_in_order(
    page: Page,
    grader: FakeGrader,
) -> None:
    def script(ws: WebSocketRoute, _: int) -> None:
        ws.send(
            json.dumps(
                public_test(
                    0,
                    "custom input",
                    "AC",
                    output="3",
                    stdout="out1\nout3\n",
                    stderr="err2\nerr4\n",
                    streams=STREAMS,
                )
            )
        )
        send(ws, type="done", verdict="AC", passed=1, total=1, score=1.0, by_tag={})

    grader.on_connect = script
    page.click("#tab-custom")
    page.click("#custom-run-button")
    box = page.locator("#custom-output .interleaved")
    expect(box.locator(".output-label")).to_have_text("Stdout and stderr, in the order printed")
    expect(box.locator(".stream-label")).to_have_text(["stdout", "stderr", "stdout", "stderr"])
    expect(box.locator(".output-text")).to_have_text(["out1\n", "err2\n", "out3\n", "err4\n"])
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        box.screenshot(path=str(SCREENSHOTS / "output" / f"custom-interleaved-{width}.png"))
