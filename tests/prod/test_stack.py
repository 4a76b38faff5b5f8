"""The production stack, really started (`make prod-test`): in order, as one story.

1. A candidate runs and submits through nginx over HTTPS (pages, API, wss events, the cpu
   workers grading in the host engine's sandbox); plain HTTP only redirects, pages carry HSTS
   and secure cookies, and /metrics through the proxy needs the token.
2. A live session with the interviewer on one web process and the candidate on the other: edits
   cross between the two processes only through Redis (the channel layer).
3. A cpu worker container is killed mid-grade: the other cpu worker grades the submission,
   exactly once.
4. Guessing a password through nginx is refused before the tenth try, until the lock is lifted.
5. The stack goes down and leaves no container behind.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import subprocess
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.prod.conftest import (
    PORTS,
    Stack,
    api,
    compose_containers,
    container_of,
    manage,
    stack_down,
    tls_context,
)

pytestmark = [pytest.mark.prod, pytest.mark.e2e, pytest.mark.docker, pytest.mark.slow]

PACKAGE = Path(__file__).resolve().parents[2] / "problems" / "bank" / "token-bucket"
GRADING_TIMEOUT_MS = 240_000
SYNC_TIMEOUT_MS = 60_000
STEP_TIMEOUT_MS = 120_000
expect.set_options(timeout=SYNC_TIMEOUT_MS)
# Every test builds a bucket: a pause in the constructor makes grading take tens of seconds,
# long enough to kill the worker in the middle, and stays well inside each test's wall limit.
SLOW_REFERENCE = (
    (PACKAGE / "reference.py")
    .read_text()
    .replace(
        "        self._capacity = float(capacity)",
        "        import time\n        time.sleep(0.7)\n        self._capacity = float(capacity)",
    )
)


def count(name: str) -> int:
    return len(json.loads((PACKAGE / "tests" / name).read_text()))


def wrong_solution() -> str:
    meta = tomllib.loads((PACKAGE / "problem.toml").read_text())
    first = next(w for w in meta["wrong"] if w["verdict"] == "WA")
    return (PACKAGE / first["file"]).read_text()


class People:
    """One browser context per person, with their page errors collected."""

    def __init__(self, browser: Browser, stack: Stack) -> None:
        self.browser, self.stack = browser, stack
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []
        self.sockets: list[str] = []  # every websocket a page opened

    def log_in(self, username: str, base_url: str, next_url: str) -> Page:
        # The stack's certificate is self-signed: the API calls verify it (tls_context); the
        # browser is told to accept it.
        context = self.browser.new_context(
            base_url=base_url, ignore_https_errors=True, viewport={"width": 1400, "height": 1000}
        )
        self.contexts.append(context)
        # A loaded host makes every step slow (a login hashes the password in full, unlike the
        # test settings): generous timeouts, never a timing assertion.
        context.set_default_timeout(STEP_TIMEOUT_MS)
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{username}: {error}"))
        page.on("websocket", lambda socket: self.sockets.append(socket.url))
        page.goto(f"/accounts/login/?next={next_url}")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", self.stack.password)
        page.click("form.login-form button[type=submit]")
        expect(page).to_have_url(base_url + next_url)
        return page


@pytest.fixture
def people(browser: Browser, stack: Stack) -> Iterator[People]:
    opened = People(browser, stack)
    yield opened
    for context in opened.contexts:
        context.close()
    assert opened.errors == [], f"uncaught errors in the pages: {opened.errors}"
    # Over TLS through nginx, websockets included.
    assert all(url.startswith("wss://") for url in opened.sockets), opened.sockets


def test_candidate_runs_and_submits_through_nginx(people: People, stack: Stack) -> None:
    public, total = count("public.json"), count("public.json") + count("hidden.json")
    page = people.log_in("candidate", stack.url, "/problems/token-bucket/")
    expect(page.locator("#problem")).to_have_attribute("data-ready", "true")

    reference = (PACKAGE / "reference.py").read_text()
    page.evaluate("code => window.onsiteEditor.setCode(code)", reference)
    page.click("#run-button")
    summary = page.locator("#result-summary")
    expect(summary).to_contain_text(f"passed {public} of {public}", timeout=GRADING_TIMEOUT_MS)
    expect(page.locator("tbody.test .verdict")).to_have_text(["AC"] * public)

    page.evaluate("code => window.onsiteEditor.setCode(code)", wrong_solution())
    page.click("#submit-button")
    expect(summary).to_contain_text(f" of {total}", timeout=GRADING_TIMEOUT_MS)
    expect(summary.locator(".verdict")).to_have_text("WA")
    page.screenshot(path="/tmp/onsite-prod-submit.png", full_page=True)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """(status, headers) of one GET, redirects not followed, the stack's certificate checked."""
    opener = urllib.request.build_opener(
        NoRedirect, urllib.request.HTTPSHandler(context=tls_context())
    )
    try:
        with opener.open(urllib.request.Request(url, headers=headers or {}), timeout=60) as answer:
            return answer.status, answer.headers
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers


def test_the_proxy_serves_https_only_and_keeps_the_metrics_private(stack: Stack) -> None:
    # Plain HTTP is only a redirect to HTTPS.
    status, headers = fetch(stack.http_url + "/accounts/login/?next=/")
    assert status == 301 and headers["Location"] == stack.url + "/accounts/login/?next=/"
    # Over HTTPS (the certificate verified): HSTS, and cookies only HTTPS carries.
    status, headers = fetch(stack.url + "/accounts/login/")
    assert status == 200 and "max-age=" in headers["Strict-Transport-Security"]
    cookies = headers.get_all("Set-Cookie")
    assert cookies and all("; Secure" in cookie for cookie in cookies), cookies
    # /metrics through the proxy without the token: refused, whatever the client claims.
    assert fetch(stack.url + "/metrics")[0] == 403
    assert fetch(stack.url + "/metrics", {"X-Forwarded-For": "127.0.0.1"})[0] == 403
    # A scraper on the web process's own host, talking to it directly (plain HTTP: /metrics is
    # exempt from the redirect), still reads them.
    scrape = (
        "import urllib.request as u; "
        f"print(u.urlopen('http://127.0.0.1:{PORTS['web-direct']}/metrics', timeout=30).status)"
    )
    done = subprocess.run(["docker", "exec", container_of("web"), "python", "-c", scrape],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.stdout.strip() == "200", done.stderr


def test_live_session_edits_cross_between_the_two_web_processes(
    people: People, stack: Stack
) -> None:
    web_1, web_2 = stack.web_urls
    interviewer = people.log_in("interviewer", web_1, "/sessions/")
    interviewer.select_option("#live-form select[name=problem]", "token-bucket")
    interviewer.fill("#live-form input[name=minutes]", "30")
    interviewer.fill("#live-form input[name=candidate]", "candidate")
    interviewer.check("#live-form input[name=interviewer_can_edit]")
    interviewer.click("#live-form button[type=submit]")
    expect(interviewer).to_have_url(re.compile(r"/sessions/\d+/$"))
    session_path = interviewer.url.removeprefix(web_1)
    invite_path = re.sub(r"^https?://[^/]+", "", interviewer.input_value("#invite-url"))
    expect(interviewer.locator("#session")).to_have_attribute(
        "data-ready", "true", timeout=SYNC_TIMEOUT_MS
    )

    # The candidate is on the other web process: nothing but Redis connects the two.
    candidate = people.log_in("candidate", web_2, "/sessions/")
    candidate.goto(invite_path)
    candidate.click("#join-form button[type=submit]")
    expect(candidate).to_have_url(web_2 + session_path)
    expect(candidate.locator("#session")).to_have_attribute(
        "data-ready", "true", timeout=SYNC_TIMEOUT_MS
    )
    expect(interviewer.locator("#session")).to_have_attribute(
        "data-status", "active", timeout=SYNC_TIMEOUT_MS
    )

    for writer, reader, line in (
        (candidate, interviewer, "# typed on web-2\n"),
        (interviewer, candidate, "# typed on web-1\n"),
    ):
        writer.click("#session-editor .cm-content")
        writer.keyboard.press("Control+End")
        writer.keyboard.type(line)
        expect(reader.locator("#session-editor .cm-content")).to_contain_text(
            line.strip(), timeout=SYNC_TIMEOUT_MS
        )
    code = "window.onsiteSession.getCode()"
    expect(candidate.locator("#session-editor .cm-content")).to_contain_text("# typed on web-1")
    # The last keystrokes may still be in flight: the two documents converge.
    wait(lambda: candidate.evaluate(code) == interviewer.evaluate(code), seconds=60,
         what="both pages to hold the same document")  # fmt: skip
    candidate.screenshot(path="/tmp/onsite-prod-session-candidate.png", full_page=True)


WORKERS = {"cpu-1": "worker-cpu", "cpu-2": "worker-cpu-2"}  # ONSITE_WORKER_NAME -> service


def grading_worker(sid: int) -> str | None:
    """The service whose worker is grading submission `sid` now (Celery's own view)."""
    done = subprocess.run(
        ["docker", "exec", container_of("worker-cpu"), "celery", "-A", "config", "inspect",
         "active", "--json", "--timeout", "10"],
        capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0 or not done.stdout.strip().startswith("{"):
        return None
    for node, tasks in json.loads(done.stdout).items():
        if any(task.get("args") == [sid] for task in tasks):
            return WORKERS.get(node.split("@", 1)[0])
    return None


def wait(predicate: Any, *, seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(1)
    raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}")


def test_worker_killed_mid_grade_is_graded_once_by_the_other(stack: Stack) -> None:
    total = count("public.json") + count("hidden.json")
    created: Any = api(
        stack,
        "POST",
        "/api/submissions",
        {"problem": "token-bucket", "code": SLOW_REFERENCE, "mode": "submit"},
    )
    sid = created["id"]

    def claimed_by() -> str | None:
        """The worker grading `sid`, once it holds the claim (status running), not before."""
        detail: Any = api(stack, "GET", f"/api/submissions/{sid}")
        return grading_worker(sid) if detail["status"] == "running" else None

    victim = wait(claimed_by, seconds=300, what=f"a cpu worker to start grading #{sid}")
    survivor = "worker-cpu-2" if victim == "worker-cpu" else "worker-cpu"
    subprocess.run(["docker", "kill", container_of(victim)], check=True, capture_output=True)

    done: Any = wait(
        lambda: (d := api(stack, "GET", f"/api/submissions/{sid}"))["status"] == "done" and d,
        seconds=420, what=f"#{sid} to be graded again",
    )  # fmt: skip
    assert done["verdict"] == "AC"
    assert done["passed"] == done["total"] == total
    assert len(done["tests"]) == count("public.json")  # one row per public test, not two
    # Claimed by the killed worker, then exactly once more (by the survivor: the only cpu
    # worker left), and one stored result per test.
    facts = manage(
        "web",
        "shell",
        "--verbosity",
        "0",
        "-c",
        (
            f"from grading.models import Submission as S; s = S.objects.get(pk={sid}); "
            "print(s.attempts, s.results.count())"
        ),
    )
    assert facts.splitlines()[-1].split() == ["2", str(total)]
    state = subprocess.run(
        ["docker", "inspect", "-f", "{{.State.Running}}", container_of(victim),
         container_of(survivor)],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert state == ["false", "true"]  # the killed one stayed down: the survivor graded it


def test_guessing_a_password_through_nginx_is_refused_until_the_lock_is_lifted(
    stack: Stack,
) -> None:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(
        NoRedirect, urllib.request.HTTPSHandler(context=tls_context()),
        urllib.request.HTTPCookieProcessor(jar),
    )  # fmt: skip
    login = stack.url + "/accounts/login/"

    def attempt(password: str) -> int:
        with opener.open(login, timeout=60) as page:
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.read().decode())
        assert token
        form = urllib.parse.urlencode(
            {
                "username": "interviewer",
                "password": password,
                "csrfmiddlewaretoken": token.group(1),
                "next": "/",
            }
        )
        request = urllib.request.Request(login, data=form.encode(), headers={"Referer": login})
        try:
            with opener.open(request, timeout=60) as answer:
                return answer.status
        except urllib.error.HTTPError as refused:
            return refused.code

    statuses: list[int] = []
    while len(statuses) < 9 and 429 not in statuses:
        statuses.append(attempt(f"guess-{len(statuses)}"))
    assert statuses[-1] == 429, statuses  # refused before the tenth
    assert attempt(stack.password) == 429  # the right password too, while locked
    manage("web", "axes_reset_username", "interviewer")
    manage("web", "axes_reset_ip", "127.0.0.1")  # the host's own address, seen through nginx
    assert attempt(stack.password) == 302


def test_stack_down_leaves_no_container() -> None:
    stack_down()
    assert compose_containers() == []
