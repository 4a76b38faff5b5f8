// A design session's work pane (interviews/templates/interviews/_design_desk.html): the shared
// whiteboard (board.js, window.onsiteBoard, bound to the Y.Map "board") and the notes pane
// for estimates (a plain-text CodeMirror bound to the Y.Text "notes"), both in the session's
// one Y.Doc beside the code's Y.Text "code" (interviews/collab.py BOARD_NAME, NOTES_NAME).
//
// Page contract: #session-board (the board's container, with the server's bounds as
// data-board-max-elements, data-doc-max-bytes, data-doc-max-message-bytes), #board-alert (the
// board's role="alert" line), #design-notes (the notes editor), #design-notes-status; the board bundle's <script> comes before session.js.
// #board-full (aria-pressed) makes #design-board-pane fill the window; #design-notes-toggle
// (aria-expanded) collapses the notes pane's body (#design-notes-body).
import { defaultKeymap } from "@codemirror/commands";
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView, keymap, placeholder } from "@codemirror/view";
import { yCollab } from "y-codemirror.next";
import * as Y from "yjs";

import { mapElements } from "../board/binding.js";
import { cspNonceExtension } from "../editor.js";

export const BOARD_NAME = "board";
export const NOTES_NAME = "notes";

/** The notes pane: plain text, wrapped, shared through the document. */
export function notesEditorMount(parent, { doc, awareness, editable }) {
  const ytext = doc.getText(NOTES_NAME);
  const readOnly = new Compartment();
  const extensions = [
    cspNonceExtension(),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({ "aria-label": "Estimates and notes" }),
    placeholder("Requirements, estimates (QPS, tokens/s, memory, GPUs), APIs, open questions…"),
    readOnly.of(EditorState.readOnly.of(!editable)),
    // Undo/redo (yCollab's keys, this person's edits only), then the plain editing keys.
    yCollab(ytext, awareness, { undoManager: new Y.UndoManager(ytext) }),
    keymap.of(defaultKeymap),
  ];
  const view = new EditorView({
    parent,
    state: EditorState.create({ doc: ytext.toString(), extensions }),
  });
  return {
    view,
    text: () => ytext.toString(),
    setEditable(value) {
      view.dispatch({ effects: readOnly.reconfigure(EditorState.readOnly.of(!value)) });
    },
  };
}

/** A read-only notes view for the replay: show(text) replaces what it shows. */
export function notesViewMount(parent) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: "",
      extensions: [
        cspNonceExtension(),
        EditorView.lineWrapping,
        // Named, and a Tab stop so a keyboard can scroll it (as the replay's code is).
        EditorView.contentAttributes.of({ "aria-label": "Estimates and notes", tabindex: "0" }),
        EditorState.readOnly.of(true),
        EditorView.editable.of(false),
      ],
    }),
  });
  return {
    view,
    show(text) {
      if (text !== view.state.doc.toString()) {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      }
    },
  };
}

const HELD_TEXT = (count) =>
  `The board is full: ${count} ${count === 1 ? "element is" : "elements are"} only on your ` +
  "screen (not saved, not seen by the others). Delete something to make room.";

/** The board's alert (#board-alert, role="alert", above the board): `text`, or hidden. */
export function boardAlert(text) {
  const node = document.getElementById("board-alert");
  if (!node) return;
  node.textContent = text;
  node.hidden = !text;
}

const TOO_LARGE_TEXT = (count) =>
  `${count} ${count === 1 ? "element is" : "elements are"} too large to share (over the ` +
  "size of one message): only on your screen. Make it smaller or split it.";

const numberOr = (value, fallback) => (value ? Number(value) : fallback);

/** The full-screen button: the board pane fills the window (CSS .is-full), pressed again (or
 * Escape outside the board) it goes back. Excalidraw follows its container's new size. */
export function boardFullScreenMount(button, pane) {
  if (!button || !pane) return null;
  const set = (full) => {
    pane.classList.toggle("is-full", full);
    document.body.classList.toggle("board-is-full", full);
    button.setAttribute("aria-pressed", String(full));
    button.textContent = full ? "Leave full screen" : "Full screen";
  };
  button.addEventListener("click", () => set(button.getAttribute("aria-pressed") !== "true"));
  document.addEventListener("keydown", (event) => {
    // Escape on the board is Excalidraw's (it ends a stroke, drops a selection).
    if (event.key !== "Escape" || button.getAttribute("aria-pressed") !== "true") return;
    if (event.target instanceof Element && event.target.closest(".excalidraw")) return;
    set(false);
    button.focus();
  });
  return { set };
}

/** The notes pane's disclosure: its body shown or hidden; the text is kept either way. */
export function notesToggleMount(button) {
  const body = button && document.getElementById(button.getAttribute("aria-controls"));
  if (!body) return null;
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", String(open));
    body.hidden = !open;
  });
  return body;
}

/** The interviewer's reference board full size (issue 38, 3): #reference-open (in the
 * private reference panel, aria-pressed) opens a read-only board (zoom and pan) of the
 * elements in #reference-board-data, with its own close button (Escape outside the live board
 * closes it too). Excalidraw picks its phone layout from its container's size (under 730 px
 * wide), so the board goes beside the live one only where both keep the desktop layout (a
 * window 1860 px wide or more); narrower, it is a window of its own over the page (a
 * non-modal dialog) and the live board keeps its size (session.css). Only the interviewer's
 * page has either. */
export function referenceViewerMount() {
  const button = document.getElementById("reference-open");
  const data = document.getElementById("reference-board-data");
  const desk = document.getElementById("design-desk");
  if (!button || !data || !desk || !window.onsiteBoard) return null;
  let viewer = null;
  let pane = null;
  const elements = () => {
    try {
      const parsed = JSON.parse(data.textContent || "[]");
      return Array.isArray(parsed) ? parsed : [];
    } catch {
      return [];
    }
  };
  const set = (open) => {
    if (open && !pane) {
      pane = document.createElement("section");
      pane.id = "reference-viewer";
      pane.className = "reference-viewer";
      pane.setAttribute("role", "dialog");
      pane.setAttribute("aria-modal", "false");
      pane.setAttribute("aria-label", "Reference design (private)");
      const bar = document.createElement("div");
      bar.className = "design-board-bar reference-viewer-bar";
      const title = document.createElement("span");
      title.className = "design-board-label";
      title.textContent = "Reference design ";
      const badge = document.createElement("span");
      badge.className = "badge badge-private";
      badge.textContent = "private";
      title.append(badge);
      const close = document.createElement("button");
      close.type = "button";
      close.id = "reference-close";
      close.className = "button button-secondary board-full-button";
      close.textContent = "Close";
      close.addEventListener("click", () => {
        set(false);
        button.focus();
      });
      bar.append(title, close);
      const board = document.createElement("div");
      board.id = "reference-viewer-board";
      board.className = "board reference-viewer-board";
      pane.append(bar, board);
      desk.append(pane);
      viewer = window.onsiteBoard.view(board);
      const shown = elements();
      viewer.fit(shown);
      viewer.show(shown);
    }
    if (pane) pane.hidden = !open;
    desk.classList.toggle("has-reference", open);
    button.setAttribute("aria-pressed", String(open));
    button.textContent = open ? "Close the full-size reference board" : "Open the reference board full size";
    if (open) pane.querySelector("#reference-close").focus();
  };
  button.addEventListener("click", () => set(button.getAttribute("aria-pressed") !== "true"));
  document.addEventListener("keydown", (event) => {
    // Escape on the live board is Excalidraw's (it ends a stroke, drops a selection).
    if (event.key !== "Escape" || button.getAttribute("aria-pressed") !== "true") return;
    if (event.target instanceof Element && event.target.closest("#session-board")) return;
    set(false);
    button.focus();
  });
  return { set };
}

const KIND_NAMES = {
  rectangle: "Box", ellipse: "Ellipse", diamond: "Diamond", arrow: "Arrow", line: "Line",
  freedraw: "Drawing", text: "Text", frame: "Frame",
};

/** The board's elements as sentences (a canvas cannot be read, issue 40.3): each shape with
 * its label, each arrow with the shapes it joins; text inside a shape is its label. */
export function boardText(elements) {
  const live = elements.filter((e) => !e.isDeleted);
  const byId = new Map(live.map((e) => [e.id, e]));
  const labels = new Map();
  for (const e of live) {
    if (e.type === "text" && e.containerId && byId.has(e.containerId)) {
      labels.set(e.containerId, String(e.text || "").trim());
    }
  }
  const named = (id) => {
    const target = byId.get(id);
    if (!target) return null;
    const label = labels.get(id) || (target.type === "text" ? String(target.text || "").trim() : "");
    return label ? `“${label}”` : `a ${(KIND_NAMES[target.type] || target.type).toLowerCase()}`;
  };
  const lines = [];
  for (const e of live) {
    if (e.type === "text" && e.containerId && byId.has(e.containerId)) continue;
    const kind = KIND_NAMES[e.type] || e.type;
    const label = e.type === "text" ? String(e.text || "").trim() : labels.get(e.id);
    let line = label ? `${kind}: “${label}”` : kind;
    if (e.type === "arrow") {
      const from = e.startBinding && named(e.startBinding.elementId);
      const to = e.endBinding && named(e.endBinding.elementId);
      if (from) line += ` from ${from}`;
      if (to) line += ` to ${to}`;
    }
    lines.push(line);
  }
  return lines;
}

/** Shows `elements` as the board's text list: one item per sentence of boardText in `list`,
 * and `empty` (the "nothing is drawn" line) only when there is none. The live page's
 * #board-text and the replay's #replay-board-text are both drawn by it. */
export function boardTextShow(list, empty, elements) {
  const lines = boardText(elements);
  list.replaceChildren(...lines.map((line) => {
    const item = document.createElement("li");
    item.textContent = line;
    return item;
  }));
  if (empty) empty.hidden = lines.length > 0;
}

/** Keeps #board-text (the board as a list) in step with the shared board. */
function boardTextMount(map) {
  const list = document.getElementById("board-text-list");
  const empty = document.getElementById("board-text-empty");
  if (!list) return;
  const render = () => boardTextShow(list, empty, mapElements(map));
  map.observeDeep(render);
  render();
}

/** The board and the notes of the live page; setEditable switches both. */
export function designDeskMount({ doc, awareness, editable, userName }) {
  const boardNode = document.getElementById("session-board");
  const boardApi = window.onsiteBoard;
  if (!boardApi) throw new Error("the whiteboard bundle (board.js) is not loaded");
  // The server's bounds (interviews/docsize.py), which the binding keeps to.
  const limits = {
    maxElements: numberOr(boardNode.dataset.boardMaxElements, Infinity),
    maxDocBytes: numberOr(boardNode.dataset.docMaxBytes, Infinity),
    maxMessageBytes: numberOr(boardNode.dataset.docMaxMessageBytes, Infinity),
  };
  const board = boardApi.mount(boardNode, {
    doc,
    map: doc.getMap(BOARD_NAME),
    editable,
    awareness,
    name: userName,
    limits,
    measure: () => Y.encodeStateAsUpdate(doc).length,
    onHeld: (count, tooLarge) => {
      boardNode.dataset.held = String(count + tooLarge);
      const texts = [];
      if (count > 0) texts.push(HELD_TEXT(count));
      if (tooLarge > 0) texts.push(TOO_LARGE_TEXT(tooLarge));
      boardAlert(texts.join(" "));
    },
  });
  boardFullScreenMount(document.getElementById("board-full"), document.getElementById("design-board-pane"));
  notesToggleMount(document.getElementById("design-notes-toggle"));
  boardTextMount(doc.getMap(BOARD_NAME));
  const notes = notesEditorMount(document.getElementById("design-notes"), {
    doc,
    awareness,
    editable,
  });
  return {
    board,
    notes,
    setEditable(value) {
      board.setEditable(value);
      notes.setEditable(value);
    },
    flush: () => board.flush(),
  };
}
