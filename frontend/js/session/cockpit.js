// The interviewer's cockpit (private notes, canned answers, hints to reveal) and the channels
// both sides share in a live session (chat, call link). Text from people goes in with
// textContent, never as markup.
import { ApiError, postJson } from "./api.js";
import { clearIfUnchanged, clock, element } from "../dom.js";

const failure = (error) =>
  error instanceof ApiError ? error.message : "Something went wrong.";

/** `<time class="local-time" datetime=ISO>`: the moment in the viewer's own time zone. */
export function localTimesRender(root = document) {
  for (const node of root.querySelectorAll("time.local-time[datetime]")) {
    const date = new Date(node.getAttribute("datetime"));
    if (Number.isNaN(date.getTime())) continue;
    node.textContent = date.toLocaleString([], {
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    });
  }
  for (const node of root.querySelectorAll("time.local-clock[datetime]")) {
    node.textContent = clock(node.getAttribute("datetime"));
  }
}

/** Copy buttons: `data-copy` names the input whose value goes to the clipboard. */
export function copyButtonsMount(root = document) {
  for (const button of root.querySelectorAll("button[data-copy]")) {
    const status = button.parentElement.querySelector(".copy-status");
    button.addEventListener("click", async () => {
      const input = document.querySelector(button.dataset.copy);
      if (!input) return;
      try {
        await navigator.clipboard.writeText(input.value);
      } catch {
        // No clipboard permission (plain http): select the text so Ctrl+C works.
        input.select();
        document.execCommand?.("copy");
      }
      button.textContent = "Copied";
      if (status) status.textContent = "Link copied to the clipboard.";
      setTimeout(() => {
        button.textContent = "Copy";
        if (status) status.textContent = "";
      }, 2500);
    });
  }
}

/** The schedule form sends the scheduler's time zone with the local date and time. */
export function scheduleFormMount(form) {
  if (!form) return;
  const zone = form.querySelector("input[name=tz]");
  if (zone) zone.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const zoneLabel = form.querySelector(".tz-label");
  if (zoneLabel && zone) zoneLabel.textContent = `(${zone.value})`;
  // A reschedule form starts from the planned start, given in UTC: shown in this zone.
  const start = form.dataset.start ? new Date(form.dataset.start) : null;
  if (start && !Number.isNaN(start.getTime())) {
    const two = (n) => String(n).padStart(2, "0");
    const day = form.querySelector("input[name=starts_date]");
    const time = form.querySelector("input[name=starts_time]");
    if (day) day.value = `${start.getFullYear()}-${two(start.getMonth() + 1)}-${two(start.getDate())}`;
    if (time) time.value = `${two(start.getHours())}:${two(start.getMinutes())}`;
  }
}

export class ChatPanel {
  constructor(root, { url, userName }) {
    this.root = root;
    this.url = url;
    this.userName = userName;
    this.list = root?.querySelector("#chat");
    this.form = root?.querySelector("#chat-form");
    this.error = root?.querySelector("#chat-error");
    this.seen = new Set();
    this.form?.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send();
    });
  }

  async send() {
    const input = this.form.querySelector("input[name=text]");
    const text = input.value.trim();
    if (!text) return;
    this.error.textContent = "";
    try {
      this.render(await postJson(this.url, { text }));
      clearIfUnchanged(input, text);
    } catch (error) {
      this.error.textContent = failure(error);
    }
  }

  render(message) {
    if (!this.list || this.seen.has(message.id)) return;
    this.seen.add(message.id);
    const mine = message.author === this.userName;
    const item = element("li", {
      className: `chat-message chat-${message.role}${mine ? " chat-mine" : ""}`,
      attrs: { "data-id": String(message.id) },
    });
    const meta = element("span", { className: "chat-meta" });
    meta.textContent = `${mine ? "You" : message.author || message.role} · ${clock(message.created_at)}`;
    item.append(meta, element("span", { className: "chat-text", text: message.text }));
    this.list.append(item);
    this.list.scrollTop = this.list.scrollHeight;
  }

  close() {
    this.form?.querySelectorAll("input, button").forEach((node) => {
      node.disabled = true;
    });
  }
}

export class CallLink {
  constructor({ url }) {
    this.link = document.getElementById("call-link");
    this.none = document.getElementById("call-none");
    this.form = document.getElementById("call-form");
    this.error = document.getElementById("call-error");
    this.form?.addEventListener("submit", async (event) => {
      event.preventDefault();
      const input = this.form.querySelector("input[name=call_link]");
      this.error.textContent = "";
      try {
        this.show((await postJson(url, { call_link: input.value.trim() })).call_link);
      } catch (error) {
        this.error.textContent = failure(error);
      }
    });
  }

  show(link) {
    if (!this.link) return;
    this.link.hidden = !link;
    if (this.none) this.none.hidden = Boolean(link);
    if (link) this.link.href = link;
  }

  close() {
    this.form?.querySelectorAll("input, button").forEach((node) => {
      node.disabled = true;
    });
  }
}

/** The interviewer's private panel: notes, canned answers, hints to reveal. */
export class Cockpit {
  constructor(root, { urls, onQuestion }) {
    this.root = root;
    if (!root) return;
    this.urls = urls;
    this.notes = root.querySelector("#private-notes");
    this.noteForm = root.querySelector("#private-note-form");
    this.noteError = root.querySelector("#private-note-error");
    this.noteForm?.addEventListener("submit", (event) => {
      event.preventDefault();
      this.noteAdd();
    });
    this.cannedError = root.querySelector("#canned-error");
    for (const button of root.querySelectorAll(".canned-send")) {
      button.addEventListener("click", async () => {
        this.cannedError.textContent = "";
        button.disabled = true;
        try {
          onQuestion(await postJson(`${urls.canned}/${button.dataset.index}`));
          button.textContent = "Sent";
        } catch (error) {
          this.cannedError.textContent = failure(error);
        } finally {
          setTimeout(() => {
            button.disabled = false;
            button.textContent = "Send";
          }, 1500);
        }
      });
    }
    this.hintButton = root.querySelector("#hint-reveal");
    this.hintError = root.querySelector("#hint-error");
    this.hintButton?.addEventListener("click", async () => {
      this.hintError.textContent = "";
      try {
        this.hintRevealed((await postJson(urls.hintReveal)).number);
      } catch (error) {
        this.hintError.textContent = failure(error);
      }
    });
  }

  async noteAdd() {
    const input = this.noteForm.querySelector("textarea");
    const text = input.value.trim();
    if (!text) return;
    this.noteError.textContent = "";
    try {
      const note = await postJson(this.urls.privateNotes, { text });
      const item = element("li", { className: "private-note", attrs: { "data-id": String(note.id) } });
      item.append(element("span", { className: "note-meta", text: clock(note.created_at) }));
      item.append(document.createTextNode(` ${note.text}`));
      this.notes.append(item);
      clearIfUnchanged(input, text);
    } catch (error) {
      this.noteError.textContent = failure(error);
    }
  }

  /** Hint `number` is open for the candidate now (revealed here or opened by them). */
  hintRevealed(number) {
    if (!this.root || !number) return;
    const items = [...this.root.querySelectorAll(".hint-admin")];
    for (const item of items) {
      if (Number(item.dataset.number) <= number) item.dataset.revealed = "true";
    }
    const shown = items.filter((item) => item.dataset.revealed === "true").length;
    const count = this.root.querySelector("#hints-count");
    if (count) count.textContent = `${shown} of ${items.length} revealed`;
    if (this.hintButton) this.hintButton.disabled = shown >= items.length;
  }

  close() {
    this.root
      ?.querySelectorAll("#hint-reveal, .canned-send")
      .forEach((node) => {
        node.disabled = true;
      });
  }
}

/** The candidate's hint list gets a hint the interviewer revealed. */
export function candidateHintAdd(number, text) {
  const list = document.getElementById("session-hints");
  if (!list || list.querySelector(`[data-number="${number}"]`)) return;
  list.append(element("li", { className: "hint", text, attrs: { "data-number": String(number) } }));
  const note = document.getElementById("hint-released-note");
  if (note) note.textContent = "Your interviewer releases hints when one would help: they appear here.";
}

/**
 * The candidate's banner for a hint the interviewer released: the server renders the last
 * one on a reload; `show` says a new one at once. Dismissing hides it until the next hint.
 */
export function hintBannerMount(root) {
  if (!root) return { show() {} };
  const title = root.querySelector("#hint-banner-title");
  const text = root.querySelector("#hint-banner-text");
  root.querySelector("#hint-banner-close")?.addEventListener("click", () => {
    root.hidden = true;
  });
  return {
    show(number, hint) {
      title.textContent = `Hint ${number} from your interviewer`;
      text.textContent = hint;
      root.hidden = false;
    },
  };
}

/**
 * The interviewer's side panel tabs: one group of sections at a time (all without script).
 * A tab that is not open counts what arrived for it (chat, questions, notes, the candidate's
 * "I'm done") in a number badge; opening the tab clears it.
 */
export function sideTabsMount(pane) {
  const buttons = [...(pane?.querySelectorAll("[data-tab-button]") || [])];
  if (!buttons.length) return { notify() {}, current: () => "" };
  let current = "live";
  const unread = new Map();
  const labels = new Map(buttons.map((button) => [button, button.textContent.trim()]));
  const badge = (button) => button.querySelector("[data-tab-count]");
  const paint = (button) => {
    const count = unread.get(button.dataset.tabButton) || 0;
    const node = badge(button);
    button.dataset.unread = String(count);
    button.classList.toggle("has-news", count > 0);
    // Screen readers hear "Notes, 2 new" rather than a bare number.
    if (count) button.setAttribute("aria-label", `${labels.get(button)}, ${count} new`);
    else button.removeAttribute("aria-label");
    if (!node) return;
    node.hidden = count === 0;
    node.textContent = count > 99 ? "99+" : String(count);
  };
  const show = (name) => {
    current = name;
    unread.set(name, 0);
    for (const button of buttons) {
      const selected = button.dataset.tabButton === name;
      button.setAttribute("aria-selected", String(selected));
      paint(button);
    }
    for (const section of pane.querySelectorAll("[data-tab]")) {
      section.hidden = section.dataset.tab !== name;
    }
  };
  buttons.forEach((button) => button.addEventListener("click", () => show(button.dataset.tabButton)));
  show("live");
  return {
    /** Something arrived for tab `name`: count it on its button unless it is open. */
    notify(name) {
      if (name === current) return;
      const button = buttons.find((candidate) => candidate.dataset.tabButton === name);
      if (!button) return;
      unread.set(name, (unread.get(name) || 0) + 1);
      paint(button);
    },
    current: () => current,
  };
}

/** The interviewer adds a co-interviewer to the session's panel from the cockpit. */
export function coInterviewerFormMount(form, { url }) {
  if (!form) return;
  const list = document.getElementById("co-interviewers");
  const error = document.getElementById("co-interviewer-error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = form.querySelector("input[name=username]");
    const username = input.value.trim();
    error.textContent = "";
    try {
      const answer = await postJson(url, { username });
      list.textContent = answer.co_interviewers.join(", ") || "none yet";
      clearIfUnchanged(input, username);
    } catch (failed) {
      error.textContent = failure(failed);
    }
  });
}
