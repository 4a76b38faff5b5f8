// The side panel: clarifying questions, tradeoffs/notes, and (for the interviewer) activity.
// Everything typed by a person is put in the page with textContent, never as markup.
import { ApiError, postJson } from "./api.js";
import { clearIfUnchanged, clock, element } from "../dom.js";

const SOURCE_LABELS = {
  canned: "Answer",
  assumption: "Answer",
  interviewer: "Interviewer",
};

export class QuestionsPanel {
  constructor(root, { urls, role }) {
    this.root = root;
    this.urls = urls;
    this.role = role;
    this.list = root.querySelector("#questions");
    this.form = root.querySelector("#question-form");
    this.error = root.querySelector("#question-error");
    this.items = new Map();
    this.form?.addEventListener("submit", (event) => {
      event.preventDefault();
      this.ask();
    });
  }

  async ask() {
    const input = this.form.querySelector("textarea");
    const text = input.value.trim();
    if (!text) return;
    const button = this.form.querySelector("button");
    button.disabled = true;
    this.error.textContent = "";
    try {
      this.render(await postJson(this.urls.questions, { text }));
      clearIfUnchanged(input, text);
    } catch (error) {
      this.error.textContent = error instanceof ApiError ? error.message : "Something went wrong.";
    } finally {
      button.disabled = false;
    }
  }

  async answer(id, text) {
    try {
      this.render(await postJson(`${this.urls.questions}/${id}/answer`, { text }));
    } catch (error) {
      this.error.textContent = error instanceof ApiError ? error.message : "Something went wrong.";
    }
  }

  /** Adds or updates one question; the interviewer's copy carries match details. */
  render(question) {
    const previous = this.items.get(question.id);
    const merged = { ...(previous?.data || {}), ...question };
    const item = element("li", {
      className: "question",
      attrs: { "data-id": String(merged.id), "data-source": merged.source || "pending" },
    });
    const head = element("p", { className: "q-text" });
    head.append(element("span", { className: "q-time", text: clock(merged.asked_at) }));
    head.append(document.createTextNode(" " + merged.text));
    item.append(head);
    if ((this.role === "interviewer" || this.role === "co_interviewer")
        && merged.similarity !== undefined) {
      const match = element("p", { className: "q-match" });
      match.textContent =
        merged.matched_index === null || merged.matched_index === undefined
          ? `no canned match (best ${Number(merged.similarity || 0).toFixed(2)})`
          : `matches canned question ${merged.matched_index + 1} ` +
            `(${Number(merged.similarity).toFixed(2)})` +
            (merged.matched_key ? ", a key question" : "");
      item.append(match);
    }
    if (merged.pending) {
      if (this.role === "interviewer") {
        const form = element("form", { className: "answer-form" });
        const input = element("textarea", {
          attrs: { rows: "2", "aria-label": "Your answer", required: "" },
        });
        input.value = merged.suggestion || "";
        const button = element("button", {
          className: "button",
          text: "Answer",
          attrs: { type: "submit" },
        });
        form.append(input, button);
        form.addEventListener("submit", (event) => {
          event.preventDefault();
          if (input.value.trim()) this.answer(merged.id, input.value.trim());
        });
        item.append(form);
      } else {
        item.append(element("p", { className: "q-waiting", text: "Waiting for the interviewer…" }));
      }
    } else {
      const answer = element("p", { className: "q-answer" });
      answer.append(element("strong", { text: `${SOURCE_LABELS[merged.source] || "Answer"}: ` }));
      answer.append(document.createTextNode(merged.answer));
      item.append(answer);
    }
    if (previous) previous.node.replaceWith(item);
    else this.list.append(item);
    this.items.set(merged.id, { node: item, data: merged });
  }
}

export class NotesPanel {
  constructor(root, { urls }) {
    this.root = root;
    this.urls = urls;
    this.list = root.querySelector("#notes");
    this.form = root.querySelector("#note-form");
    this.error = root.querySelector("#note-error");
    this.seen = new Set();
    this.form?.addEventListener("submit", (event) => {
      event.preventDefault();
      this.add();
    });
  }

  async add() {
    const input = this.form.querySelector("textarea");
    const kind = this.form.querySelector("select")?.value || "tradeoff";
    const text = input.value.trim();
    if (!text) return;
    this.error.textContent = "";
    try {
      this.render(await postJson(this.urls.notes, { text, kind }));
      clearIfUnchanged(input, text);
    } catch (error) {
      this.error.textContent = error instanceof ApiError ? error.message : "Something went wrong.";
    }
  }

  render(note) {
    if (this.seen.has(note.id)) return;
    this.seen.add(note.id);
    const item = element("li", { className: `note note-${note.kind}` });
    item.append(element("span", { className: "note-kind", text: note.kind }));
    item.append(element("span", { className: "note-meta", text: ` ${note.author}, ${clock(note.created_at)}: ` }));
    item.append(element("span", { className: "note-text", text: note.text }));
    this.list.append(item);
  }
}

/** A duration as a person reads it (the review's words, interviews/review/suggest.py). */
function awayText(ms) {
  let seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  seconds %= 60;
  if (minutes < 60) return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
  const rest = minutes % 60;
  return rest ? `${Math.floor(minutes / 60)} h ${rest} min` : `${Math.floor(minutes / 60)} h`;
}

const ACTIVITY_TEXT = {
  // With what it matched, when it did (the server's sentence: interviews/selectors.py).
  paste: (event) => `${event.by || "someone"} pasted ${event.chars} characters`
    + (event.similar_text ? `: ${event.similar_text}` : ""),
  tab_hidden: () => "The candidate left the tab",
  tab_visible: (e) => "The candidate came back to the tab"
    + (Number.isInteger(e.away_ms) ? ` (away ${awayText(e.away_ms)})` : ""),
  hint: (event) => `Hint ${event.number || ""} is open for the candidate`,
  custom_run: (event) => `${event.by || "someone"} ran the code on a custom input`,
  console_run: (event) => `${event.by || "someone"} ran the file in the console`,
  done: (event) => `${event.by || "The candidate"} said they are done`,
};

export class ActivityFeed {
  constructor(list) {
    this.list = list;
  }

  add(event) {
    if (!this.list) return;
    this.list.querySelector(".activity-empty")?.remove();
    const text = (ACTIVITY_TEXT[event.kind] || (() => event.kind))(event);
    const item = element("li", { className: `activity activity-${event.kind}` });
    item.append(element("span", { className: "q-time", text: clock(event.at) }));
    item.append(document.createTextNode(" " + text));
    this.list.prepend(item);
  }
}
