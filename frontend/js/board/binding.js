// The whiteboard's Yjs binding: Excalidraw's scene <-> the Y.Map "board" of the session's one
// Y.Doc (interviews/collab.py BOARD_NAME; the code editor binds Y.Text "code" of the same doc).
//
// The map holds element id -> the whole element as a plain JSON object, set again each time
// the element's `version` grows; a deleted element stays with `isDeleted: true` (Excalidraw's
// own tombstone), so a late joiner learns about deletions too.
//
// - Local edits: Excalidraw's onChange fires on every pointer move; the binding sets, at most
//   every FLUSH_MS and in one transaction, each element whose version is above the map's.
// - Remote edits: the map's observer takes each changed element whose version is above the
//   scene's (or equal with another versionNonce: two people changed it at once and Yjs chose
//   one value for everybody) and hands the scene to Excalidraw without an undo entry. The
//   scene then has the map's versions, so onChange finds nothing to send: nothing is echoed.
//
// The binding never imports yjs itself: the doc and map belong to the session bundle's copy,
// and a second copy of yjs in the page would break its constructor checks.
//
// Only elements the board's schema accepts (schema.js, the twin of the server's
// interviews/boardschema.py) go either way: one the map holds that fails it (a board stored
// before the server checked, a hostile page) is never handed to Excalidraw, and one of the
// scene's that fails it (a tool the board does not offer) is never written into the map, which
// the server would refuse. Either is reported through `onSkipped` (the page says so at the
// board and logs why), so one bad element never blanks a board.
import { elementProblem } from "./schema.js";

export const BOARD_NAME = "board";
export const FLUSH_MS = 100;

// Elements are mutated in place by Excalidraw (mutateElement): what goes into the map, and what
// comes out of it into the scene, is a copy, so neither side changes the other behind its back.
const copy = (value) => JSON.parse(JSON.stringify(value));

const hasVersion = (value) =>
  value !== null && typeof value === "object" && Number.isFinite(value.version);

// What Excalidraw has on every element of a type, for the fields the schema lets a stored
// element leave out (older boards, elements written by hand): Excalidraw reads them as given.
const BASE_DEFAULTS = {
  x: 0, y: 0, width: 0, height: 0, angle: 0, strokeColor: "#1e1e1e",
  backgroundColor: "transparent", fillStyle: "solid", strokeWidth: 2, strokeStyle: "solid",
  roughness: 1, opacity: 100, groupIds: [], frameId: null, roundness: null, seed: 1,
  versionNonce: 0, isDeleted: false, boundElements: null, updated: 0, link: null, locked: false,
};
const TYPE_DEFAULTS = {
  line: { lastCommittedPoint: null, startBinding: null, endBinding: null, startArrowhead: null, endArrowhead: null },
  arrow: { lastCommittedPoint: null, startBinding: null, endBinding: null, startArrowhead: null, endArrowhead: "arrow", elbowed: false },
  freedraw: { pressures: [], simulatePressure: true, lastCommittedPoint: null },
  text: { fontSize: 20, fontFamily: 5, textAlign: "left", verticalAlign: "top", containerId: null, autoResize: true, lineHeight: 1.25 },
  frame: { name: null },
};

/** A valid element as Excalidraw needs it: a copy, every field it reads present. */
export function drawable(element) {
  const out = { ...BASE_DEFAULTS, ...TYPE_DEFAULTS[element.type], ...copy(element) };
  if (out.type === "text" && typeof out.originalText !== "string") out.originalText = out.text;
  return out;
}

/** The map's elements Excalidraw can draw, as drawable copies, and the problems of the rest
 * ({id, problem}), in drawing order. */
export function checkedElements(entries) {
  const elements = [];
  const skipped = [];
  for (const [key, value] of entries) {
    const problem = elementProblem(value, key);
    if (problem === null) elements.push(drawable(value));
    else skipped.push({ id: key === undefined ? String(value?.id ?? "") : String(key), problem });
  }
  return { elements: drawingOrder(elements), skipped };
}

/** Whether the map's `remote` element should replace the scene's `local` one. */
export function remoteWins(local, remote) {
  if (!local) return true;
  if (remote.version !== local.version) return remote.version > local.version;
  return remote.versionNonce !== local.versionNonce;
}

/** Drawing order: the fractional `index`, then the id (what the server's board_from_updates
 * uses, by code point), so every browser stacks the same elements the same way. */
export function drawingOrder(elements) {
  const key = (e) => String(e.index ?? "");
  return [...elements].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka !== kb) return ka < kb ? -1 : 1;
    if (a.id === b.id) return 0;
    return a.id < b.id ? -1 : 1;
  });
}

const mapEntries = (map) => {
  const entries = [];
  map.forEach((value, key) => entries.push([key, value]));
  return entries;
};

/** Every element in the map Excalidraw can draw (deleted ones included), in drawing order,
 * as copies; `onSkipped` hears about the others. */
export function mapElements(map, onSkipped = () => {}) {
  const { elements, skipped } = checkedElements(mapEntries(map));
  if (skipped.length) onSkipped(skipped);
  return elements;
}

export class BoardBinding {
  /**
   * @param {{doc: object, map: object, api: object, captureNever: unknown, editable?: boolean}} options
   *   doc, map: the session's Y.Doc and its Y.Map "board"; api: the excalidrawAPI;
   *   captureNever: Excalidraw's CaptureUpdateAction.NEVER (remote edits are not undoable).
   */
  constructor({ doc, map, api, captureNever, editable = true, onFirstContent = () => {}, onSkipped = () => {} }) {
    this.doc = doc;
    this.map = map;
    this.api = api;
    this.captureNever = captureNever;
    this.editable = editable;
    this.timer = null;
    // Called once, when the board first has something to show (a late joiner's view is then
    // framed on what was drawn before it came).
    this.onFirstContent = onFirstContent;
    // Told each element that is skipped ([{id, problem, local}]), once per id and version.
    this.onSkipped = onSkipped;
    this.reported = new Map(); // id -> the version (or problem) last reported
    this.onRemote = (event, transaction) => {
      if (transaction.origin === this) return; // our own flush
      this.applyRemote([...event.keysChanged]);
    };
    map.observe(this.onRemote);
    // What the map already has (a reload, a late joiner); the rest arrives through onRemote.
    this.applyRemote([...map.keys()]);
  }

  /** Excalidraw's onChange: schedule a flush (throttled, trailing). */
  changed() {
    if (!this.editable || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, FLUSH_MS);
  }

  /** Send every element whose version grew, in one transaction; returns how many. */
  flush() {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (!this.editable) return 0;
    const unsharable = [];
    const grown = [];
    for (const element of this.api.getSceneElementsIncludingDeleted()) {
      const stored = this.map.get(element.id);
      if (hasVersion(stored) && element.version <= stored.version) continue;
      // Only what grew is checked (a whole check of every element on each flush would cost
      // the points of every stroke on the board ten times a second).
      const value = copy(element);
      const problem = elementProblem(value, element.id);
      if (problem === null) {
        this.reported.delete(element.id);
        grown.push(value);
      } else {
        unsharable.push({ id: element.id, problem, local: true, version: element.version });
      }
    }
    this.report(unsharable);
    if (grown.length === 0) return 0;
    this.doc.transact(() => {
      for (const value of grown) this.map.set(value.id, value);
    }, this);
    return grown.length;
  }

  applyRemote(keys) {
    if (keys.length === 0) return;
    const scene = this.api.getSceneElementsIncludingDeleted();
    const byId = new Map(scene.map((element) => [element.id, element]));
    let changed = false;
    let localAhead = false;
    const skipped = [];
    for (const key of keys) {
      const remote = this.map.get(key);
      if (remote === undefined) continue; // removed from the map: the scene keeps its own
      const problem = elementProblem(remote, key);
      if (problem !== null) {
        skipped.push({ id: String(key), problem, local: false, version: problem });
        continue;
      }
      if (this.reported.has(key)) this.reported.delete(key); // a good version came
      const local = byId.get(key);
      if (remoteWins(local, remote)) {
        byId.set(key, drawable(remote));
        changed = true;
      } else if (local.version > remote.version) {
        localAhead = true; // ours is newer: it goes out with the next flush
      }
    }
    if (changed) {
      const wasEmpty = !scene.some((element) => !element.isDeleted);
      const elements = drawingOrder([...byId.values()]);
      this.api.updateScene({ elements, captureUpdate: this.captureNever });
      if (wasEmpty && elements.some((element) => !element.isDeleted)) {
        const first = this.onFirstContent;
        this.onFirstContent = () => {};
        first();
      }
    }
    if (localAhead) this.changed();
    this.report(skipped);
  }

  /** Tell `onSkipped` about skipped elements it has not heard of at this version. */
  report(skipped) {
    const fresh = skipped.filter((s) => this.reported.get(s.id) !== s.version);
    for (const s of fresh) this.reported.set(s.id, s.version);
    if (fresh.length) this.onSkipped(fresh.map(({ id, problem, local }) => ({ id, problem, local })));
  }

  /** How many elements are skipped now (those reported and not since replaced). */
  skippedCount() {
    return this.reported.size;
  }

  setEditable(editable) {
    if (this.editable && !editable) this.flush(); // what was drawn before the switch
    this.editable = editable;
  }

  destroy() {
    this.flush();
    this.map.unobserve(this.onRemote);
  }
}
