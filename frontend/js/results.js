// The results panel. Everything that came from the grader or the candidate's program is put in
// the page with textContent, never innerHTML: output, names and errors are data, not markup.
import { element } from "./dom.js";

const VERDICT_TITLES = {
  AC: "Accepted",
  WA: "Wrong answer",
  TLE: "Time limit exceeded",
  MLE: "Memory limit exceeded",
  OLE: "Output limit exceeded",
  RE: "Runtime error",
  IE: "Internal error",
};
const DETAIL_FIELDS = [
  ["input", "Input"],
  ["expected", "Expected"],
  ["output", "Your output"],
  ["error", "Error"],
  ["message", "Message"],
];
const STATUS_TEXT = {
  queued: "Queued…",
  running: "Running…",
  retrying: "grader unavailable, retrying",
  done: "Done.",
  failed: "Grading failed.",
};

/** "Queued: 2 ahead, about 6 s" (or "4–11 s" where the server's estimate is a wide range)
 * from a status event's queue position (grading/queueing.py). */
export function queueText(queue) {
  if (!queue || typeof queue !== "object") return STATUS_TEXT.queued;
  const ahead = Number(queue.ahead) || 0;
  const wait = Math.round(Number(queue.wait_seconds) || 0);
  const place = ahead === 0 ? "next in line" : `${ahead} ahead`;
  const range = Array.isArray(queue.wait_range) ? queue.wait_range.map(Number) : null;
  let when = wait >= 1 ? `about ${wait} s` : "starting in a moment";
  if (range && range.length === 2 && range.every(Number.isFinite)) {
    const low = Math.max(0, Math.floor(range[0]));
    const high = Math.max(low + 1, Math.ceil(range[1]));
    when = `about ${low}\u2013${high} s`;
  }
  return `Queued: ${place}, ${when}`;
}

// A test with no verdict was not run: an earlier test of its group ran out of time
// (core.verdicts.NOT_RUN on the server).
const NOT_RUN = "";
const NOT_RUN_TEXT = "not run (stopped after a time limit)";

/** A verdict badge; unknown verdicts still render, as plain text, so nothing is dropped. */
export function verdictBadge(verdict) {
  if (verdict === NOT_RUN) {
    return element("span", {
      className: "verdict verdict-not-run",
      text: "not run",
      attrs: { title: "Not run: stopped after a time limit" },
    });
  }
  const known = Object.hasOwn(VERDICT_TITLES, verdict);
  return element("span", {
    className: `verdict verdict-${known ? verdict : "unknown"}`,
    text: verdict || "?",
    attrs: { title: known ? VERDICT_TITLES[verdict] : "Unknown verdict" },
  });
}

function formatValue(value) {
  // The grader sends each detail field as text it already serialised (and clipped): show it
  // verbatim. Anything else is a raw JSON value, printed compactly or, when long, indented.
  if (typeof value === "string") return value;
  try {
    const compact = JSON.stringify(value);
    return compact !== undefined && compact.length > 80 ? JSON.stringify(value, null, 2) : compact;
  } catch {
    return String(value);
  }
}

function formatTime(ms, secondsDigits = 1) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "";
  if (ms >= 1000) return `${(ms / 1000).toFixed(secondsDigits)} s`;
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

/** "CPU 2.00 s / 2 s limit · wall 2.3 s": the CPU time is what the time limit is judged on,
 *  the wall time (which waiting for a busy machine lengthens) is shown apart from it.
 *  `cpuLimitSeconds` comes from the page; without it the limit is left out. */
export function formatTimes(test, cpuLimitSeconds) {
  if (test.verdict === NOT_RUN) return NOT_RUN_TEXT;
  const cpu = formatTime(test.cpu_ms, 2);
  const wall = formatTime(test.time_ms);
  if (!cpu) return wall ? `wall ${wall}` : "";
  const limit = Number.isFinite(cpuLimitSeconds) && cpuLimitSeconds > 0
    ? ` / ${cpuLimitSeconds} s limit` : "";
  return `CPU ${cpu}${limit}${wall ? ` · wall ${wall}` : ""}`;
}

const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

// [legend name, evidence key, class]. Every colour is the stylesheet's (site.css, the
// `.occupancy-plot` rules): the policy refuses style attributes, and one palette serves the
// plot, its legend and the dark theme alike.
const PLOT_SERIES = [
  ["engine", "occupancy", "plot-engine"],
  ["statement's schedule", "oracle_occupancy", "plot-oracle"],
  ["static batching", "baseline_occupancy", "plot-baseline"],
];

function swatch(className) {
  return element("span", { className: `plot-swatch ${className}`, attrs: { "aria-hidden": "true" } });
}

/** The runs of consecutive steps whose value is above `capacity`: [[first, last], …]. */
export function stepsOver(values, capacity) {
  const runs = [];
  if (!Number.isFinite(capacity)) return runs;
  values.forEach((v, i) => {
    if (!(v > capacity)) return;
    const last = runs[runs.length - 1];
    if (last && last[1] === i - 1) last[1] = i;
    else runs.push([i, i]);
  });
  return runs;
}

/** One panel: batch occupancy per step as a step line, with both axes labelled; the capacity
 *  as a line at the capacity itself, and every step above it drawn again in the warning
 *  colour, so a breach stands out instead of stretching the scale to hide it. */
function occupancyPanel(name, values, className, steps, top, capacity, violation) {
  const width = 480;
  const height = 96;
  const left = 28;
  const bottom = 18;
  const plotW = width - left - 4;
  const plotH = height - bottom - 6;
  const x = (i) => left + (i / Math.max(1, steps)) * plotW;
  const y = (v) => 6 + plotH - (v / top) * plotH;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": `${name}: batch occupancy per step`, class: "occupancy-panel" });
  chart.append(svg("line", { x1: left, y1: y(0), x2: left + plotW, y2: y(0), class: "plot-axis" }));
  chart.append(svg("line", { x1: left, y1: y(0), x2: left, y2: y(top), class: "plot-axis" }));
  const label = (text, attrs) => {
    const node = svg("text", { class: "plot-label", ...attrs });
    node.textContent = text;
    chart.append(node);
  };
  if (Number.isFinite(capacity) && capacity > 0) {
    chart.append(svg("line", { x1: left, y1: y(capacity), x2: left + plotW, y2: y(capacity),
      class: "plot-capacity", "data-value": capacity }));
    label(String(capacity), { x: left - 4, y: y(capacity) + 4, "text-anchor": "end" });
  }
  if (top !== capacity) label(String(top), { x: left - 4, y: y(top) + 4, "text-anchor": "end" });
  label("0", { x: left - 4, y: y(0) + 4, "text-anchor": "end" });
  const tick = Math.max(1, Math.ceil(steps / 8));
  for (let i = 0; i <= steps; i += tick) {
    label(String(i), { x: x(i), y: height - 4, "text-anchor": "middle" });
  }
  if (Number.isInteger(violation) && violation >= 0 && violation <= steps) {
    chart.append(svg("line", { x1: x(violation), y1: y(0), x2: x(violation), y2: y(top),
      class: "plot-violation" }));
  }
  const points = values.flatMap((v, i) => [`${x(i)},${y(v)}`, `${x(i + 1)},${y(v)}`]);
  chart.append(svg("polyline", { points: points.join(" "), class: className }));
  for (const [first, last] of stepsOver(values, capacity)) {
    const over = values.slice(first, last + 1)
      .flatMap((v, k) => [`${x(first + k)},${y(v)}`, `${x(first + k + 1)},${y(v)}`]);
    chart.append(svg("polyline", { points: over.join(" "), class: "plot-over",
      "data-steps": `${first}-${last}` }));
  }
  const panel = element("div", { className: "occupancy-row" });
  panel.append(element("div", { className: "plot-name", text: name }));
  panel.append(chart);
  return panel;
}

/** Batch occupancy per step: the engine's schedule above the statement's (the checker's
 *  oracle) and static batching's, on one step axis (x: step, y: sequences in the model call),
 *  the capacity drawn at the capacity, steps above it in the warning colour, the first
 *  violating step marked; then per-request latency figures. */
export function occupancyPlot(evidence) {
  const series = PLOT_SERIES
    .map(([name, key, className]) => [name, evidence[key], className])
    .filter(([, values]) => Array.isArray(values) && values.length);
  if (!series.length) return null;
  const steps = Math.max(...series.map(([, values]) => values.length));
  const capacity = Number(evidence.capacity);
  const peak = Math.max(...series.flatMap(([, v]) => v));
  const top = Math.max(1, Number.isFinite(capacity) ? capacity : 0, peak);
  const violation = evidence.first_violation_step;
  const figure = element("figure", { className: "occupancy-plot" });
  const legend = element("ul", { className: "plot-legend" });
  for (const [name, , className] of series) {
    const item = element("li", { className });
    item.append(swatch(className));
    item.append(document.createTextNode(name));
    legend.append(item);
  }
  const over = series.flatMap(([, values]) => stepsOver(values, capacity));
  if (over.length) {
    const item = element("li", { className: "plot-over" });
    item.append(swatch("plot-over"));
    item.append(document.createTextNode(`above capacity ${capacity}`));
    legend.append(item);
  }
  if (Number.isInteger(violation)) {
    const item = element("li", { className: "plot-violation" });
    item.append(swatch("plot-violation"));
    item.append(document.createTextNode(`first violation (step ${violation})`));
    legend.append(item);
  }
  figure.append(legend);
  for (const [name, values, className] of series) {
    figure.append(occupancyPanel(name, values, className, steps, top, capacity, violation));
  }
  const latency = evidence.latency;
  if (latency && typeof latency === "object") {
    const parts = [["queue wait", latency.queue_wait], ["completion step", latency.completion_step]]
      .filter(([, v]) => v && v.p50 !== undefined)
      .map(([label, v]) => `${label} p50 ${v.p50}, p99 ${v.p99} steps`);
    if (parts.length) {
      const text = `Per request: ${parts.join(" · ")}`;
      figure.append(element("p", { className: "plot-latency", text }));
    }
  }
  const caption = series.map(([name, values]) => `${name}: ${values.length} steps`).join(" · ");
  const axes = `x: step, y: sequences in the model call, capacity ${evidence.capacity}`;
  const breach = over.length
    ? ` — above capacity at ${over.map(([a, b]) => (a === b ? `step ${a}` : `steps ${a}–${b}`)).join(", ")}`
    : "";
  figure.append(element("figcaption", {
    text: `Batch occupancy per step (${axes}) — ${caption}${breach}`,
  }));
  return figure;
}

/** The rules a checker judged in a test ({rule: null | how it was broken}), as a list:
 *  "tokens: held", "schedule: broken — step 3: …"; null when it reported none. */
export function rulesList(evidence) {
  const rules = evidence && typeof evidence.rules === "object" && evidence.rules
    ? Object.entries(evidence.rules) : [];
  if (!rules.length) return null;
  const list = element("ul", { className: "test-rules" });
  for (const [rule, broken] of rules) {
    const held = broken === null || broken === undefined;
    list.append(element("li", {
      className: held ? "rule-held" : "rule-broken",
      attrs: { "data-rule": rule },
      text: held ? `${rule}: held` : `${rule}: broken — ${broken}`,
    }));
  }
  return list;
}

// The fields a rule-judged problem's rows never show: its expected value is a placeholder
// and its output the grader's own record (the schedule and the rules say what happened).
const RECORD_FIELDS = ["expected", "output"];

function detailList(detail, { ruleJudged = false } = {}) {
  const list = element("dl", { className: "test-detail-list" });
  // stdout and stderr have their own rows, always shown; line, load and input_error say
  // where an error is (the editor's gutter mark, the one "did not load" box).
  const seen = new Set(["evidence", "stdout", "stderr", "streams", "line", "load",
    "input_error"]);
  const evidence = detail.evidence && typeof detail.evidence === "object" ? detail.evidence : null;
  const rules = rulesList(evidence);
  // Judged rule by rule (this test, or another of the run where this one did not finish).
  if (rules || ruleJudged) RECORD_FIELDS.forEach((key) => seen.add(key));
  if (evidence) {
    const plot = occupancyPlot(evidence);
    if (plot) {
      list.append(element("dt", { text: "Schedule" }));
      const dd = element("dd");
      dd.append(plot);
      list.append(dd);
    }
  }
  if (rules) {
    list.append(element("dt", { text: "Rules" }));
    const dd = element("dd");
    dd.append(rules);
    list.append(dd);
  }
  const add = (label, value, key) => {
    if (value === undefined || value === "") return;
    list.append(element("dt", { text: label, attrs: { "data-field": key } }));
    const dd = element("dd", { attrs: { "data-field": key } });
    dd.append(element("pre", { text: formatValue(value) }));
    list.append(dd);
  };
  for (const [key, label] of DETAIL_FIELDS) {
    if (!seen.has(key)) add(label, detail[key], key);
    seen.add(key);
  }
  // Fields this page does not know yet are still shown (as text), not silently dropped.
  for (const [key, value] of Object.entries(detail)) {
    if (!seen.has(key)) add(key, value, key);
  }
  return list;
}

/** What a test printed as [stream, text] pieces: the harness's ordered `streams` (stdout and
 *  stderr in the order they were written) when it sent them, else stdout then stderr. */
export function streamPieces(detail) {
  const ordered = Array.isArray(detail.streams)
    ? detail.streams.filter((piece) => Array.isArray(piece) && piece.length === 2
        && (piece[0] === "stdout" || piece[0] === "stderr") && typeof piece[1] === "string")
    : [];
  if (ordered.length) return ordered;
  return ["stdout", "stderr"]
    .filter((stream) => typeof detail[stream] === "string" && detail[stream])
    .map((stream) => [stream, detail[stream]]);
}

/** A labelled row under a test's row: what it printed on one stream, shown without a click. */
function streamRow(stream, text) {
  const row = element("tr", { className: `test-stream test-${stream}` });
  const cell = element("td", { attrs: { colspan: "4" } });
  cell.append(element("span", { className: `stream-label ${stream}-label`, text: stream }));
  cell.append(element("pre", { className: `stream-text ${stream}-text`, text }));
  row.append(cell);
  return row;
}

export class ResultsPanel {
  /** `onErrorLine(line, message)`: a shown test's error points at `line` of the code (the
   *  first such test of a run); `onClear()`: a new run started. */
  constructor(root, { onErrorLine = () => {}, onClear = () => {} } = {}) {
    this.root = root;
    this.onErrorLine = onErrorLine;
    this.onClear = onClear;
    this.loadBox = null;
    this.markedLine = false;
    this.status = root.querySelector("#result-status");
    this.progress = root.querySelector("#result-progress");
    this.table = root.querySelector("#result-tests");
    this.summary = root.querySelector("#result-summary");
    this.rows = new Map();
    this.hiddenSeen = new Set();
    this.progressKnown = false;
    // Whether a test of this run was judged rule by rule (its rows then never show the
    // placeholder expected value or the grader's record, even a row that did not finish).
    this.ruleJudged = false;
    // Each test's CPU limit, from the page (the server's one copy of it).
    this.cpuLimitSeconds = Number.parseFloat(root.dataset.cpuLimitSeconds);
    // What a screen reader hears (issue 40.3): one polite line per finished test and the
    // verdict once, in a region of its own beside the panel (the panel may be a hidden tab,
    // and announcing the whole table at each change would drown the rest).
    this.live = element("div", {
      className: "visually-hidden results-live",
      attrs: { "aria-live": "polite", "aria-atomic": "false", "data-results-live": "" },
    });
    root.after(this.live);
    this.announced = new Set();
    this.verdictAnnounced = false;
  }

  announce(text) {
    this.live.append(element("p", { text }));
  }

  /** Clears the panel for a new run or submit. */
  reset(mode) {
    this.root.dataset.mode = mode;
    this.root.dataset.state = "pending";
    this.rows.forEach((row) => row.remove());
    this.rows.clear();
    this.hiddenSeen.clear();
    this.progressKnown = false;
    this.ruleJudged = false;
    this.table.hidden = true;
    this.progress.hidden = true;
    this.progress.textContent = "";
    this.summary.replaceChildren();
    if (this.loadBox) this.loadBox.remove();
    this.loadBox = null;
    this.markedLine = false;
    this.live.replaceChildren();
    this.announced.clear();
    this.verdictAnnounced = false;
    this.onClear();
    this.setStatus(mode === "submit" ? "Submitting…" : "Sending…");
  }

  setStatus(text, { error = false } = {}) {
    this.status.textContent = text;
    this.status.classList.toggle("error", error);
  }

  /** Shows a message that ends this run (network error, refused socket). */
  fail(message) {
    this.root.dataset.state = "failed";
    this.setStatus(message, { error: true });
  }

  handle(event) {
    switch (event.type) {
      case "status":
        return this.onStatus(event);
      case "test":
        return this.onTest(event);
      case "progress":
        return this.onProgress(event);
      case "done":
        return this.onDone(event);
      default:
        return undefined; // Newer event types are ignored by older pages.
    }
  }

  onStatus({ status, message, queue }) {
    if (this.root.dataset.state === "done") return; // A late replayed status must not win.
    this.root.dataset.state = status;
    if (status === "queued") {
      this.setStatus(queueText(queue));
    } else if (status === "retrying") {
      this.setStatus(message || STATUS_TEXT.retrying, { error: true });
    } else if (status === "failed") {
      this.setStatus(message || STATUS_TEXT.failed, { error: true });
    } else {
      this.setStatus(STATUS_TEXT[status] || String(status));
    }
  }

  onTest(test) {
    // Hidden tests are never itemised on this page. A candidate's socket only gets progress
    // counts for them; staff sockets do get hidden test events, and these are only counted.
    if (test.hidden) {
      this.hiddenSeen.add(test.index);
      if (!this.progressKnown) {
        this.progress.hidden = false;
        this.progress.textContent = `Hidden tests: ${this.hiddenSeen.size} finished`;
      }
      return;
    }
    const body = element("tbody", {
      className: "test",
      attrs: { "data-index": String(test.index), "data-verdict": String(test.verdict) },
    });
    if (!this.announced.has(test.index)) {
      this.announced.add(test.index);
      const said = test.verdict === NOT_RUN ? NOT_RUN_TEXT
        : (VERDICT_TITLES[test.verdict] || String(test.verdict));
      this.announce(`Test ${Number(test.index) + 1}, ${test.name}: ${said}.`);
    }
    const row = element("tr", { className: "test-row" });
    row.append(element("td", { className: "test-index", text: Number(test.index) + 1 }));
    row.append(element("td", { className: "test-name", text: test.name }));
    const verdictCell = element("td", { className: "test-verdict" });
    verdictCell.append(verdictBadge(test.verdict));
    row.append(verdictCell);
    row.append(element("td", {
      className: "test-time",
      text: formatTimes(test, this.cpuLimitSeconds),
    }));
    body.append(row);

    const detail = test.detail && typeof test.detail === "object" ? test.detail : {};
    if (!this.ruleJudged && rulesList(detail.evidence)) {
      this.ruleJudged = true;
      const shown = RECORD_FIELDS.map((key) => `[data-field="${key}"]`).join(", ");
      this.table.querySelectorAll(shown).forEach((node) => node.remove());
    }
    // What the test printed is shown at once, under its row: print-debugging needs no click.
    // Each piece labelled with its stream, in the order the test wrote them (`streams`, when
    // it wrote to both); else stdout, then stderr.
    for (const [stream, text] of streamPieces(detail)) body.append(streamRow(stream, text));
    if (Number.isInteger(detail.line) && !this.markedLine) {
      this.markedLine = true;
      this.onErrorLine(detail.line, detail.message || detail.error || "error");
    }

    if (detail.load === true) {
      // The code did not import: the same error in every test. Shown once, above the tests;
      // each test's row says only that it could not run.
      this.loadErrorShow(detail);
      const note = element("tr", { className: "test-detail test-not-loaded" });
      note.append(element("td", {
        attrs: { colspan: "4" }, text: "Could not run: your code did not load (its error is above).",
      }));
      body.append(note);
    } else if (Object.keys(detail).length) {
      const detailRow = element("tr", { className: "test-detail" });
      const cell = element("td", { attrs: { colspan: "4" } });
      const details = element("details");
      details.open = test.verdict !== "AC" && test.verdict !== NOT_RUN;
      details.append(element("summary", { text: "Details" }));
      details.append(detailList(detail, { ruleJudged: this.ruleJudged }));
      cell.append(details);
      detailRow.append(cell);
      body.append(detailRow);
    }

    // The server replays finished tests on (re)connect: replace the row, keep the order.
    const previous = this.rows.get(test.index);
    if (previous) {
      previous.replaceWith(body);
    } else {
      const after = [...this.rows.entries()]
        .filter(([index]) => index > test.index)
        .sort(([a], [b]) => a - b)[0];
      this.table.insertBefore(body, after ? after[1] : null);
    }
    this.rows.set(test.index, body);
    this.table.hidden = false;
  }

  loadErrorShow(detail) {
    if (this.loadBox) return;
    const box = element("div", { className: "load-error", attrs: { role: "alert" } });
    const where = Number.isInteger(detail.line) ? ` (line ${detail.line})` : "";
    box.append(element("p", { className: "load-error-title",
      text: `Your code did not load${where}: no test could run.` }));
    box.append(element("pre", { className: "load-error-text", text: detail.error || detail.message || "" }));
    this.table.before(box);
    this.loadBox = box;
  }

  onProgress({ done, total }) {
    this.progressKnown = true;
    this.progress.hidden = false;
    this.progress.textContent = `Hidden tests: ${done} of ${total} finished`;
  }

  onDone({
    verdict, passed, total, by_tag: byTag, by_group: byGroup, worst_by_tag: worst,
    worst_by_group: worstByGroup, verdict_text: text,
  }) {
    this.root.dataset.state = "done";
    this.setStatus(STATUS_TEXT.done);
    // Every sentence here is the server's (grading.judge.verdict_text), written from one set
    // of facts: the headline names the rule the first failing test's message names, a group
    // line says "held" only of a group that passed, the score says what it counts.
    const said = text && typeof text === "object" ? text : {};
    const line = element("p", { className: "summary-line" });
    line.append(verdictBadge(verdict));
    const summary = typeof said.summary === "string" && said.summary
      ? said.summary : `passed ${passed} of ${total}`;
    line.append(document.createTextNode(` ${summary}`));
    if (!this.verdictAnnounced) {
      this.verdictAnnounced = true;
      this.announce(`Verdict: ${VERDICT_TITLES[verdict] || verdict || "unknown"}, ${summary}.`);
    }
    if (typeof said.failing === "string" && said.failing) {
      line.append(element("span", { className: "failing-group", text: ` — ${said.failing}` }));
    }
    if (typeof said.score === "string" && said.score) {
      line.append(element("span", { className: "score", text: `; ${said.score}` }));
    }
    const parts = [line];
    // Results by rule: which rules broke, in how many tests.
    if (typeof said.rules === "string" && said.rules) {
      parts.push(element("p", { className: "rules-line", text: said.rules }));
    }
    // One summary: per group when the problem has groups, else per tag. Two lists that count
    // the same tests differently would disagree.
    const groupLines = said.groups && typeof said.groups === "object" ? said.groups : {};
    const groups = Object.keys(groupLines).length
      ? Object.keys(groupLines) : Object.keys(byGroup || {});
    if (groups.length) {
      const list = element("ul", { className: "by-group" });
      for (const group of groups) {
        const counted = typeof groupLines[group] === "string" ? groupLines[group]
          : `passed ${(byGroup[group] || [])[0]} of ${(byGroup[group] || [])[1]}`;
        const groupWorst = worstByGroup && typeof worstByGroup === "object"
          ? worstByGroup[group] : undefined;
        const failed = Boolean(groupWorst && groupWorst !== "AC") || counted.includes(" — ");
        const item = element("li", {
          className: failed ? "group-fail" : "group-pass",
          attrs: { "data-group": group },
        });
        if (groupWorst && groupWorst !== "AC") item.dataset.worst = groupWorst;
        item.append(element("span", { className: "tag-name", text: group }));
        item.append(document.createTextNode(`: ${counted}`));
        list.append(item);
      }
      parts.push(list);
    } else {
      const tags = Object.entries(byTag || {});
      if (tags.length) {
        const list = element("ul", { className: "by-tag" });
        for (const [tag, [tagPassed, tagTotal]] of tags.sort(([a], [b]) => a.localeCompare(b))) {
          const item = element("li", {
            className: tagPassed === tagTotal ? "tag-pass" : "tag-fail",
            attrs: { "data-tag": tag },
          });
          item.append(element("span", { className: "tag-name", text: tag.replace(/_/g, " ") }));
          item.append(document.createTextNode(`: passed ${tagPassed} of ${tagTotal}`));
          // The worst verdict of the category answers "slow or wrong?" without naming a test.
          const tagWorst = worst && typeof worst === "object" ? worst[tag] : undefined;
          if (tagWorst && tagWorst !== "AC") {
            item.dataset.worst = tagWorst;
            const title = VERDICT_TITLES[tagWorst] || tagWorst;
            item.append(element("span", { className: "tag-worst", text: ` — ${title.toLowerCase()}` }));
          }
          list.append(item);
        }
        parts.push(list);
      }
    }
    this.summary.replaceChildren(...parts);
  }
}
