// The replay page (interviews/templates/interviews/session_replay.html).
//
// The server ships every stored Yjs update with its time; the page rebuilds the document at
// any moment by applying the updates up to it, in order, to a fresh Y.Doc. Seeking forward
// applies only the new updates; seeking back starts from the nearest checkpoint (a snapshot
// of the document taken every CHECKPOINT_EVERY updates).
//
// Page contract: #replay carries data-data-url; #replay-editor, #replay-slider,
// #replay-play, #replay-speed, #replay-time, #replay-timeline (marks), #replay-marks (list).
// For a scorer with a draft, #replay-cite (data-cite-url) holds #cite-criterion, #cite-moment
// and #cite-status: cites add evidence to that criterion of the draft the review page shows.
// A design session (#replay[data-design=true]) has #replay-board (the whiteboard, read-only,
// drawn by board.js's window.onsiteBoard.view) and #replay-notes instead of #replay-editor,
// and the board as text at the moment shown (#replay-board-text-list, #replay-board-text-empty:
// a canvas cannot be read; the live page and the report have the same list).
import { python } from "@codemirror/lang-python";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { basicSetup } from "codemirror";
import * as Y from "yjs";

import { cspNonceExtension } from "../editor.js";
import { elementProblem, isValidElement } from "../board/schema.js";
import { boardBursts, burstLabel, elementSummary } from "./bursts.js";
import { BOARD_NAME, NOTES_NAME, boardTextShow, notesViewMount } from "./design.js";
import { getJson, postJson } from "./api.js";
import { formatLeft } from "./timer.js";
import { element } from "../dom.js";

const CHECKPOINT_EVERY = 200;
// Board edits this close together are one mark on the timeline (a shape drawn, moved, typed).
const STROKE_GAP_MS = 8000;
const TICK_MS = 50;
// Marks that are no evidence of anything (connections, settings): no cite button.
const UNCITED = new Set(["joined", "left", "settings"]);

function decode(base64) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Rebuilds the text at any update index from the ordered updates. */
export class DocumentTimeline {
  constructor(updates) {
    this.updates = updates; // [{t, update: Uint8Array}] in stored order
    this.checkpoints = [{ index: 0, state: null }];
    this.doc = new Y.Doc();
    this.applied = 0; // how many updates this.doc has
    // Checkpoints are built once, in one pass; so are the board's strokes (a design session).
    this.strokes = [];
    this.edits = []; // each board-touching update: {t, author, changes} (bursts.js)
    const doc = new Y.Doc();
    const board = doc.getMap(BOARD_NAME);
    let touched = false;
    let changes = [];
    const summary = (value, id) =>
      elementSummary(value, value && isValidElement(value, id) && !value.isDeleted);
    board.observe((event) => {
      touched = true;
      event.changes.keys.forEach((change, id) => {
        changes.push({
          id,
          before: change.action === "add" ? null : summary(change.oldValue, id),
          after: change.action === "delete" ? null : summary(board.get(id), id),
        });
      });
    });
    updates.forEach((entry, i) => {
      touched = false;
      changes = [];
      Y.applyUpdate(doc, entry.update);
      if (touched) {
        this.strokeAdd(entry, liveElements(board).length);
        this.edits.push({ t: entry.t, author: entry.author, changes });
      }
      if ((i + 1) % CHECKPOINT_EVERY === 0) {
        this.checkpoints.push({ index: i + 1, state: Y.encodeStateAsUpdate(doc) });
      }
    });
  }

  /** One stroke is one shape drawn (or shapes moved, restyled, typed into) by one person:
   * the board updates that follow its first one, by the same author, with no new shape and no
   * pause over STROKE_GAP_MS. {t (start), end, author, before, shapes (live elements after)};
   * the timeline shows each as a mark. */
  strokeAdd({ t, author }, shapes) {
    const last = this.strokes[this.strokes.length - 1];
    const before = last ? last.shapes : 0;
    if (last && last.author === author && t - last.end <= STROKE_GAP_MS && shapes <= before) {
      last.end = t;
      last.shapes = shapes;
    } else {
      this.strokes.push({ t, end: t, author, before, shapes });
    }
  }

  /** How many updates happened at or before `t` ms. */
  countAt(t) {
    let lo = 0;
    let hi = this.updates.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.updates[mid].t <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  textAt(t) {
    return this.docAt(t).getText("code").toString();
  }

  /** The document as it was at `t` ms (the timeline's own Y.Doc: read it, never change it). */
  docAt(t) {
    const count = this.countAt(t);
    if (count < this.applied) {
      const checkpoint = [...this.checkpoints].reverse().find((c) => c.index <= count);
      this.doc = new Y.Doc();
      if (checkpoint.state) Y.applyUpdate(this.doc, checkpoint.state);
      this.applied = checkpoint.index;
    }
    for (; this.applied < count; this.applied += 1) {
      Y.applyUpdate(this.doc, this.updates[this.applied].update);
    }
    return this.doc;
  }

  /** The time of the first update after which the board has a live element (or null). */
  firstBoardAt() {
    const doc = new Y.Doc();
    const board = doc.getMap(BOARD_NAME);
    for (const entry of this.updates) {
      Y.applyUpdate(doc, entry.update);
      if (liveElements(board).length > 0) return entry.t;
    }
    return null;
  }
}

/** The board map's elements that are not deleted (what a viewer sees): only those the
 * board's schema accepts (the server's board_from_updates skips the same ones). */
export function liveElements(board) {
  const elements = [];
  board.forEach((value, key) => {
    if (isValidElement(value, key) && !value.isDeleted) elements.push(value);
  });
  return elements;
}

/** A design session's replay: the board and the notes at each moment. */
function designViewMount() {
  const boardApi = window.onsiteBoard;
  if (!boardApi) throw new Error("the whiteboard bundle (board.js) is not loaded");
  const board = boardApi.view(document.getElementById("replay-board"));
  const notes = notesViewMount(document.getElementById("replay-notes"));
  const textList = document.getElementById("replay-board-text-list");
  const textEmpty = document.getElementById("replay-board-text-empty");
  let shown = null; // the board's elements last handed to the view, by id and version
  let count = 0;
  return {
    show(doc) {
      const map = doc.getMap(BOARD_NAME);
      const elements = [];
      const skipped = [];
      map.forEach((value, id) => {
        const problem = elementProblem(value, id);
        if (problem === null) elements.push(value);
        else skipped.push({ id, problem });
      });
      const key = [...elements.map((e) => `${e.id}:${e.version}`), ...skipped.map((s) => `!${s.id}:${s.problem}`)].sort().join(",");
      if (key !== shown) {
        shown = key;
        board.show(elements, skipped);
        count = elements.filter((e) => !e.isDeleted).length;
        if (textList) {
          boardTextShow(textList, textEmpty, elements);
          textList.hidden = count === 0; // no empty Tab stop: the "nothing drawn" line says it
        }
      }
      notes.show(doc.getText(NOTES_NAME).toString());
    },
    count: () => count,
    notes: () => notes.view.state.doc.toString(),
    /** Frame the board on everything it will ever show (the document at the end). */
    frame(doc) {
      board.fit(liveElements(doc.getMap(BOARD_NAME)));
    },
  };
}

export async function replayPageMount(root) {
  const data = await getJson(root.dataset.dataUrl);
  const updates = data.updates.map((u) => ({ t: u.t, author: u.author, update: decode(u.update) }));
  const timeline = new DocumentTimeline(updates);
  const duration = Math.max(1, data.duration_ms);

  const slider = document.getElementById("replay-slider");
  const playButton = document.getElementById("replay-play");
  const speed = document.getElementById("replay-speed");
  const timeLabel = document.getElementById("replay-time");
  const track = document.getElementById("replay-timeline");
  const markList = document.getElementById("replay-marks");
  slider.max = String(duration);
  slider.step = "100";

  const design = root.dataset.design === "true" ? designViewMount() : null;
  const view = design
    ? null
    : new EditorView({
        parent: document.getElementById("replay-editor"),
        state: EditorState.create({
          doc: "",
          extensions: [
            cspNonceExtension(), basicSetup, python(), EditorState.readOnly.of(true),
            // Named, and reachable by Tab so a keyboard can scroll it (issue 40.3).
            EditorView.contentAttributes.of({ "aria-label": "Code at this moment", tabindex: "0" }),
          ],
        }),
      });

  let position = 0;
  let timer = null;
  const show = (t) => {
    position = Math.max(0, Math.min(duration, t));
    slider.value = String(position);
    timeLabel.textContent = `${formatLeft(position)} / ${formatLeft(duration)}`;
    if (design) {
      design.show(timeline.docAt(position));
    } else {
      const text = timeline.textAt(position);
      if (text !== view.state.doc.toString()) {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      }
    }
    root.dataset.position = String(position);
    root.dispatchEvent(new CustomEvent("replay:moved"));
  };
  const pause = () => {
    clearInterval(timer);
    timer = null;
    playButton.textContent = "Play";
    root.dataset.playing = "false";
  };
  const play = () => {
    if (position >= duration) show(0);
    playButton.textContent = "Pause";
    root.dataset.playing = "true";
    timer = setInterval(() => {
      const next = position + TICK_MS * Number(speed.value || 1);
      show(next);
      if (next >= duration) pause();
    }, TICK_MS);
  };

  slider.addEventListener("input", () => show(Number(slider.value)));
  playButton.addEventListener("click", () => (timer ? pause() : play()));

  const cite = citeBar(() => position);
  // A design session: the board's bursts are marks too (one entry per run of edits by one
  // person: what it added, moved, removed), cited as the moment they end, with the board
  // complete up to then; the stroke buttons step through every stroke within them.
  const marks = design
    ? [...data.marks, ...burstMarks(boardBursts(timeline.edits), timeline)]
    : data.marks;
  if (design) strokeStepsMount(timeline.strokes, () => position, show);
  marks.sort((a, b) => a.t - b.t);
  // Marks: runs and submissions, pastes, tab changes, questions and notes, at their moments.
  for (const mark of marks) {
    const left = `${(100 * Math.min(mark.t, duration)) / duration}%`;
    // A tick on the timeline is for the pointer only (too narrow to be a 24 px target, and a
    // second copy of the list below, whose buttons the keyboard and screen readers use).
    const tick = element("span", {
      className: `mark mark-${mark.kind}`,
      attrs: { title: mark.label, "aria-hidden": "true", "data-kind": mark.kind, "data-t": String(mark.t) },
    });
    tick.style.left = left;
    tick.addEventListener("click", () => show(mark.t));
    track.append(tick);
    const item = element("li", {
      className: `mark-item item-${mark.kind}`,
      attrs: { "data-kind": mark.kind },
    });
    const jump = element("button", {
      className: "link-button mark-time",
      text: formatLeft(mark.t),
      attrs: { type: "button" },
    });
    jump.addEventListener("click", () => show(mark.t));
    item.append(jump, element("span", { text: ` ${mark.label}` }));
    if (mark.actor) {
      item.append(element("span", { className: "mark-actor", text: ` (${mark.actor})` }));
    }
    if (cite && !UNCITED.has(mark.kind)) item.append(" ", cite.button(evidenceOf(mark)));
    markList.append(item);
  }

  design?.frame(timeline.docAt(duration));
  // A link to a moment (#t=<ms>, as the review page's evidence links make) opens there.
  const linked = /^#t=(\d+)$/.exec(window.location.hash);
  show(linked ? Number(linked[1]) : duration);
  window.addEventListener("hashchange", () => {
    const moment = /^#t=(\d+)$/.exec(window.location.hash);
    if (moment) show(Number(moment[1]));
  });
  root.dataset.ready = "true";
  window.onsiteReplay = {
    seek: show,
    code: () => (view ? view.state.doc.toString() : ""),
    boardCount: () => (design ? design.count() : 0),
    notes: () => (design ? design.notes() : ""),
    firstBoardAt: () => timeline.firstBoardAt(),
    duration,
    play,
    pause,
  };
}

/** The board's bursts as timeline marks, each at the moment its burst ends: what it did, by
 * whom, and how many shapes the board has then. */
export function burstMarks(bursts, timeline) {
  return bursts.map((burst) => {
    const shapes = liveElements(timeline.docAt(burst.end).getMap(BOARD_NAME)).length;
    return {
      t: burst.end,
      kind: "board",
      label: `${burstLabel(burst)} (${shapes} on the board)`,
      actor: "",
      strokes: burst.edits,
    };
  });
}

/** The previous/next stroke buttons (#replay-stroke-prev, #replay-stroke-next): the slider to
 * the end of the stroke before or after the current moment, so scrubbing still reaches each
 * stroke of a burst. #replay-stroke-at says which stroke is shown. */
function strokeStepsMount(strokes, current, seek) {
  const prev = document.getElementById("replay-stroke-prev");
  const next = document.getElementById("replay-stroke-next");
  const at = document.getElementById("replay-stroke-at");
  if (!prev || !next) return;
  const ends = strokes.map((stroke) => stroke.end);
  const say = () => {
    const t = current();
    const done = ends.filter((end) => end <= t).length;
    if (at) at.textContent = `stroke ${done} of ${ends.length}`;
    prev.disabled = !ends.some((end) => end < t);
    next.disabled = !ends.some((end) => end > t);
  };
  prev.addEventListener("click", () => {
    const t = current();
    const before = ends.filter((end) => end < t);
    if (before.length) seek(before[before.length - 1]);
  });
  next.addEventListener("click", () => {
    const t = current();
    const after = ends.find((end) => end > t);
    if (after !== undefined) seek(after);
  });
  document.getElementById("replay")?.addEventListener("replay:moved", say);
  say();
}

/** What citing a mark adds: its run, its question, else the moment it happened. */
export function evidenceOf(mark) {
  if (mark.submission && ["run", "submit", "final_submit"].includes(mark.kind)) {
    return `submission:${mark.submission.id}`;
  }
  if (mark.kind === "question" && mark.question) return `question:${mark.question}`;
  return `moment:${mark.t}`;
}

/** The scoring bar (absent for the candidate): cite the current second or a mark into the
 * chosen criterion; the server answers the label the review page will show. */
function citeBar(currentMs) {
  const bar = document.getElementById("replay-cite");
  if (!bar) return null;
  const criterion = document.getElementById("cite-criterion");
  const status = document.getElementById("cite-status");
  const send = async (evidence) => {
    const title = criterion.selectedOptions[0]?.textContent || criterion.value;
    try {
      const answer = await postJson(bar.dataset.citeUrl, { criterion: criterion.value, evidence });
      status.textContent = `Added “${answer.label}” to ${title}.`;
      status.dataset.state = "saved";
    } catch (error) {
      status.textContent = `Not added: ${error.message}`;
      status.dataset.state = "error";
    }
  };
  document.getElementById("cite-moment").addEventListener("click", () => {
    send(`moment:${Math.floor(currentMs() / 1000) * 1000}`);
  });
  return {
    button(evidence) {
      const button = element("button", {
        className: "link-button cite",
        text: "cite",
        attrs: { type: "button", "data-evidence": evidence },
      });
      button.addEventListener("click", () => send(evidence));
      return button;
    },
  };
}
