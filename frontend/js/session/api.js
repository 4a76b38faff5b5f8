// Small JSON helpers for the session endpoints (same-origin, CSRF-protected POSTs).
import { csrfToken } from "../dom.js";

export class ApiError extends Error {}

/** POSTs `body` as JSON; resolves the JSON answer or throws ApiError with the server's reason. */
export async function postJson(url, body = {}, { keepalive = false, headers = {} } = {}) {
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      keepalive,
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-CSRFToken": csrfToken(),
        ...headers,
      },
      body: JSON.stringify(body),
    });
  } catch {
    throw new ApiError("Could not reach the server. Check your connection and try again.");
  }
  let answer = {};
  try {
    answer = await response.json();
  } catch {
    // Not JSON (a proxy's error page): the status line says enough.
  }
  if (!response.ok) {
    throw new ApiError(answer.detail || `The server answered ${response.status}.`);
  }
  return answer;
}

export async function getJson(url) {
  const response = await fetch(url, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
  });
  if (!response.ok) throw new ApiError(`The server answered ${response.status}.`);
  return response.json();
}
