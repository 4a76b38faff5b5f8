// Talks to the grader: POST /api/submissions, then follows /ws/submissions/<id>/.
//
// Every result reaches the caller as a websocket-shaped event ({type: "status" | "test" |
// "progress" | "done", ...}, see docs/architecture.md), whether it came over the socket or,
// when the socket cannot be kept, from polling GET /api/submissions/<id>.
import { csrfToken } from "./dom.js";

// The server's cap on code size, from settings through the page (base.html): one place.
export function maxCodeBytes() {
  const value = Number(document.body?.dataset.maxCodeBytes);
  return Number.isFinite(value) && value > 0 ? value : Infinity;
}

// Close codes the server uses to refuse a socket: retrying cannot help with these.
const CLOSE_REASONS = {
  4401: "You are logged out. Log in again to see results.",
  4403: "You may not view this submission.",
  4404: "Submission not found.",
};
const RECONNECT_DELAYS_MS = [500, 1000, 2000, 4000];
const POLL_INTERVAL_MS = 1500;
const POLL_MAX_ATTEMPTS = 400;

export class GraderError extends Error {}

async function errorDetail(response) {
  try {
    const body = await response.json();
    if (body && typeof body.detail === "string") return body.detail;
  } catch {
    // Not JSON (a proxy error page): fall through to the status line.
  }
  return `The server answered ${response.status} ${response.statusText}.`;
}

/** A fresh Idempotency-Key (IETF draft): one per click, so a repeat of that click's request
 *  (a retry, a double submit that slipped past the disabled button) makes no second run. */
export function idempotencyKey() {
  if (window.crypto?.randomUUID) return window.crypto.randomUUID();
  const bytes = new Uint8Array(16);
  window.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Creates a submission and returns its id. Throws GraderError with a message to show. */
export async function submissionCreate({
  apiUrl, slug, code, mode, input, version, key = idempotencyKey(),
}) {
  const limit = maxCodeBytes();
  if (new TextEncoder().encode(code).length > limit) {
    throw new GraderError(`Your code is over ${Math.floor(limit / 1024)} KB; shorten it before running.`);
  }
  let response;
  try {
    response = await fetch(apiUrl, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-CSRFToken": csrfToken(),
        "Idempotency-Key": key,
      },
      credentials: "same-origin",
      // `input` only for a custom run (the server ignores it otherwise).
      // `version` only on an author's try-out of one version (the studio's candidate view).
      body: JSON.stringify({
        problem: slug,
        code,
        mode,
        ...(mode === "custom" ? { input } : {}),
        ...(version ? { version: Number(version) } : {}),
      }),
    });
  } catch {
    throw new GraderError("Could not reach the server. Check your connection and try again.");
  }
  if (response.status !== 201) throw new GraderError(await errorDetail(response));
  const body = await response.json();
  return body.id;
}

/**
 * JSON.parse, but tolerant of the bare NaN / Infinity / -Infinity tokens that Python's json
 * module writes by default (outputs may legitimately contain them). They become strings, found
 * by a scan that skips string literals so a "NaN" inside a string is left alone.
 */
export function parseLooseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    // Fall through to the tolerant scan.
  }
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (ch === "\\") {
        out += text[i + 1] ?? "";
        i += 1;
      } else if (ch === '"') {
        inString = false;
      }
      continue;
    }
    if (ch === '"') inString = true;
    const token = ["-Infinity", "Infinity", "NaN"].find((word) => text.startsWith(word, i));
    if (token) {
      out += `"${token}"`;
      i += token.length - 1;
    } else {
      out += ch;
    }
  }
  return JSON.parse(out);
}

/** Turns the REST view of a submission into the events the socket would have sent. */
function eventsFromSnapshot(snapshot) {
  const events = [];
  for (const test of snapshot.tests || []) {
    if (!test.hidden) events.push({ type: "test", ...test });
  }
  const finished = snapshot.status === "done" || snapshot.status === "failed";
  if (snapshot.status === "done") {
    events.push({
      type: "done",
      verdict: snapshot.verdict,
      passed: snapshot.passed,
      total: snapshot.total,
      score: snapshot.score,
      by_tag: snapshot.by_tag || {},
      by_group: snapshot.by_group || {},
      worst_by_tag: snapshot.worst_by_tag || {},
      worst_by_group: snapshot.worst_by_group || {},
      group_rules: snapshot.group_rules || {},
      rules_line: snapshot.rules_line || "",
      verdict_text: snapshot.verdict_text || null,
    });
  } else {
    events.push({
      type: "status",
      status: snapshot.status,
      message: snapshot.message || "",
      queue: snapshot.queue || null,
    });
  }
  return { events, finished };
}

/**
 * Follows one submission until it is done or failed, or until `stop()` is called.
 *
 * The server replays what it already knows on every connect, so reconnecting after a dropped
 * socket loses nothing; the renderer is idempotent per test index, so a replayed test simply
 * rewrites its own row. After a few failed reconnects it falls back to polling the REST API.
 */
export function submissionFollow({ id, apiUrl, onEvent, onError }) {
  let stopped = false;
  let finished = false;
  let socket = null;
  let attempt = 0;
  let timer = null;

  const finish = () => {
    finished = true;
    if (socket) socket.close(1000);
  };

  const deliver = (event) => {
    if (stopped) return;
    onEvent(event);
    if (event.type === "done" || (event.type === "status" && event.status === "failed")) {
      finish();
    }
  };

  const poll = async (left) => {
    if (stopped || finished) return;
    try {
      const response = await fetch(`${apiUrl}/${id}`, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (response.ok) {
        const { events, finished: over } = eventsFromSnapshot(
          parseLooseJson(await response.text()),
        );
        events.forEach(deliver);
        if (over) return;
      } else if (response.status === 403 || response.status === 404) {
        onError(await errorDetail(response));
        return;
      }
    } catch {
      // Network blip: keep polling.
    }
    if (left > 0) timer = setTimeout(() => poll(left - 1), POLL_INTERVAL_MS);
    else onError("Lost contact with the grader. Reload the page to see the result.");
  };

  const connect = () => {
    if (stopped || finished) return;
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${window.location.host}/ws/submissions/${id}/`);
    socket.addEventListener("open", () => {
      attempt = 0;
    });
    socket.addEventListener("message", (message) => {
      let event;
      try {
        event = parseLooseJson(message.data);
      } catch {
        return; // Not ours; ignore rather than break the panel.
      }
      deliver(event);
    });
    socket.addEventListener("close", (close) => {
      socket = null;
      if (stopped || finished) return;
      if (close.code in CLOSE_REASONS) {
        onError(CLOSE_REASONS[close.code]);
        return;
      }
      if (attempt < RECONNECT_DELAYS_MS.length) {
        timer = setTimeout(connect, RECONNECT_DELAYS_MS[attempt]);
        attempt += 1;
      } else {
        poll(POLL_MAX_ATTEMPTS);
      }
    });
  };

  connect();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      if (socket) socket.close(1000);
    },
  };
}
