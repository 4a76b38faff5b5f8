// Small DOM helpers shared by every bundle. Text goes in with textContent, never as markup.

/** A new element with an optional class, text and attributes. */
export function element(tag, { className, text, attrs } = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = String(text);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
  return node;
}

/** The CSRF token: the `csrftoken` cookie, else the form token the page rendered. */
export function csrfToken() {
  for (const part of document.cookie.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === "csrftoken") return decodeURIComponent(rest.join("="));
  }
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

/**
 * Empties a box once what was sent from it is stored, unless the person typed on meanwhile
 * (a slow answer must not wipe the next question, note or message being written): the box is
 * cleared only while it still holds exactly what `sent` was read from.
 */
export function clearIfUnchanged(input, sent) {
  if (input && input.value.trim() === sent) input.value = "";
}

// An ISO time as the viewer's own clock shows it (HH:MM, 24 h); "" for a time it cannot read.
export function clock(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? ""
    : date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}
