// Entry point of the whiteboard bundle (static/frontend/board.js + board.css), loaded only on
// a design session's page and its replay, before session.js: it exposes window.onsiteBoard,
// which the session bundle calls with the session's Y.Doc.
//
//   window.onsiteBoard.mount(container, {doc, map, editable, awareness, colors})
//       -> {setEditable(bool), flush(), elements(), alert(message), skipped(), api}
//                                                             the live, shared board
//   window.onsiteBoard.view(container)
//       -> {show(elements, skipped), fit(elements)}           a read-only board (the replay)
//
// An element the board's schema (schema.js) does not accept is never handed to Excalidraw:
// the board says at its top how many were skipped (role="status"), and the console says why.
// alert(message) shows a message at the board (role="alert"): the server refused a change.
import "./assets.js";

import { CaptureUpdateAction, Excalidraw } from "@excalidraw/excalidraw";
import "@excalidraw/excalidraw/index.css";
import { createElement } from "react";
import { createRoot } from "react-dom/client";

import { BoardBinding, checkedElements, mapElements } from "./binding.js";
import { PointerSync } from "./pointers.js";
import "./board.css";

// No file menu (open, save, export: the board lives in the session, and the report renders
// its own picture server-side), no images (pictures are files the document does not carry).
const UI_OPTIONS = {
  canvasActions: {
    loadScene: false,
    saveToActiveFile: false,
    export: false,
    saveAsImage: false,
    clearCanvas: true,
    toggleTheme: false,
    changeViewBackgroundColor: false,
  },
  tools: { image: false },
};

function render(root, props) {
  root.render(
    createElement(Excalidraw, {
      UIOptions: UI_OPTIONS,
      langCode: "en",
      handleKeyboardGlobally: false,
      autoFocus: false,
      detectScroll: true,
      aiEnabled: false,
      ...props,
    }),
  );
}

const plural = (n, one, many) => (n === 1 ? one : many);

// Excalidraw's buttons that have no name of their own (issue 40.3: a screen reader said only
// "button"), named as Excalidraw renders them, whenever it renders them.
const UNNAMED = [[".main-menu-trigger", "Board menu"]];

function namesEnsure(host) {
  const name = () => {
    for (const [selector, label] of UNNAMED) {
      for (const button of host.querySelectorAll(`${selector}:not([aria-label])`)) {
        button.setAttribute("aria-label", label);
      }
    }
    // The zoom button shows the zoom ("100%") but is named "Reset zoom": its name says both,
    // so what a person sees is what a voice user says (WCAG 2.5.3).
    for (const button of host.querySelectorAll(".reset-zoom-button")) {
      const label = `${button.textContent.trim()}, reset zoom`;
      if (button.getAttribute("aria-label") !== label) button.setAttribute("aria-label", label);
    }
    // Excalidraw's own <footer> (zoom, undo) is not the page's footer: a named group instead.
    // (Excalidraw marks it role="contentinfo", a second page footer inside the main landmark.)
    for (const footer of host.querySelectorAll("footer.layer-ui__wrapper__footer")) {
      if (footer.getAttribute("role") === "group") continue;
      footer.setAttribute("role", "group");
      footer.setAttribute("aria-label", "Board controls");
    }
    // The colour pickers of a selected shape's properties are dialogs without a name: each is
    // named after its own button ("Stroke", "Background").
    for (const dialog of host.querySelectorAll('.color-picker-container[role="dialog"]:not([aria-label])')) {
      const trigger = dialog.querySelector(".color-picker__button[aria-label]");
      dialog.setAttribute("aria-label", `${trigger ? trigger.getAttribute("aria-label") : "Colour"} colours`);
    }
    // Excalidraw's named sections ("Shapes", "Canvas actions") are landmarks; with two boards
    // on one page (the live board and the interviewer's reference) each is named twice the
    // same, so each also says whose board it is: "Shapes, Whiteboard".
    const board = host.parentElement?.closest("[aria-label]")?.getAttribute("aria-label");
    if (!board) return;
    for (const section of host.querySelectorAll("section[aria-labelledby]")) {
      const heading = document.getElementById(section.getAttribute("aria-labelledby"));
      const label = heading ? heading.textContent.trim() : "";
      if (!label) continue;
      section.removeAttribute("aria-labelledby");
      section.setAttribute("aria-label", `${label}, ${board}`);
    }
  };
  new MutationObserver(name).observe(host, { childList: true, subtree: true, characterData: true });
  name();
}

/** Excalidraw's host inside `container`, and the notices over it (React owns only the host). */
function boardFrame(container) {
  const host = document.createElement("div");
  host.className = "board-host";
  const notices = document.createElement("div");
  notices.className = "board-notices";
  const alertLine = document.createElement("p");
  alertLine.className = "board-notice board-alert";
  alertLine.setAttribute("role", "alert");
  alertLine.hidden = true;
  const skippedLine = document.createElement("p");
  skippedLine.className = "board-notice board-skipped";
  skippedLine.setAttribute("role", "status");
  skippedLine.hidden = true;
  notices.append(alertLine, skippedLine);
  container.append(host, notices);
  namesEnsure(host);
  const drawn = new Map(); // id -> problem: stored elements skipped
  const unshared = new Map(); // id -> problem: elements of this page the board cannot keep
  const render = () => {
    const parts = [];
    if (drawn.size) {
      parts.push(`${drawn.size} ${plural(drawn.size, "element", "elements")} could not be drawn and ${plural(drawn.size, "was", "were")} skipped.`);
    }
    if (unshared.size) {
      parts.push(`${unshared.size} ${plural(unshared.size, "element", "elements")} of yours could not be shared (the board does not keep ${plural(unshared.size, "it", "them")}).`);
    }
    skippedLine.textContent = parts.join(" ");
    skippedLine.hidden = parts.length === 0;
    container.dataset.skipped = String(drawn.size + unshared.size);
  };
  return {
    host,
    skipped(items) {
      for (const { id, problem, local } of items) {
        // The console says why (the notice only counts): a person reporting it has the text.
        console.warn(`Board: ${problem}${local ? " (not shared)" : " (skipped)"}`);
        (local ? unshared : drawn).set(id, problem);
      }
      render();
    },
    /** Replace the skipped stored elements (the replay: each moment has its own). */
    setSkipped(items) {
      const before = new Set(drawn.values());
      drawn.clear();
      for (const { id, problem } of items) {
        if (!before.has(problem)) console.warn(`Board: ${problem} (skipped)`);
        drawn.set(id, problem);
      }
      render();
    },
    alert(message) {
      alertLine.textContent = message || "";
      alertLine.hidden = !message;
    },
    count: () => drawn.size + unshared.size,
  };
}

/** Keeps Excalidraw's idea of where its canvas is on the page (it caches the offset, and maps
 * each pointer event through it) in step with the page: whenever anything could have moved or
 * resized the board (a bar or a banner above it appearing, a chat message, the window, a
 * scroll), its box is compared, and a changed one is handed to Excalidraw (api.refresh()).
 * Otherwise a shape lands as far from the pointer as the board has moved. */
function trackOffsets(container, api) {
  let last = "";
  let queued = false;
  const check = () => {
    queued = false;
    const box = container.getBoundingClientRect();
    const key = `${box.left},${box.top},${box.width},${box.height}`;
    if (key === last) return;
    last = key;
    api.refresh();
  };
  const soon = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(check);
  };
  new ResizeObserver(soon).observe(container);
  new ResizeObserver(soon).observe(document.body);
  new MutationObserver(soon).observe(document.body, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["hidden", "class", "style", "open"],
  });
  window.addEventListener("resize", soon);
  window.addEventListener("scroll", soon, { capture: true, passive: true });
  // The pointer entering or moving is checked at once: before Excalidraw's own handlers.
  container.addEventListener("pointerenter", check, { capture: true, passive: true });
  container.addEventListener("pointermove", check, { capture: true, passive: true });
  check();
}

/** The live board: Excalidraw bound to the session document's "board" map. */
function mount(
  container,
  { doc, map, editable = true, awareness = null, name = "", limits = {}, measure = null, onHeld = () => {} },
) {
  const frame = boardFrame(container);
  const root = createRoot(frame.host);
  let binding = null;
  let pointers = null;
  let reconciled = false;
  let props = {};
  const ready = new Promise((resolve) => {
    props = {
      initialData: { elements: mapElements(map, frame.skipped), appState: { name }, scrollToContent: true },
      viewModeEnabled: !editable,
      isCollaborating: Boolean(awareness),
      excalidrawAPI: (api) => {
        if (!api || binding) return;
        binding = new BoardBinding({
          doc,
          map,
          api,
          captureNever: CaptureUpdateAction.NEVER,
          editable,
          onSkipped: frame.skipped,
          onFirstContent: () => api.scrollToContent(undefined, { fitToContent: false, animate: false }),
          limits,
          measure,
          onHeld,
          settle: { few: 50, ms: 250, maxMs: 2000 },
        });
        trackOffsets(container, api);
        if (awareness) pointers = new PointerSync({ api, awareness });
        resolve(api);
      },
      onChange: (elements, appState) => {
        pointers?.selected(appState?.selectedElementIds);
        // How many live elements this page shows (tests wait on it).
        const count = String(elements.filter((element) => !element.isDeleted).length);
        if (container.dataset.count !== count) container.dataset.count = count;
        if (!binding) return;
        if (!reconciled) {
          // The first change comes once Excalidraw has loaded initialData: anything the map
          // received between the mount and then is taken now (it only takes newer versions).
          reconciled = true;
          binding.applyRemote([...map.keys()]);
        }
        binding.changed();
      },
      onPointerUpdate: (payload) => pointers?.moved(payload),
    };
    render(root, props);
  });
  container.dataset.board = "mounted";
  return {
    ready,
    setEditable(value) {
      binding?.setEditable(value);
      props = { ...props, viewModeEnabled: !value };
      render(root, props);
      container.dataset.editable = String(value);
    },
    flush: () => (binding ? binding.flush() : 0),
    /** Show a message at the board (role="alert"); "" hides it. */
    alert: (message) => frame.alert(message),
    /** How many elements are skipped (stored ones not drawn, and this page's not shared). */
    skipped: () => frame.count(),
    /** The scene's live elements (tests compare them across browsers and with the server). */
    elements: () =>
      binding ? binding.api
            .getSceneElements()
            .map((e) => ({ id: e.id, type: e.type, version: e.version, versionNonce: e.versionNonce })) : [],
    get api() {
      return binding?.api;
    },
    /** Who else is on the board: [{id, name, pointer, selected}] (tests read it). */
    collaborators: () =>
      binding
        ? [...binding.api.getAppState().collaborators.entries()].map(([id, user]) => ({
            id,
            name: user.username,
            pointer: user.pointer || null,
            selected: Object.keys(user.selectedElementIds || {}),
          }))
        : [],
    /** Follow the participant `id` (null: stop), as a click on their avatar does. */
    follow: (id) => pointers?.followUser(id),
    following: () => binding?.api.getAppState().userToFollow?.socketId ?? null,
  };
}

/** A read-only board shown one scene at a time (the replay's scrubbing). */
function view(container) {
  const board = boardFrame(container);
  const root = createRoot(board.host);
  let api = null;
  // Excalidraw loads its initialData (empty) after handing out its API: a scene given before
  // that first change would be replaced by it. So the latest scene waits for both.
  let loaded = false;
  let latest = null;
  const apply = () => {
    if (!api || !loaded || !latest) return;
    const scene = latest;
    latest = null;
    api.updateScene({ elements: scene, captureUpdate: CaptureUpdateAction.NEVER });
    container.dataset.count = String(scene.filter((e) => !e.isDeleted).length);
  };
  /** Show `elements` (values of the board map); `skipped`: [{id, problem}] the caller left out
   * already. An element the schema does not accept is skipped here too, and counted. */
  const show = (elements, skipped = []) => {
    const checked = checkedElements(elements.map((e) => [undefined, e]));
    board.setSkipped([...skipped, ...checked.skipped]);
    latest = checked.elements;
    apply();
  };
  let framed = false;
  render(root, {
    viewModeEnabled: true,
    initialData: { elements: [] },
    excalidrawAPI: (value) => {
      if (!value || api) return;
      api = value;
      apply();
    },
    // The first change comes once Excalidraw has set its scene up (loading initialData resets
    // the scroll): the scene is shown and the board framed then.
    onChange: () => {
      if (!loaded) {
        loaded = true;
        apply();
      }
      // What the scene really holds (data-count is what was handed to it).
      container.dataset.drawn = String(api.getSceneElements().length);
      if (framed || !frame) return;
      framed = true;
      fitNow();
    },
  });
  // The view is framed once on `elements` (the replay passes the final board, so every
  // earlier moment is inside the frame and scrubbing never moves it).
  let frame = null;
  const fitNow = () => {
    if (!api || !frame || frame.length === 0) return;
    api.scrollToContent(frame, { fitToContent: true, animate: false });
  };
  // A read-only view keeps the whole board in frame when its box changes (a phone turned,
  // a window resized): nobody is panning it by hand.
  new ResizeObserver(() => {
    if (framed) requestAnimationFrame(fitNow);
  }).observe(container);
  return {
    show,
    fit(elements) {
      const checked = checkedElements(elements.map((e) => [undefined, e]));
      frame = checked.elements.filter((e) => !e.isDeleted);
      if (framed) fitNow();
    },
  };
}

/** An author's board (the studio's reference board, issue 38, 5): Excalidraw on its own,
 * showing `elements`; each change by the author hands the live elements to `onChange`
 * (debounced). `replace(elements)` shows others (the JSON typed by hand). */
function edit(container, { elements = [], onChange = () => {} }) {
  const frame = boardFrame(container);
  const root = createRoot(frame.host);
  const first = checkedElements(elements.map((e) => [undefined, e]));
  frame.setSkipped(first.skipped);
  let api = null;
  let shown = null; // the elements' ids and versions last loaded or handed on
  let timer = null;
  const key = (list) => list.map((e) => `${e.id}:${e.version}`).join(",");
  render(root, {
    initialData: { elements: first.elements, scrollToContent: true },
    excalidrawAPI: (value) => {
      if (!value || api) return;
      api = value;
      trackOffsets(container, api);
    },
    onChange: (sceneElements) => {
      const live = sceneElements.filter((e) => !e.isDeleted);
      container.dataset.count = String(live.length);
      const now = key(live);
      // The first change is the loaded elements: only the author's own changes are handed on.
      if (shown === null) shown = now;
      if (now === shown) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        const settled = api.getSceneElements().filter((e) => !e.isDeleted);
        shown = key(settled);
        onChange(settled.map((e) => ({ ...e })));
      }, 250);
    },
  });
  container.dataset.board = "mounted";
  return {
    replace(next) {
      if (!api) return;
      const checked = checkedElements(next.map((e) => [undefined, e]));
      frame.setSkipped(checked.skipped);
      shown = key(checked.elements.filter((e) => !e.isDeleted));
      api.updateScene({ elements: checked.elements, captureUpdate: CaptureUpdateAction.NEVER });
    },
  };
}

/** Mounts an author's board on each `[data-board-editor]` container: the value of the textarea
 * it names (a JSON list of elements) is what it shows, and what it draws is written back there
 * (as JSON, with an "input" event), so the form saves it as it saves every other part. One
 * that names none (data-board-editor="") is a board to try, kept nowhere. */
function editorsMount() {
  for (const container of document.querySelectorAll("[data-board-editor]")) {
    if (container.dataset.board) continue;
    if (!container.dataset.boardEditor) {
      edit(container, {}); // a board to try (a draft's try page): nothing is kept
      continue;
    }
    const textarea = document.getElementById(container.dataset.boardEditor);
    if (!textarea) continue;
    const parse = () => {
      try {
        const value = JSON.parse(textarea.value || "[]");
        return Array.isArray(value) ? value : null;
      } catch {
        return null;
      }
    };
    const editor = edit(container, {
      elements: parse() || [],
      onChange: (elements) => {
        textarea.value = JSON.stringify(elements, null, 1);
        textarea.dispatchEvent(new Event("input", { bubbles: true }));
      },
    });
    // JSON typed or pasted by hand shows on the board once it parses.
    textarea.addEventListener("change", () => {
      const elements = parse();
      if (elements) editor.replace(elements);
    });
  }
}

window.onsiteBoard = { mount, view, edit };
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", editorsMount);
else editorsMount();
