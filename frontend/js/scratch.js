// The custom-input and console panels: what a scratch run (mode "custom" or "script") printed
// and returned, and for a custom run compared with the reference, the reference's answer and a
// line diff. Everything from the program goes in with textContent (dom.js), never as markup.
import { element } from "./dom.js";
import { parseLooseJson } from "./grader.js";
import { formatTimes, occupancyPlot, streamPieces, verdictBadge } from "./results.js";

// grading/scratch.py names the one test so: the reference's answer is its expected value.
const COMPARED_NAME = "custom input vs reference";
const MAX_DIFF_LINES = 400;

const INLINE_WIDTH = 72;

/**
 * JSON indented by two, but a list or object that fits on one line stays on one line, so an
 * ops list reads as one op per line, not one number per line.
 */
export function jsonFormat(value, indent = "", { breakTop = false } = {}) {
  const flat = JSON.stringify(value);
  if (flat === undefined) return "null";
  const fits = flat.length + indent.length <= INLINE_WIDTH && !(breakTop && flat.length > 2);
  if (value === null || typeof value !== "object" || fits) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((item) => inner + jsonFormat(item, inner)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value).map(
    ([key, item]) => `${inner}${JSON.stringify(key)}: ${jsonFormat(item, inner)}`,
  );
  return `{\n${entries.join(",\n")}\n${indent}}`;
}

/**
 * An answer for display and diffing: the grader's JSON text formatted with one top-level item
 * per line (one op's result per line, so the diff points at the op); the text itself when it
 * is not JSON (clipped).
 */
export function prettyJson(text) {
  if (typeof text !== "string") return jsonFormat(text, "", { breakTop: true });
  try {
    return jsonFormat(parseLooseJson(text), "", { breakTop: true });
  } catch {
    return text;
  }
}

/**
 * A line diff of `before` → `after`: [{kind: "same" | "del" | "add", text}], by longest common
 * subsequence (inputs are capped, so the table stays small).
 */
export function lineDiff(before, after) {
  const a = before.split("\n").slice(0, MAX_DIFF_LINES);
  const b = after.split("\n").slice(0, MAX_DIFF_LINES);
  const lcs = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: "same", text: a[i] });
      i += 1;
      j += 1;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      out.push({ kind: "del", text: a[i] });
      i += 1;
    } else {
      out.push({ kind: "add", text: b[j] });
      j += 1;
    }
  }
  while (i < a.length) out.push({ kind: "del", text: a[i++] });
  while (j < b.length) out.push({ kind: "add", text: b[j++] });
  return out;
}

function block(label, text, className = "") {
  const wrap = element("div", { className: `output-block ${className}`.trim() });
  wrap.append(element("h3", { className: "output-label", text: label }));
  wrap.append(element("pre", { className: "output-text", text }));
  return wrap;
}

/** stdout and stderr in one box, in the order printed, each piece labelled with its stream. */
function interleavedBlock(pieces) {
  const wrap = element("div", { className: "output-block console interleaved" });
  wrap.append(element("h3", { className: "output-label", text: "Stdout and stderr, in the order printed" }));
  for (const [stream, text] of pieces) {
    const piece = element("div", { className: `stream-piece ${stream}` });
    piece.append(element("span", { className: `stream-label ${stream}-label`, text: stream }));
    piece.append(element("pre", { className: "output-text", text }));
    wrap.append(piece);
  }
  return wrap;
}

function diffBlock(expected, output) {
  const wrap = element("div", { className: "output-block diff-block" });
  wrap.append(element("h3", { className: "output-label", text: "Diff (reference → yours)" }));
  const pre = element("pre", { className: "output-text diff" });
  for (const line of lineDiff(expected, output)) {
    const sign = { same: "  ", del: "- ", add: "+ " }[line.kind];
    pre.append(element("span", { className: `diff-${line.kind}`, text: `${sign}${line.text}\n` }));
  }
  wrap.append(pre);
  return wrap;
}

/** A checker's findings on a custom input, in the words the hidden tests' messages use:
 *  its message, each rule it judged (held, or how it broke) and the schedule it saw. */
function findingsBlocks(detail, verdict) {
  const evidence = detail.evidence;
  const parts = [];
  const wrap = element("div", { className: "output-block findings" });
  wrap.append(element("h3", { className: "output-label", text: "What the grader found" }));
  wrap.append(element("p", {
    className: "findings-message",
    text: detail.message || (verdict === "AC" ? "Every rule held." : "A rule was broken."),
  }));
  const rules = evidence.rules && typeof evidence.rules === "object" ? evidence.rules : {};
  if (Object.keys(rules).length) {
    const list = element("ul", { className: "findings-rules" });
    for (const [rule, broken] of Object.entries(rules)) {
      const item = element("li", { className: broken === null ? "rule-held" : "rule-broken",
        attrs: { "data-rule": rule } });
      item.append(element("span", { className: "tag-name", text: rule }));
      item.append(document.createTextNode(broken === null ? ": held" : `: broken — ${broken}`));
      list.append(item);
    }
    wrap.append(list);
  }
  parts.push(wrap);
  const plot = occupancyPlot(evidence);
  if (plot) {
    const schedule = element("div", { className: "output-block schedule" });
    schedule.append(element("h3", { className: "output-label", text: "Schedule" }));
    schedule.append(plot);
    parts.push(schedule);
  }
  return parts;
}

/** The raw answers (a driver's record can be long), folded away under the findings. */
function rawBlocks(blocks) {
  const details = element("details", { className: "raw-answers" });
  details.append(element("summary", { text: "Raw answers (the grader's record)" }));
  details.append(...blocks);
  return details;
}

export class ScratchPanel {
  /** `root` is #custom-output or #console-output; `onErrorLine(line, message)` and
   *  `onClear()` as for the results panel (both runs run the editor's code). */
  constructor(root, kind, { onErrorLine = () => {}, onClear = () => {} } = {}) {
    this.root = root;
    this.kind = kind; // "custom" | "script"
    this.onErrorLine = onErrorLine;
    this.onClear = onClear;
  }

  reset() {
    this.onClear();
    this.root.dataset.state = "pending";
    this.root.replaceChildren(element("p", { className: "result-status", text: "Running…" }));
  }

  fail(message) {
    this.root.dataset.state = "failed";
    this.root.replaceChildren(element("p", { className: "result-status error", text: message }));
  }

  handle(event) {
    if (event.type === "status") {
      if (event.status === "retrying" || event.status === "failed") {
        this.fail(event.message || "The grader is unavailable; try again.");
      }
    } else if (event.type === "test") {
      this.show(event);
    } else if (event.type === "done" && this.root.dataset.state !== "shown") {
      if (event.verdict === "IE") this.fail("The grader failed on this run; it was not charged.");
    }
  }

  show(test) {
    const detail = test.detail || {};
    // An input the grader could not read has no line of the candidate's to mark.
    if (Number.isInteger(detail.line) && !detail.input_error) {
      this.onErrorLine(detail.line, detail.message || detail.error || "error");
    }
    this.root.dataset.state = "shown";
    this.root.dataset.verdict = String(test.verdict);
    const parts = [];
    const head = element("p", { className: "scratch-head" });
    const ran = test.verdict === "AC" || test.verdict === "WA";
    const judged = detail.evidence && typeof detail.evidence === "object"
      && test.name === COMPARED_NAME;
    if (this.kind === "custom" && judged) {
      // Judged by the problem's checker, rule by rule: the record's differences from the
      // reference's are not the point, the rules are.
      head.append(verdictBadge(test.verdict));
      // The rule the message names (the server's "rule", the verdict line's too).
      const rule = typeof detail.evidence.rule === "string" ? detail.evidence.rule : "";
      let said = " A rule of the statement was broken";
      if (test.verdict === "AC") said = " Every rule held";
      else if (rule) said = ` Rule '${rule}' of the statement was broken`;
      head.append(document.createTextNode(said));
    } else if (this.kind === "custom" && test.name === COMPARED_NAME) {
      head.append(verdictBadge(test.verdict));
      head.append(document.createTextNode(
        test.verdict === "AC" ? " Same answer as the reference" : " Differs from the reference",
      ));
    } else if (ran) {
      head.append(document.createTextNode(this.kind === "script" ? "Finished" : "Returned"));
    } else {
      head.append(verdictBadge(test.verdict));
      head.append(document.createTextNode(` ${detail.message || ""}`));
    }
    head.append(element("span", { className: "test-time", text: ` · ${formatTimes(test)}` }));
    parts.push(head);

    // A checker that judges rules (the batching problems): what it found, not its record.
    if (this.kind === "custom" && ran) {
      const output = prettyJson(detail.output ?? "");
      if (test.name === COMPARED_NAME) {
        const expected = prettyJson(detail.expected ?? "");
        const pair = element("div", { className: "output-pair" });
        pair.append(block("Your answer", output), block("Reference answer", expected));
        if (judged) {
          parts.push(...findingsBlocks(detail, test.verdict), rawBlocks([pair]));
        } else {
          parts.push(pair);
          if (test.verdict !== "AC") parts.push(diffBlock(expected, output));
        }
      } else {
        parts.push(block("Your answer", output));
      }
    }
    const stdout = detail.stdout || "";
    const pieces = streamPieces(detail);
    if (pieces.length > 1 && pieces.some(([stream]) => stream === "stderr")
        && pieces.some(([stream]) => stream === "stdout")) {
      parts.push(interleavedBlock(pieces));  // both streams, in the order they were written
    } else {
      parts.push(block("Stdout", stdout || "(nothing printed)", stdout ? "console" : "console empty"));
      if (detail.stderr) parts.push(block("Stderr", detail.stderr, "console stderr"));
    }
    // An input the grader could not read is the input's problem: its message says so above,
    // and the grader's exception is shown as that, not as the candidate's traceback.
    if (detail.error) {
      parts.push(block(detail.input_error ? "What the grader could not read" : "Error",
        detail.error, "error"));
    }
    this.root.replaceChildren(...parts);
  }
}
